import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { insertUser, launchBrowser, type TestUser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { bearer } from './feedback-fixtures.js';
import { signInToDashboard } from '../support/sign-in-page.js';

/** The signed reporter in the dashboard's feedback list, at desktop width and at 390 px, written as text only. */
describe('dashboard: signed reporter in Chromium', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let t: TestApp;
  let browser: Browser;
  let user: TestUser;
  let site: { id: string; siteKey: string };
  let signedId: string;
  let markupId: string;
  let anonymousId: string;
  let firstSecret: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    apps = await startDashboardApps();
    t = apps.feedback;
    user = await insertUser(t.dataSource);
    const jwt = await t.accessTokenFor(user.id);
    site = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Acme' }).expect(201)).body.data.site;
    firstSecret = (await t.http.post(`/api/v1/sites/${site.id}/identity-secret`).set(bearer(jwt)).expect(200)).body.data.secret;
    const secret = new TextEncoder().encode(firstSecret);
    const sign = (claims: Record<string, string>, sub: string) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setExpirationTime('10m').sign(secret);
    const send = async (message: string, userToken?: string) =>
      (await t.http.post('/api/v1/widget/feedback').send({ siteKey: site.siteKey, type: 'bug', message, pageUrl: 'https://acme.example/cart', userToken }).expect(201)).body.data.id as string;
    signedId = await send('Coupon rejected', await sign({ email: 'ada@example.com', name: 'Ada Lovelace' }, 'user_8231'));
    markupId = await send('Name with markup', await sign({ name: '<img src=x onerror=alert(1)>' }, 'user_9'));
    anonymousId = await send('Anonymous note');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await apps?.close();
  });

  async function openSite(page: Page): Promise<string[]> {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => errors.push(`dialog: ${dialog.message()}`));
    await signInToDashboard(page, t.baseUrl, user);
    await page.getByRole('button', { name: 'Open Acme' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('tr[data-row]').length === 3);
    return errors;
  }

  it.each([
    ['desktop', { width: 1280, height: 900 }],
    ['390 px', { width: 390, height: 844 }],
  ])('shows who sent each signed item (%s), nothing for anonymous ones', async (label, viewport) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors = await openSite(page);
    await expect(page.locator(`[data-reporter="${signedId}"]`).textContent()).resolves.toBe('Reporter: Ada Lovelace <ada@example.com> · id user_8231');
    await expect(page.locator(`[data-reporter="${markupId}"]`).textContent()).resolves.toBe('Reporter: <img src=x onerror=alert(1)> · id user_9');
    expect(await page.locator(`[data-reporter="${markupId}"] img`).count()).toBe(0);
    expect(await page.locator(`[data-reporter="${anonymousId}"]`).count()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-reporter-${label === 'desktop' ? 'desktop' : 'phone'}.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('lets the owner issue a new identity secret from the site menu, shown once; it signs, the old one no longer does', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const errors = await openSite(page);
    await page.locator(`[data-menu="${site.id}"]`).click();
    const button = page.locator(`[data-identity-secret="${site.id}"]`);
    await button.click();
    await expect(button.textContent()).resolves.toBe('Confirm: tokens signed with an earlier secret stop working');
    await button.click();
    const shown = (await page.locator('[data-secret=identity]').textContent())!;
    expect(shown).toMatch(/^idsec_/);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-identity-secret-phone.png`, fullPage: true });
    const send = (key: string) =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime('10m').sign(new TextEncoder().encode(key))
        .then((userToken) => t.http.post('/api/v1/widget/feedback').send({ siteKey: site.siteKey, type: 'bug', message: 'after the dashboard rotation', pageUrl: 'https://acme.example/', userToken }));
    expect((await send(shown)).status).toBe(201);
    expect((await send(firstSecret)).body.error.code).toBe('IDENTITY_TOKEN_INVALID');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
