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
import { freePort, launchBrowser, SmtpTestServer, watchPage } from '#libs/testing';
import { bearer, signUp, type SignedUp } from '../auth/helpers.js';
import { grantBetaAccess } from '../support/api-access.js';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { WebhookPanel } from '../support/webhook-panel.js';
import { startReceiver, verifiedEvents, type Receiver } from '../support/webhook-receiver.js';
import { TODO_WEBHOOK_EVENTS } from '../../apps/todo-api/src/webhooks/todo-webhook-events.js';
import { submitSignIn } from '../support/sign-in-page.js';

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
    await submitSignIn(page, `${base}/account/sign-in`, user);
    await page.waitForURL(`${base}/account`);
    await page.waitForSelector('body[data-ready=true]');
  }

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
    const hooks = new WebhookPanel(desk, '#webhooks');
    // Every type of todo-api's catalogue is offered, as a checkbox and as a test event.
    expect(await hooks.offeredEventTypes()).toEqual(Object.keys(TODO_WEBHOOK_EVENTS));

    const secret = await hooks.createEndpoint(`${receiver.base}/todos`, 'Todos to the team chat', ['todo.created', 'todo.deleted']);
    await expect(hooks.card.locator('p.muted').textContent()).resolves.toMatch(/^Todos to the team chat · todo\.created, todo\.deleted · created /);
    const listed = (await t.http.get('/api/v1/webhooks').set(bearer(user.token)).expect(200)).body.data.webhooks;
    expect(listed).toEqual([expect.objectContaining({ url: `${receiver.base}/todos`, description: 'Todos to the team chat', eventTypes: ['todo.created', 'todo.deleted'], enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // A test event of the chosen type: the app's queue delivers it, the page follows it to "delivered" with the code;
    // the receiver got it once, signed with the secret the page showed, under the row's event id.
    const eventId = await hooks.sendTestEvent(202, 'todo.deleted');
    expect(verifiedEvents(secret, receiver.on('/todos'))).toEqual([expect.objectContaining({ id: eventId, type: 'todo.deleted' })]);
    await hooks.panel.screenshot({ path: `${SCREENSHOTS_DIR}/account-webhooks-1280.png` });

    // Replay: the same event again, signed, the receiver's new answer on the row.
    await hooks.replay(204);
    expect(verifiedEvents(secret, receiver.on('/todos')).map((event) => event.id)).toEqual([eventId, eventId]);

    const webhooks = async () => (await t.http.get('/api/v1/webhooks').set(bearer(user.token)).expect(200)).body.data.webhooks;
    await hooks.disableThenEnable(async () => expect((await webhooks())[0].enabled).toBe(false));
    await hooks.rotateSecret(secret);
    await hooks.deleteEndpoint();
    expect(await webhooks()).toEqual([]);
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
    const hooks = new WebhookPanel(page, '#webhooks');
    const secret = await hooks.createEndpoint(`${receiver.base}/phone`, 'Phone', []);
    const eventId = await hooks.sendTestEvent(200);
    expect(verifiedEvents(secret, receiver.on('/phone'))).toEqual([expect.objectContaining({ id: eventId, type: 'todo.created' })]);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth > (globalThis as any).innerWidth)).toBe(false);
    await page.locator('#webhooks').screenshot({ path: `${SCREENSHOTS_DIR}/account-webhooks-390.png` });
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 60_000);
});
