/**
 * The account pages' HTTP side (issue 29): each page is public HTML under a strict CSP (scripts from this origin only,
 * nothing inline), its script is served from here, and every signed-out form links on to sign-up and password reset.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const PAGES = ['/account', '/account/sign-in', '/account/sign-up', '/account/verify-email', '/account/forgot-password', '/account/reset-password'];

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe('account pages over HTTP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(PAGES)('%s is HTML under a CSP that allows no inline or foreign script, and no script inline in it', async (path) => {
    const res = await t.http.get(path).expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    // Only the account centre shows an image that is not a file here: the authenticator's QR code (a PNG data URL).
    expect(csp.get('img-src')).toEqual(path === '/account' ? ["'self'", 'data:'] : ["'self'"]);

    const scripts = [...res.text.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
    // The shared page kit first (account.js reads window.PageKit), then WebAuthn where passkeys are used, the shared
    // webhook panel on the centre (window.WebhookPanel), all from this origin.
    const webauthn = path === '/account' || path === '/account/sign-in' ? ['<script src="/assets/simplewebauthn-browser.js" defer>'] : [];
    const webhookPanel = path === '/account' ? ['<script src="/assets/webhook-panel.js" defer>'] : [];
    expect(scripts).toEqual(['<script src="/assets/page-kit.js" defer>', ...webauthn, ...webhookPanel, '<script src="/assets/account.js" defer>']);
    expect(res.text).not.toMatch(/<script\b[^>]*>[^<]/);
    expect(res.text).not.toMatch(/\son[a-z]+\s*=/i);
    expect(res.text).not.toMatch(/<style\b|\sstyle\s*=/i);
    expect(res.text).toContain('<link rel="stylesheet" href="/assets/app.css">');
  });

  it('serves the pages’ script, stylesheet and icon', async () => {
    const script = await t.http.get('/assets/account.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain("'use strict'");
    const kit = await t.http.get('/assets/page-kit.js').expect(200);
    expect(kit.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(kit.text).toContain('window.PageKit = {');
    const panel = await t.http.get('/assets/webhook-panel.js').expect(200);
    expect(panel.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(panel.text).toContain('window.WebhookPanel = {');
    // @simplewebauthn/browser's own build, as the package ships it (no WebAuthn encoding written here).
    const webauthn = await t.http.get('/assets/simplewebauthn-browser.js').expect(200);
    expect(webauthn.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(webauthn.text).toMatch(/^\/\* \[@simplewebauthn\/browser@\d+\.\d+\.\d+\] \*\//);
    expect(webauthn.text).toContain('SimpleWebAuthnBrowser');
    const css = await t.http.get('/assets/app.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    await t.http.get('/favicon.svg').expect(200).expect('Content-Type', /^image\/svg\+xml/);
    await t.http.get('/favicon.ico').expect(200).expect('Content-Type', 'image/x-icon');
  });

  it.each(['/account/sign-in', '/account/forgot-password', '/account/reset-password'])('%s links to sign-up (and to sign-in or password reset)', async (path) => {
    const res = await t.http.get(path).expect(200);
    const links = [...res.text.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => href);
    expect(links).toContain('/account/sign-up');
    expect(links).toContain(path === '/account/sign-in' ? '/account/forgot-password' : '/account/sign-in');
  });
});
