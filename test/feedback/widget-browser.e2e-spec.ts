import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, type TestSite } from './feedback-fixtures.js';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

/** A customer's page on another origin that embeds the widget, submitted through the real UI in Chromium. */
describe('widget in a browser', () => {
  let t: TestApp;
  let site: TestSite;
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { CORS_ORIGINS: 'https://dashboard.example.com' });
    site = await createSite(t, await createOwner(t), 'Customer shop');
    pageServer = createServer((request, response) => {
      const html = `<!doctype html><html><head><title>Shop</title></head><body>
        <h1>Checkout</h1>
        <script src="${t.baseUrl}/widget.js" data-site-key="${site.siteKey}" async></script>
      </body></html>`;
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(request.url?.startsWith('/checkout') ? html : 'not here');
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await t?.close();
  });

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
    await page.selectOption('[data-fw=type]', 'bug');
    await page.fill('[data-fw=message]', message);
    await page.selectOption('[data-fw=rating]', '2');
    await page.click('[data-fw=send]');
    await page.waitForFunction(
      // Runs in the page, where `document` exists (this file is compiled without the DOM types).
      () => (globalThis as any).document.querySelector('[data-feedback-widget]')?.shadowRoot?.querySelector('[data-fw=status]')?.textContent === 'Thank you for your feedback!',
      undefined,
      { timeout: 10_000 },
    );
    expect(errors).toEqual([]);
    await page.close();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(exported).toEqual([expect.objectContaining({ type: 'bug', message, rating: 2, pageUrl, status: 'new', siteId: site.id })]);
  }, 60_000);
});
