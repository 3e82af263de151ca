import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { insertUser, launchBrowser, watchPage, type TestUser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { bearer } from './feedback-fixtures.js';

/**
 * The dashboard's webhook panel in Chromium, at desktop width and at 390 px, against a real receiver this test
 * starts (loopback allowed by the WEBHOOKS_LOOPBACK test switch) and the app's own delivery queue: create an endpoint
 * (its secret shown once, the one that signs), send a test event, see its delivery with the receiver's status code,
 * replay it and see the receiver get the same event again; disable and enable, rotate the secret, delete.
 */
describe('dashboard webhook panel in Chromium', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let user: TestUser;
  let jwt: string;
  const sites: Record<string, string> = {};

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    apps = await startDashboardApps({ WEBHOOKS_LOOPBACK: 'true' });
    t = apps.feedback;
    receiver = await startReceiver();
    user = await insertUser(t.dataSource);
    jwt = await t.accessTokenFor(user.id);
    for (const name of ['Acme', 'Phone shop']) sites[name] = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name }).expect(201)).body.data.site.id;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await apps?.close();
  });


  async function openWebhooks(page: Page, site: string): Promise<void> {
    await page.goto(`${t.baseUrl}/dashboard`);
    await page.waitForSelector('body[data-ready=true]');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    await page.getByRole('button', { name: `Open ${site}` }).click();
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.locator('[data-empty=webhooks]').waitFor();
  }

  /** Fills and submits the new-endpoint form; answers the secret the page shows once. */
  async function createEndpoint(page: Page, url: string, description: string, eventTypes: string[], screenshot?: string): Promise<string> {
    await page.getByRole('button', { name: 'New endpoint' }).click();
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Description').fill(description);
    for (const type of eventTypes) await page.locator(`[data-event-type="${type}"]`).check();
    if (screenshot) await page.locator('#webhook-editor').screenshot({ path: `${SCREENSHOTS_DIR}/${screenshot}` });
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.locator('#webhook-secret [data-secret=webhook]').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    return secret;
  }

  const row = (page: Page) => page.locator('tr[data-delivery]');

  it('at desktop width: create, test event delivered with the receiver’s code, replay, disable and enable, rotate, delete', async () => {
    // The receiver answers the first delivery 202 and the replay 204: each code the page shows is the receiver's own.
    receiver.behaviours.set('/acme', (n) => (n === 0 ? 202 : 204));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watchPage(page);
    await openWebhooks(page, 'Acme');

    // Every type of the catalogue is offered, as a checkbox and as a test event.
    const offered = await page.locator('#webhook-event-types [data-event-type]').evaluateAll((boxes) => boxes.map((box) => (box as any).value));
    expect(offered).toEqual(['feedback.created', 'feedback.status_changed', 'batch.sent', 'batch.opened', 'batch.answer_saved', 'batch.answered']);

    const secret = await createEndpoint(page, `${receiver.base}/acme`, 'Bugs to the team chat', ['feedback.created', 'batch.answered'], 'dashboard-webhooks-new-endpoint.png');
    await page.locator('#webhook-secret').getByRole('button', { name: 'Copy' }).waitFor();
    const card = page.locator('article[data-webhook]');
    await expect(card.locator('.hook-url').textContent()).resolves.toBe(`${receiver.base}/acme`);
    await expect(card.locator('[data-webhook-state]').textContent()).resolves.toBe('Enabled');
    await expect(card.locator('p.muted').textContent()).resolves.toMatch(/^Bugs to the team chat · feedback\.created, batch\.answered · created /);
    // The API holds what the form sent, and never hands the secret out again.
    const listed = (await t.http.get(`/api/v1/sites/${sites.Acme}/webhooks`).set(bearer(jwt)).expect(200)).body.data.webhooks;
    expect(listed).toEqual([expect.objectContaining({ url: `${receiver.base}/acme`, description: 'Bugs to the team chat', eventTypes: ['feedback.created', 'batch.answered'], enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // A test event of the chosen type: the app's queue delivers it, the page follows it to "delivered" with the code.
    await card.getByLabel('Event type of the test event').selectOption('batch.answered');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await row(page).locator('[data-delivery-status=delivered]').waitFor();
    await expect(row(page).locator('[data-response-code]').textContent()).resolves.toBe('202');
    expect(await row(page).locator('td[data-label=Event] code').textContent()).toBe('batch.answered');
    expect(await row(page).locator('td[data-label=Attempts]').textContent()).toBe('1');
    const eventId = (await row(page).getAttribute('data-event-id'))!;
    expect(eventId).toMatch(/^evt_test_/);
    // It reached the receiver once, signed with the secret the page showed, under the row's event id.
    expect(receiver.on('/acme')).toHaveLength(1);
    const [hit] = receiver.on('/acme');
    expect(hit.headers['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({ type: 'batch.answered' });
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-webhooks-desktop.png`, fullPage: true });

    // Replay: the same event again, the receiver's new answer on the row.
    await row(page).getByRole('button', { name: /^Replay/ }).click();
    await row(page).locator('[data-response-code="204"]').waitFor();
    await row(page).locator('[data-delivery-status=delivered]').waitFor();
    expect(receiver.on('/acme').map((h) => h.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(new Webhook(secret).verify(receiver.on('/acme')[1].body, receiver.on('/acme')[1].headers as Record<string, string>)).toMatchObject({ type: 'batch.answered' });

    // Disable, then enable again (from the card's menu).
    await card.locator('[data-webhook-menu]').click();
    await card.getByRole('button', { name: 'Disable' }).click();
    await page.locator('[data-webhook-state=disabled]').waitFor();
    expect((await t.http.get(`/api/v1/sites/${sites.Acme}/webhooks`).set(bearer(jwt)).expect(200)).body.data.webhooks[0].enabled).toBe(false);
    await page.locator('[data-webhook-menu]').click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('[data-webhook-state=enabled]').waitFor();

    // Rotate: asks once more, then the new secret is shown once; both sign for a day.
    await page.locator('[data-webhook-menu]').click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm: new signing secret' }).click();
    const rotated = page.locator('article[data-webhook] [data-secret=webhook]');
    await rotated.waitFor();
    const newSecret = (await rotated.textContent())!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await page.locator('article[data-webhook] p.muted').filter({ hasText: 'previous secret signs too until' }).waitFor();

    // Delete: asks once more; the list is empty again.
    await page.locator('[data-webhook-menu]').click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Confirm: delete this endpoint and its deliveries' }).click();
    await page.locator('[data-empty=webhooks]').waitFor();
    expect((await t.http.get(`/api/v1/sites/${sites.Acme}/webhooks`).set(bearer(jwt)).expect(200)).body.data.webhooks).toEqual([]);
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 90_000);

  it('at 390 px: create an endpoint, send a test event, see and replay its delivery without sideways scrolling', async () => {
    receiver.behaviours.set('/phone', (n) => (n === 0 ? 200 : 202));
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    const seen = watchPage(page);
    await openWebhooks(page, 'Phone shop');
    const secret = await createEndpoint(page, `${receiver.base}/phone`, 'Phone check', []);
    const card = page.locator('article[data-webhook]');
    await expect(card.locator('p.muted').textContent()).resolves.toMatch(/^Phone check · all events · created /);
    await card.getByLabel('Event type of the test event').selectOption('feedback.created');
    await card.getByRole('button', { name: 'Send test event' }).tap();
    await row(page).locator('[data-response-code="200"]').waitFor();
    await row(page).locator('[data-delivery-status=delivered]').waitFor();
    expect(new Webhook(secret).verify(receiver.on('/phone')[0].body, receiver.on('/phone')[0].headers as Record<string, string>)).toMatchObject({ type: 'feedback.created' });
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-webhooks-phone.png`, fullPage: true });
    await row(page).getByRole('button', { name: /^Replay/ }).tap();
    await row(page).locator('[data-response-code="202"]').waitFor();
    expect(receiver.on('/phone')).toHaveLength(2);
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 90_000);
});
