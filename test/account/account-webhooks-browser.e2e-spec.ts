/**
 * The account centre's webhook panel (todo events; the dashboard's shared panel on the account's routes) in Chromium, at 1280 px and
 * at 390 px, against a real receiver this test starts (loopback allowed by the WEBHOOKS_LOOPBACK test switch) and the
 * app's own delivery queue: create an endpoint (event checkboxes from todo-api's catalogue; its secret shown once, the
 * one that signs), send a test event, see its delivery with the receiver's status code, replay it; disable and enable,
 * rotate the secret, delete.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { freePort, launchBrowser, SmtpTestServer, watchPage } from '#libs/testing';
import { bearer, signUp, type SignedUp } from '../auth/helpers.js';
import { grantBetaAccess } from '../support/api-access.js';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { TODO_WEBHOOK_EVENTS } from '../../apps/todo-api/src/webhooks/todo-webhook-events.js';

describe('account centre webhook panel in Chromium', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let receiver: Receiver;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await smtp.start();
    receiver = await startReceiver();
    const port = await freePort();
    base = `http://localhost:${port}`;
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base, SMTP_URL: smtp.url, WEBHOOKS_LOOPBACK: 'true' }, { port });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
    await smtp.stop();
  });

  async function signIn(page: Page, user: SignedUp): Promise<void> {
    await page.goto(`${base}/account/sign-in`);
    await page.waitForSelector('body[data-ready=true]');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/account`);
    await page.waitForSelector('body[data-ready=true]');
  }

  async function createEndpoint(page: Page, url: string, description: string, eventTypes: string[]): Promise<string> {
    const panel = page.locator('#webhooks');
    await panel.getByRole('button', { name: 'New endpoint' }).click();
    await panel.getByLabel('URL').fill(url);
    await panel.getByLabel('Description').fill(description);
    for (const type of eventTypes) await panel.locator(`[data-event-type="${type}"]`).check();
    await panel.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.locator('#webhook-secret [data-secret=webhook]').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    return secret;
  }

  const row = (page: Page) => page.locator('#webhooks tr[data-delivery]');

  it('without API access the panel says so; with it, at 1280 px: create, test event delivered with the receiver’s code, replay, disable and enable, rotate, delete', async () => {
    const user = await signUp(t);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, user);
    await page.locator('#webhooks [data-empty=webhooks]').filter({ hasText: 'need API access' }).waitFor();
    await expect(page.locator('#new-webhook').isVisible()).resolves.toBe(false);
    await page.close();

    await grantBetaAccess(t.dataSource, user.userId);
    receiver.behaviours.set('/todos', (n) => (n === 0 ? 202 : 204));
    const desk = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watchPage(desk);
    await signIn(desk, user);
    await desk.locator('#webhooks [data-empty=webhooks]').filter({ hasText: 'No webhook endpoints yet' }).waitFor();
    // Every type of todo-api's catalogue is offered, as a checkbox and as a test event.
    const offered = await desk.locator('#webhook-event-types [data-event-type]').evaluateAll((boxes) => boxes.map((box) => (box as any).value));
    expect(offered).toEqual(Object.keys(TODO_WEBHOOK_EVENTS));

    const secret = await createEndpoint(desk, `${receiver.base}/todos`, 'Todos to the team chat', ['todo.created', 'todo.deleted']);
    await desk.locator('#webhook-secret').getByRole('button', { name: 'Copy' }).waitFor();
    const card = desk.locator('article[data-webhook]');
    await expect(card.locator('.hook-url').textContent()).resolves.toBe(`${receiver.base}/todos`);
    await expect(card.locator('[data-webhook-state]').textContent()).resolves.toBe('Enabled');
    await expect(card.locator('p.muted').textContent()).resolves.toMatch(/^Todos to the team chat · todo\.created, todo\.deleted · created /);
    const listed = (await t.http.get('/api/v1/webhooks').set(bearer(user.token)).expect(200)).body.data.webhooks;
    expect(listed).toEqual([expect.objectContaining({ url: `${receiver.base}/todos`, description: 'Todos to the team chat', eventTypes: ['todo.created', 'todo.deleted'], enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // A test event of the chosen type: the app's queue delivers it, the page follows it to "delivered" with the code.
    await card.getByLabel('Event type of the test event').selectOption('todo.deleted');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await row(desk).locator('[data-delivery-status=delivered]').waitFor();
    await expect(row(desk).locator('[data-response-code]').textContent()).resolves.toBe('202');
    const eventId = (await row(desk).getAttribute('data-event-id'))!;
    expect(eventId).toMatch(/^evt_test_/);
    expect(receiver.on('/todos')).toHaveLength(1);
    const [hit] = receiver.on('/todos');
    expect(hit.headers['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({ type: 'todo.deleted' });
    await desk.locator('#webhooks').screenshot({ path: `${SCREENSHOTS_DIR}/account-webhooks-1280.png` });

    // Replay: the same event again, the receiver's new answer on the row.
    await row(desk).getByRole('button', { name: /^Replay/ }).click();
    await row(desk).locator('[data-response-code="204"]').waitFor();
    expect(receiver.on('/todos').map((h) => h.headers['webhook-id'])).toEqual([eventId, eventId]);

    // Disable, then enable again (from the card's menu).
    await card.locator('[data-webhook-menu]').click();
    await card.getByRole('button', { name: 'Disable' }).click();
    await desk.locator('[data-webhook-state=disabled]').waitFor();
    expect((await t.http.get('/api/v1/webhooks').set(bearer(user.token)).expect(200)).body.data.webhooks[0].enabled).toBe(false);
    await desk.locator('[data-webhook-menu]').click();
    await desk.getByRole('button', { name: 'Enable' }).click();
    await desk.locator('[data-webhook-state=enabled]').waitFor();

    // Rotate: asks once more, then the new secret is shown once.
    await desk.locator('[data-webhook-menu]').click();
    await desk.getByRole('button', { name: 'Rotate secret' }).click();
    await desk.getByRole('button', { name: 'Confirm: new signing secret' }).click();
    const rotated = desk.locator('article[data-webhook] [data-secret=webhook]');
    await rotated.waitFor();
    const newSecret = (await rotated.textContent())!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await desk.locator('article[data-webhook] p.muted').filter({ hasText: 'previous secret signs too until' }).waitFor();

    // Delete: asks once more; the list is empty again.
    await desk.locator('[data-webhook-menu]').click();
    await desk.getByRole('button', { name: 'Delete', exact: true }).click();
    await desk.getByRole('button', { name: 'Confirm: delete this endpoint and its deliveries' }).click();
    await desk.locator('#webhooks [data-empty=webhooks]').waitFor();
    expect((await t.http.get('/api/v1/webhooks').set(bearer(user.token)).expect(200)).body.data.webhooks).toEqual([]);
    expect(seen).toEqual({ errors: [], failed: [] });
    await desk.close();
  }, 90_000);

  it('at 390 px: create an endpoint, send a test event, see its delivery without sideways scrolling', async () => {
    const user = await signUp(t);
    await grantBetaAccess(t.dataSource, user.userId);
    receiver.behaviours.set('/phone', () => 200);
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    const seen = watchPage(page);
    await signIn(page, user);
    const secret = await createEndpoint(page, `${receiver.base}/phone`, 'Phone', []);
    const card = page.locator('article[data-webhook]');
    await card.getByRole('button', { name: 'Send test event' }).click();
    await row(page).locator('[data-delivery-status=delivered]').waitFor();
    await expect(row(page).locator('[data-response-code]').textContent()).resolves.toBe('200');
    const [hit] = receiver.on('/phone');
    expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({ type: 'todo.created' });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth > (globalThis as any).innerWidth)).toBe(false);
    await page.locator('#webhooks').screenshot({ path: `${SCREENSHOTS_DIR}/account-webhooks-390.png` });
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 60_000);
});
