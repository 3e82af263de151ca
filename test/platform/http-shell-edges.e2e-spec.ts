import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { listRoutes, type RouteEntry } from '#libs/common';
import { ConfigError, loadConfig } from '#libs/config';
import { launchBrowser } from '#libs/testing';
import { bearer, createOwner, createSite } from '../questions/questions-fixtures.js';
import { startApp, startWithDatabase, testEnv, type TestApp } from '../support/test-apps.js';
import type { TestDatabase } from '#libs/testing';

/**
 * The HTTP shell's edges, in both apps: routes match only their exact case, no secret path
 * segment reaches the access log whatever its spelling, the API reference pages serve only what
 * Swagger UI needs under a strict CSP, and CORS is explicit in production.
 */

/** Route parameters that carry a credential (a share token, a sign-in interaction id): never logged. */
const SECRET_PARAM = /token|uid|resume/i;

/** A concrete path for a route template: every parameter filled with `fill(name)`. */
function pathOf(route: RouteEntry, fill: (name: string) => string): string {
  return route.path.replace(/[:*]([A-Za-z0-9_]+)/g, (_match, name: string) => fill(name));
}

const secret = () => randomBytes(32).toString('base64url');

/** Case variants of a path that leave `keep` (the credential) as it is. */
function caseVariants(path: string, keep: string): string[] {
  const [head, tail] = [path.slice(0, path.indexOf(keep)), path.slice(path.indexOf(keep) + keep.length)];
  const firstUpper = head.replace(/\/([a-z])([^/]*)\/?$/, (_m, c: string, rest: string) => `/${c.toUpperCase()}${rest}/`);
  return [...new Set([`${head.toUpperCase()}${keep}${tail}`, `${firstUpper}${keep}${tail}`, `${head.replace(/[a-z]/, (c) => c.toUpperCase())}${keep}${tail}`])].filter((variant) => variant !== path);
}

describe('HTTP shell edges (both apps)', () => {
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;
  let shareToken: string;
  const apps = () => [
    { name: 'todo-api', t: todo },
    { name: 'feedback-export', t: feedback },
  ];

  beforeAll(async () => {
    const started = await startWithDatabase('todo-api');
    database = started.database;
    todo = started;
    feedback = await startApp('feedback-export', database.url);
    const owner = await createOwner(feedback);
    const site = await createSite(feedback, owner, 'Edges');
    const created = await feedback.http
      .post('/api/v1/export/questions')
      .set(bearer(site.writeToken))
      .send({ title: 'Edges', sendNow: true, questions: [{ n: 1, title: 'Q', html: '<p>Q</p>' }] })
      .expect(201);
    shareToken = (created.body.data.shareUrl as string).split('/q/')[1];
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
  });

  describe('routing is case-sensitive', () => {
    it('answers the share page at its exact path and 404 in the envelope for /Q/{token} and other spellings', async () => {
      await feedback.http.get(`/q/${shareToken}`).expect(200);
      for (const path of [`/Q/${shareToken}`, `/api/v1/Share/${shareToken}`, `/API/V1/SHARE/${shareToken}`]) {
        const res = await feedback.http.get(path);
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { success: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) } });
      }
    });

    it('answers 404 NOT_FOUND in the envelope for every route of both apps spelled in upper case', async () => {
      for (const { name, t } of apps()) {
        const routes = listRoutes(t.app).filter((route) => /[a-z]/.test(route.path));
        expect(routes.length).toBeGreaterThan(20);
        const answers: string[] = [];
        for (const route of routes) {
          const path = pathOf(route, () => 'abc123').toUpperCase();
          const method = (route.method === 'ALL' ? 'GET' : route.method).toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
          const res = await t.http[method](path);
          const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
          answers.push(`${name} ${route.method} ${path} ${res.status} ${code}`);
        }
        expect(answers.filter((answer) => !answer.endsWith(' 404 NOT_FOUND'))).toEqual([]);
      }
    });
  });

  describe('access-log redaction', () => {
    it('never logs a secret path segment, in any spelling, on any route whose parameter carries a credential', async () => {
      const secrets: string[] = [];
      let requested = 0;
      for (const { t } of apps()) {
        const secretRoutes = listRoutes(t.app).filter((route) => /[:*]/.test(route.path) && [...route.path.matchAll(/[:*]([A-Za-z0-9_]+)/g)].some(([, name]) => SECRET_PARAM.test(name)));
        for (const route of secretRoutes) {
          const value = route.path.startsWith('/q/') || route.path.startsWith('/api/v1/share/') ? shareToken : secret();
          secrets.push(value);
          const path = pathOf(route, (name) => (SECRET_PARAM.test(name) ? value : '1'));
          const method = (route.method === 'ALL' ? 'GET' : route.method).toLowerCase() as 'get' | 'post' | 'put';
          const encodedFirst = path.replace(/^\/([a-z])/, (_m, c: string) => `/%${c.charCodeAt(0).toString(16)}`);
          for (const variant of [path, ...caseVariants(path, value), `/${path}`, encodedFirst, `${path}?x=1`]) {
            await t.http[method](variant);
            requested += 1;
          }
        }
      }
      expect(secrets.length).toBeGreaterThanOrEqual(4);
      await sleep(50);
      for (const { t } of apps()) expect(t.logs.leaksOf(secrets)).toEqual([]);
      const urls = apps().flatMap(({ t }) => t.logs.lines.map((line) => JSON.parse(line) as { req?: { url: string } }).flatMap((line) => (line.req ? [line.req.url] : [])));
      expect(urls.filter((url) => url.includes('[redacted]')).length).toBeGreaterThanOrEqual(requested);
    });
  });

  describe('API reference pages', () => {
    for (const page of ['/api/docs', '/api/docs/']) {
      it(`serves ${page} under a strict CSP, with every script and stylesheet it names`, async () => {
        for (const { t } of apps()) {
          const res = await t.http.get(page).expect(200);
          expect(res.headers['content-type']).toMatch(/^text\/html/);
          const csp = res.headers['content-security-policy'] as string | undefined;
          expect(csp).toBeDefined();
          const directives = new Map(csp!.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values] as const));
          expect(directives.get('default-src')).toEqual(["'none'"]);
          expect(directives.get('script-src')).toEqual(["'self'"]);
          expect(directives.get('style-src')).toEqual(["'self'"]);
          expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
          expect(directives.get('base-uri')).toEqual(["'none'"]);
          expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]|<style|style="/);
          const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => new URL(url, `${t.baseUrl}${page}`).pathname);
          expect(assets.filter((asset) => asset.endsWith('.js'))).toEqual(expect.arrayContaining(['/api/docs/swagger-ui-bundle.js']));
          expect(assets.filter((asset) => asset.endsWith('.css')).length).toBeGreaterThanOrEqual(1);
          // Relative links: the page also works under the gateway's path prefixes.
          expect([...res.text.matchAll(/(?:src|href|data-openapi-url)="\//g)]).toEqual([]);
          const documentUrl = new URL(/data-openapi-url="([^"]+)"/.exec(res.text)![1], `${t.baseUrl}${page}`).pathname;
          expect(documentUrl).toBe('/api/v1/openapi.json');
          for (const asset of assets) {
            const served = await t.http.get(asset);
            expect({ asset, status: served.status }).toEqual({ asset, status: 200 });
            if (asset.endsWith('.js')) expect(served.headers['content-type']).toMatch(/javascript/);
            if (asset.endsWith('.css')) expect(served.headers['content-type']).toMatch(/^text\/css/);
          }
        }
      });
    }

    it('serves nothing else of swagger-ui-dist (its package.json included)', async () => {
      const unneeded = ['package.json', 'swagger-ui-standalone-preset.js', 'README.md', 'LICENSE', 'index.js', 'absolute-path.js', 'swagger-ui.js', 'swagger-ui-es-bundle.js', 'swagger-ui-bundle.js.map', 'swagger-initializer.js', 'index.html', 'index.css', 'oauth2-redirect.html'];
      for (const { t } of apps()) {
        for (const prefix of ['/api/docs/', '/api/docs/docs/']) {
          for (const file of unneeded) {
            const res = await t.http.get(`${prefix}${file}`);
            expect({ file: `${prefix}${file}`, status: res.status }).toEqual({ file: `${prefix}${file}`, status: 404 });
          }
        }
      }
    });

    it('renders the reference in Chromium with no CSP violation', async () => {
      const browser = await launchBrowser();
      try {
        for (const [t, path] of [[todo, '/api/docs'], [feedback, '/api/docs/']] as const) {
          const page = await browser.newPage();
          const problems: string[] = [];
          page.on('console', (message) => {
            if (message.type() === 'error') problems.push(message.text());
          });
          page.on('pageerror', (error) => problems.push(error.message));
          await page.goto(`${t.baseUrl}${path}`);
          await page.waitForSelector('.swagger-ui .info .title', { timeout: 15_000 });
          await page.waitForSelector('.opblock', { timeout: 15_000 });
          expect(await page.locator('.swagger-ui .info .title').first().textContent()).toMatch(/API/);
          expect(problems).toEqual([]);
          await page.close();
        }
      } finally {
        await browser.close();
      }
    });
  });

  describe('CORS', () => {
    const PRODUCTION = { NODE_ENV: 'production', BCRYPT_COST: '12', PUBLIC_BASE_URL: 'https://todo.example.test', FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.test' };
    const STRANGER = 'https://evil.example.org';

    const preflight = (t: TestApp, path: string, origin: string) =>
      t.http.options(path).set('Origin', origin).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type,authorization');

    it('outside production (development, test) reflects any origin when CORS_ORIGINS is unset', async () => {
      expect(loadConfig(testEnv({ NODE_ENV: 'development' })).corsOrigins).toBe('*');
      const res = await preflight(todo, '/api/v1/auth/login', STRANGER);
      expect(res.headers['access-control-allow-origin']).toBe(STRANGER);
      const simple = await todo.http.get('/api/v1/status').set('Origin', STRANGER).expect(200);
      expect(simple.headers['access-control-allow-origin']).toBe(STRANGER);
    });

    it('refuses CORS_ORIGINS=* in production', () => {
      expect(() => loadConfig(testEnv({ ...PRODUCTION, CORS_ORIGINS: '*' }))).toThrow(
        new ConfigError('CORS_ORIGINS', 'must list origins when NODE_ENV=production (`*` is for development and tests)'),
      );
    });

    it('in production without CORS_ORIGINS allows only the two services’ own origins, and keeps the widget open to every origin', async () => {
      expect(loadConfig(testEnv(PRODUCTION)).corsOrigins).toEqual(['https://todo.example.test', 'https://feedback.example.test']);
      const prodTodo = await startApp('todo-api', database.url, PRODUCTION);
      const prodFeedback = await startApp('feedback-export', database.url, PRODUCTION);
      try {
        // The dashboard (feedback's origin) signs in at todo-api: allowed; any other site: no CORS headers.
        expect((await preflight(prodTodo, '/api/v1/auth/login', 'https://feedback.example.test')).headers['access-control-allow-origin']).toBe('https://feedback.example.test');
        expect((await preflight(prodTodo, '/api/v1/auth/login', STRANGER)).headers['access-control-allow-origin']).toBeUndefined();
        const stranger = await prodTodo.http.get('/api/v1/status').set('Origin', STRANGER).expect(200);
        expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
        expect((await preflight(prodFeedback, '/api/v1/sites', STRANGER)).headers['access-control-allow-origin']).toBeUndefined();
        // The widget's public routes, as decisions.md says: open to every origin.
        expect((await preflight(prodFeedback, '/api/v1/widget/feedback', STRANGER)).headers['access-control-allow-origin']).toBe('*');
        expect((await prodFeedback.http.get('/widget.js').set('Origin', STRANGER).expect(200)).headers['access-control-allow-origin']).toBe('*');
      } finally {
        await prodFeedback.close();
        await prodTodo.close();
      }
    });

    it('in production with CORS_ORIGINS allows exactly the listed origins, and keeps the widget open', async () => {
      const env = { ...PRODUCTION, CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' };
      expect(loadConfig(testEnv(env)).corsOrigins).toEqual(['https://app.example.com', 'https://admin.example.com']);
      const prodFeedback = await startApp('feedback-export', database.url, env);
      try {
        for (const origin of ['https://app.example.com', 'https://admin.example.com']) {
          expect((await preflight(prodFeedback, '/api/v1/sites', origin)).headers['access-control-allow-origin']).toBe(origin);
        }
        expect((await preflight(prodFeedback, '/api/v1/sites', STRANGER)).headers['access-control-allow-origin']).toBeUndefined();
        expect((await preflight(prodFeedback, '/api/v1/sites', 'https://app.example.com.evil.org')).headers['access-control-allow-origin']).toBeUndefined();
        expect((await preflight(prodFeedback, '/api/v1/widget/feedback', STRANGER)).headers['access-control-allow-origin']).toBe('*');
      } finally {
        await prodFeedback.close();
      }
    });
  });
});
