import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { insertUser, launchBrowser, watchPage, type TestUser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { WebhookPanel } from '../support/webhook-panel.js';
import { startReceiver, verifiedEvents, type Receiver } from '../support/webhook-receiver.js';
import { FEEDBACK_WEBHOOK_EVENTS } from '../../apps/feedback-export/src/webhooks/feedback-webhook-events.js';
import { bearer } from './feedback-fixtures.js';
import { signInToDashboard } from '../support/sign-in-page.js';

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
    await signInToDashboard(page, t.baseUrl, user);
    await page.getByRole('button', { name: `Open ${site}` }).click();
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.locator('[data-empty=webhooks]').waitFor();
  }

  it('at desktop width: create, test event delivered with the receiver’s code, replay, disable and enable, rotate, delete', async () => {
    // The receiver answers the first delivery 202 and the replay 204: each code the page shows is the receiver's own.
    receiver.behaviours.set('/acme', (n) => (n === 0 ? 202 : 204));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watchPage(page);
    await openWebhooks(page, 'Acme');

    const hooks = new WebhookPanel(page, '#panel-webhooks');
    // Every type of the catalogue is offered, as a checkbox and as a test event.
    expect(await hooks.offeredEventTypes()).toEqual(Object.keys(FEEDBACK_WEBHOOK_EVENTS));

    const secret = await hooks.createEndpoint(`${receiver.base}/acme`, 'Bugs to the team chat', ['feedback.created', 'batch.answered'], 'dashboard-webhooks-new-endpoint.png');
    await expect(hooks.card.locator('p.muted').textContent()).resolves.toMatch(/^Bugs to the team chat · feedback\.created, batch\.answered · created /);
    // The API holds what the form sent, and never hands the secret out again.
    const webhooks = async () => (await t.http.get(`/api/v1/sites/${sites.Acme}/webhooks`).set(bearer(jwt)).expect(200)).body.data.webhooks;
    const listed = await webhooks();
    expect(listed).toEqual([expect.objectContaining({ url: `${receiver.base}/acme`, description: 'Bugs to the team chat', eventTypes: ['feedback.created', 'batch.answered'], enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    // A test event of the chosen type: the app's queue delivers it, the page follows it to "delivered" with the code;
    // it reached the receiver once, signed with the secret the page showed, under the row's event id.
    const eventId = await hooks.sendTestEvent(202, 'batch.answered');
    expect(verifiedEvents(secret, receiver.on('/acme'))).toEqual([expect.objectContaining({ id: eventId, type: 'batch.answered' })]);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-webhooks-desktop.png`, fullPage: true });

    // Replay: the same event again, signed, the receiver's new answer on the row.
    await hooks.replay(204);
    expect(verifiedEvents(secret, receiver.on('/acme')).map((event) => [event.id, event.type])).toEqual([
      [eventId, 'batch.answered'],
      [eventId, 'batch.answered'],
    ]);

    await hooks.disableThenEnable(async () => expect((await webhooks())[0].enabled).toBe(false));
    await hooks.rotateSecret(secret);
    await hooks.deleteEndpoint();
    expect(await webhooks()).toEqual([]);
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 90_000);

  it('at 390 px: create an endpoint, send a test event, see and replay its delivery without sideways scrolling', async () => {
    receiver.behaviours.set('/phone', (n) => (n === 0 ? 200 : 202));
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    const seen = watchPage(page);
    await openWebhooks(page, 'Phone shop');
    const hooks = new WebhookPanel(page, '#panel-webhooks', 'tap');
    const secret = await hooks.createEndpoint(`${receiver.base}/phone`, 'Phone check', []);
    await expect(hooks.card.locator('p.muted').textContent()).resolves.toMatch(/^Phone check · all events · created /);
    const eventId = await hooks.sendTestEvent(200, 'feedback.created');
    expect(verifiedEvents(secret, receiver.on('/phone'))).toEqual([expect.objectContaining({ id: eventId, type: 'feedback.created' })]);
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-webhooks-phone.png`, fullPage: true });
    await hooks.replay(202);
    expect(verifiedEvents(secret, receiver.on('/phone')).map((event) => event.id)).toEqual([eventId, eventId]);
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 90_000);
});
