import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, type TestSite } from './feedback-fixtures.js';

/** A customer's page on another origin that embeds the widget, submitted through the real UI in Chromium. */
describe('widget in a browser', () => {
  let t: TestApp;
  let site: TestSite;
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;
  let ownerJwt: string;
  /** The reporter token the /signed page embeds (as a host's server would render it). */
  let userToken = '';

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { CORS_ORIGINS: 'https://dashboard.example.com' });
    const owner = await createOwner(t);
    ownerJwt = owner.jwt;
    site = await createSite(t, owner, 'Customer shop');
    pageServer = createServer((request, response) => {
      const html = `<!doctype html><html><head><title>Shop</title><meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
        <h1>Checkout</h1>
        <script src="${t.baseUrl}/widget.js" data-site-key="${site.siteKey}" async></script>
      </body></html>`;
      const themed = html.replace(' async>', ' data-accent="#0a7d4f" data-position="bottom-left" data-label="Ideen?" data-lang="de" data-theme="dark" async>');
      const signed = html.replace(' async>', ` data-user-token="${userToken}" async>`);
      const body = request.url?.startsWith('/checkout') ? html : request.url?.startsWith('/themed') ? themed : request.url?.startsWith('/signed') ? signed : 'not here';
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await t?.close();
  });

  /** Waits (up to 10 s) until the widget's status line has `property` = `value`. */
  const widgetStatusIs = (page: Page, property: 'textContent' | 'className', value: string) =>
    page.waitForFunction(
      // Runs in the page, where `document` exists (this file is compiled without the DOM types).
      ([name, expected]) => (globalThis as any).document.querySelector('[data-feedback-widget]')?.shadowRoot?.querySelector('[data-fw=status]')?.[name] === expected,
      [property, value] as const,
      { timeout: 10_000 },
    );

  it('submits feedback through the widget UI and the export returns it', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const pageUrl = `${pageOrigin}/checkout?step=2`;
    await page.goto(pageUrl);

    await page.click('[data-fw=open]');
    // A blank message is caught in the page, nothing is sent.
    await page.fill('[data-fw=message]', '   ');
    await page.click('[data-fw=send]');
    await expect(page.locator('[data-fw=status]').textContent()).resolves.toBe('Please write a message.');

    const message = 'Coupon field <script>alert(1)</script> rejects valid codes';
    await page.click('[data-fw=type-bug]');
    await page.fill('[data-fw=message]', message);
    await page.click('[data-fw=rating-2]');
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'textContent', 'Thank you for your feedback!');
    expect(errors).toEqual([]);
    await page.close();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(exported).toEqual([expect.objectContaining({ type: 'bug', message, rating: 2, pageUrl, status: 'new', siteId: site.id })]);
  }, 60_000);

  it('sends one Idempotency-Key per submission and reuses it on a resend: a write whose answer was lost is stored once', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const sent: Array<{ key: string | undefined; replayed: string | undefined }> = [];
    await page.route(`${t.baseUrl}/api/v1/widget/feedback`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      // The write reaches the service and commits; the first answer is lost on the way back (a gateway's 502).
      const response = await route.fetch();
      sent.push({ key: route.request().headers()['idempotency-key'], replayed: response.headers()['idempotent-replayed'] });
      if (sent.length === 1) return route.fulfill({ status: 502, headers: { 'Access-Control-Allow-Origin': '*' }, body: 'Bad Gateway' });
      return route.fulfill({ response });
    });
    await page.goto(`${pageOrigin}/checkout?step=retry`);
    await page.click('[data-fw=open]');
    const message = 'Sent twice after a lost answer';
    await page.fill('[data-fw=message]', message);
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'className', 'status err');
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'textContent', 'Thank you for your feedback!');
    expect(errors).toEqual([]);
    expect(sent).toHaveLength(2);
    expect(sent[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toEqual({ key: sent[0].key, replayed: 'true' });
    await page.close();
    const stored = await t.dataSource.query('SELECT count(*)::int AS n FROM feedback WHERE message = $1', [message]);
    expect(stored[0].n).toBe(1);
  }, 60_000);

  /** Runs in the page: a property of the widget's shadow root (this file is compiled without the DOM types). */
  const inWidget = <T>(page: Page, read: (root: any) => T) =>
    page.evaluate(`(${read.toString()})(document.querySelector('[data-feedback-widget]').shadowRoot)`) as Promise<T>;

  it('is a finished panel at desktop width: heading, dialog, keyboard only from the pill to the thank-you, Escape closes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${pageOrigin}/checkout?step=3`);
    await page.locator('[data-fw=open]').waitFor();

    // Keyboard: focus the pill, open it with Enter; focus lands in the panel.
    await page.locator('[data-fw=open]').focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.waitFor();
    expect(await page.locator('[data-fw=open]').getAttribute('aria-expanded')).toBe('true');
    expect(await inWidget(page, (root) => root.activeElement?.getAttribute('name'))).toBe('type');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/widget-desktop-open.png` });

    // Escape closes and gives focus back to the pill.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await inWidget(page, (root) => root.activeElement?.getAttribute('data-fw'))).toBe('open');

    // Arrow keys choose the type (radio group), Tab reaches the message and the stars, Enter sends.
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Keyboard only: the size chart is missing');
    await page.keyboard.press('Tab');
    // Focus is on the first star, none chosen: two steps right choose the third.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await inWidget(page, (root) => root.querySelectorAll('.stars label.on').length)).toBe(3);
    await page.keyboard.press('Tab');
    expect(await inWidget(page, (root) => root.activeElement?.getAttribute('data-fw'))).toBe('send');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Thank you!' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/widget-desktop-sent.png` });
    expect(errors).toEqual([]);
    await page.close();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(exported).toContainEqual(expect.objectContaining({ type: 'bug', message: 'Keyboard only: the size chart is missing', rating: 3, pageUrl: `${pageOrigin}/checkout?step=3` }));
  }, 60_000);

  it('fits a phone screen: the open panel stays inside the viewport', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/checkout`);
    await page.locator('[data-fw=open]').tap();
    await page.getByRole('dialog', { name: 'Send feedback' }).waitFor();
    const box = (await page.locator('[data-fw=panel]').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(667);
    expect(box.width).toBeGreaterThan(340);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.locator('[data-fw=rating-5]').tap();
    await page.locator('[data-fw=message]').fill('From a phone');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/widget-phone-open.png` });
    await page.locator('[data-fw=close]').tap();
    await page.getByRole('dialog', { name: 'Send feedback' }).waitFor({ state: 'hidden' });
    await context.close();
  }, 60_000);

  it('takes its options from data-* attributes and the JS API: accent, position, label, German, dark; sends the reporter context', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'de-DE' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${pageOrigin}/themed?from=search`, { referer: 'https://search.example/results?q=secret#top' });
    const pill = page.locator('[data-fw=open]');
    await expect(pill.textContent()).resolves.toBe('Ideen?');
    expect(await pill.evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor)).toBe('rgb(10, 125, 79)');
    expect((await pill.boundingBox())!.x).toBeLessThan(60);
    await pill.click();
    const dialog = page.getByRole('dialog', { name: 'Feedback senden' });
    await dialog.waitFor();
    expect(await page.locator('[data-fw=panel]').evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor)).toBe('rgb(27, 34, 48)');
    await expect(page.locator('[data-fw=type-feature_request]').textContent()).resolves.toBe('Idee');
    await page.click('[data-fw=send]');
    await expect(page.locator('[data-fw=status]').textContent()).resolves.toBe('Bitte schreiben Sie eine Nachricht.');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/widget-themed-de-dark.png` });
    await page.click('[data-fw=type-feature_request]');
    await page.fill('[data-fw=message]', 'Bitte eine Größentabelle');
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'textContent', 'Vielen Dank für Ihr Feedback!');

    // The JS API: configure repaints, open and close drive the panel.
    await page.evaluate(() => (globalThis as any).FeedbackWidget.configure({ accent: '#aa0000', label: 'Hilfe', theme: 'light', position: 'bottom-right' }));
    await expect(pill.textContent()).resolves.toBe('Hilfe');
    expect(await pill.evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor)).toBe('rgb(170, 0, 0)');
    expect((await pill.boundingBox())!.x).toBeGreaterThan(1000);
    await page.evaluate(() => (globalThis as any).FeedbackWidget.close());
    await dialog.waitFor({ state: 'hidden' });
    await page.evaluate(() => (globalThis as any).FeedbackWidget.open());
    await dialog.waitFor();
    expect(await page.locator('[data-fw=panel]').evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(errors).toEqual([]);
    await context.close();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    const item = exported.find((f: { message: string }) => f.message === 'Bitte eine Größentabelle');
    expect(item).toMatchObject({ type: 'feature_request', pageUrl: `${pageOrigin}/themed?from=search` });
    expect(item.reporterContext).toEqual({ browser: expect.stringMatching(/^Chrome \d+$/), os: 'Linux', viewport: '1280x800', language: 'de-DE', referrer: 'https://search.example/results' });
  }, 60_000);

  it('sends the signed reporter from data-user-token, and a forged identify() token is refused in the panel and stores nothing', async () => {
    const secret = (await t.http.post(`/api/v1/sites/${site.id}/identity-secret`).set(bearer(ownerJwt)).expect(200)).body.data.secret;
    const signFor = (key: string) =>
      new SignJWT({ email: 'ada@example.com', name: 'Ada Lovelace' }).setProtectedHeader({ alg: 'HS256' }).setSubject('user_8231').setExpirationTime('10m').sign(new TextEncoder().encode(key));
    userToken = await signFor(secret);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${pageOrigin}/signed`);
    await page.click('[data-fw=open]');
    await page.fill('[data-fw=message]', 'Signed in and the cart is empty');
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'textContent', 'Thank you for your feedback!');

    // The page swaps in a token signed with another key: the server refuses it and the panel says so.
    const forged = await signFor('idsec_' + 'A'.repeat(43));
    await page.evaluate((token) => (globalThis as any).FeedbackWidget.identify(token), forged);
    await page.click('[data-fw=again]');
    await page.evaluate(() => (globalThis as any).FeedbackWidget.open());
    await page.fill('[data-fw=message]', 'Forged identity');
    await page.click('[data-fw=send]');
    await widgetStatusIs(page, 'className', 'status err');
    await expect(page.locator('[data-fw=status]').textContent()).resolves.toMatch(/identity secret/);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/widget-forged-identity.png` });
    expect(errors).toEqual([]);
    await page.close();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(exported.find((f: { message: string }) => f.message === 'Signed in and the cart is empty').reporter).toEqual({ id: 'user_8231', email: 'ada@example.com', name: 'Ada Lovelace' });
    expect(exported.find((f: { message: string }) => f.message === 'Forged identity')).toBeUndefined();
  }, 60_000);

  it('stays small: one dependency-free file under 17 KB, 6.5 KB gzipped (two languages, themes and the reporter context)', async () => {
    const script = (await t.http.get('/widget.js').expect(200)).text;
    expect(script).not.toMatch(/\bimport\b|\brequire\(/);
    expect(Buffer.byteLength(script)).toBeLessThan(17 * 1024);
    expect(gzipSync(script).length).toBeLessThan(6.5 * 1024);
  });
});
