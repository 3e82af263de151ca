/**
 * Public URLs follow the listeners (issue 32): with only TODO_API_PORT / FEEDBACK_API_PORT set, the
 * built services (as `npm start` runs them) put their real ports in the index links, the OpenAPI
 * `servers`, the dashboard's sign-in target, the OAuth issuer and the WWW-Authenticate challenge,
 * and the dashboard's sign-in reaches todo-api. Production without the public URLs refuses to start
 * with one line; a public URL on this machine naming another port than the listener's is warned once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, freePort, type TestDatabase } from '#libs/testing';
import { buildServices, type BuiltServices } from '../support/built-services.js';
import { startChild, type ChildService } from '../support/child-service.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';

describe('public URLs follow the listeners', () => {
  let built: BuiltServices;
  let database: TestDatabase;
  let dataDir: string;
  let service: ChildService;
  let todo: string;
  let feedback: string;

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase({ migrated: true });
    dataDir = mkdtempSync(join(tmpdir(), 'public-urls-'));
    const [todoPort, feedbackPort] = [await freePort(), await freePort()];
    todo = `http://127.0.0.1:${todoPort}`;
    feedback = `http://127.0.0.1:${feedbackPort}`;
    // Only the ports (and HOST, so the listeners are on loopback): no PUBLIC_BASE_URL, no FEEDBACK_PUBLIC_BASE_URL.
    service = startChild(built.entries.both, {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      BCRYPT_COST: '4',
      HOST: '127.0.0.1',
      TODO_API_PORT: String(todoPort),
      FEEDBACK_API_PORT: String(feedbackPort),
      LOG_LEVEL: 'info',
    });
    await service.ready([todoPort, feedbackPort]);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    for (const path of [dataDir, built?.root]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it('index links and OpenAPI servers carry the real ports', async () => {
    for (const base of [todo, feedback]) {
      const index = (await (await fetch(`${base}/`, { headers: { Accept: 'application/json' } })).json()) as { data: { links: Array<{ href: string }> } };
      expect(index.data.links.length).toBeGreaterThan(0);
      for (const link of index.data.links) expect(link.href.startsWith(`${base}/`)).toBe(true);
      const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { servers: Array<{ url: string }> };
      expect(document.servers.map((server) => server.url)).toEqual([base]);
    }
  });

  it("the dashboard signs in at todo-api's real port, and that sign-in answers the dashboard's origin", async () => {
    const page = await fetch(`${feedback}/dashboard`);
    const html = await page.text();
    expect(/data-auth-base="([^"]+)"/.exec(html)?.[1]).toBe(todo);
    expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' ${todo}`);
    const email = `ports-${Date.now()}@example.com`;
    const headers = { 'Content-Type': 'application/json', Origin: feedback };
    expect((await fetch(`${todo}/api/v1/auth/signup`, { method: 'POST', headers, body: JSON.stringify({ email, password: 'long-enough-password-1' }) })).status).toBe(201);
    const login = await fetch(`${todo}/api/v1/auth/login`, { method: 'POST', headers, body: JSON.stringify({ email, password: 'long-enough-password-1' }) });
    expect(login.status).toBe(200);
    expect(login.headers.get('access-control-allow-origin')).toBe(feedback);
  });

  it('the OAuth issuer and the WWW-Authenticate challenge name the real ports', async () => {
    const metadata = (await (await fetch(`${todo}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(todo);
    expect(metadata.token_endpoint.startsWith(`${todo}/`)).toBe(true);
    for (const base of [todo, feedback]) {
      const res = await fetch(`${base}/api/v1/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1/mcp"`);
    }
  });

  it('warns nothing when the URLs follow the ports', () => {
    expect(`${service.stdout()}${service.stderr()}`).not.toMatch(/names port/);
  });

  it('production without the public URLs refuses to start with one line and exit 1', async () => {
    const production = startChild(built.entries.todoApi, { NODE_ENV: 'production', DATABASE_URL: database.url, DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, HOST: '127.0.0.1', TODO_API_PORT: String(await freePort()) });
    expect(await production.exited).toEqual({ code: 1, signal: null });
    // Production logs JSON lines: the refusal is one fatal line naming the variable.
    expect(production.stderr()).toBe('');
    const lines = production.stdout().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual(expect.objectContaining({ level: 60, service: 'todo-api', msg: expect.stringContaining('PUBLIC_BASE_URL is required when NODE_ENV=production') }));
  }, 60_000);

  it('a public URL on this machine with another port than the listener is warned once at start', async () => {
    const port = await freePort();
    const wrong = startChild(built.entries.todoApi, {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      BCRYPT_COST: '4',
      HOST: '127.0.0.1',
      TODO_API_PORT: String(port),
      PUBLIC_BASE_URL: 'http://localhost:3000',
      LOG_LEVEL: 'info',
    });
    try {
      await wrong.ready([port]);
      // The line follows the start line, written after the listener opened: give it a moment.
      for (let waited = 0; !wrong.stdout().includes('names port') && waited < 5000; waited += 50) await sleep(50);
      await sleep(200);
      const warnings = wrong.stdout().split('\n').filter((line) => line.includes('names port'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0])).toEqual(
        expect.objectContaining({ level: 40, service: 'todo-api', msg: expect.stringContaining(`PUBLIC_BASE_URL (http://localhost:3000) names port 3000 of this machine but the service listens on ${port}`) }),
      );
    } finally {
      await wrong.stop();
    }
  }, 90_000);
});
