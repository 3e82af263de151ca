import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertUser, SmtpTestServer, type TestUser } from '#libs/testing';
import { WebhookDeliveryService } from '#libs/webhooks';
import { SITE_WEBHOOK_DISABLED_SUBJECT } from '../../apps/feedback-export/src/webhooks/feedback-webhook-events.js';
import { bearer } from '../feedback/feedback-fixtures.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

/** WEBHOOK_DISABLE_AFTER_MS shortened from 5 days. */
const DISABLE_AFTER_MS = 300;
const REASON = `every delivery attempt failed for ${DISABLE_AFTER_MS} ms without a success`;

describe("a site's webhook endpoint failing for WEBHOOK_DISABLE_AFTER_MS is disabled and the site's owner mailed once", () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;
  let receiver: Receiver;
  let delivery: WebhookDeliveryService;
  let owner: TestUser;
  let jwt: string;

  beforeAll(async () => {
    await smtp.start();
    receiver = await startReceiver();
    receiver.behaviours.set('/failing', () => 500);
    t = await startWithDatabase('feedback-export', { WEBHOOKS_LOOPBACK: 'true', WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS), SMTP_URL: smtp.url });
    delivery = t.app.get(WebhookDeliveryService);
    // The test drives the queue itself (dispatchDue), never the 1 s timer; retries are due after a few ms.
    await delivery.onModuleDestroy();
    delivery.retryScheduleMs = Array.from({ length: 20 }, () => 5);
    owner = await insertUser(t.dataSource);
    jwt = await t.accessTokenFor(owner.id);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await smtp.stop();
  });

  it('disables it with the reason at the first failure past the threshold and mails the owner with the site and the way back', async () => {
    const site = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Checkout shop' }).expect(201)).body.data.site;
    const hooks = `/api/v1/sites/${site.id}/webhooks`;
    const id: string = (await t.http.post(hooks).set(bearer(jwt)).send({ url: `${receiver.base}/failing`, description: 'Slack relay' }).expect(201)).body.data.webhook.id;
    await t.http.post(`${hooks}/${id}/test`).set(bearer(jwt)).send({ eventType: 'feedback.created' }).expect(202);
    await delivery.dispatchDue();
    expect((await t.http.get(`${hooks}/${id}`).set(bearer(jwt)).expect(200)).body.data.webhook).toMatchObject({ enabled: true, failureStreak: 1 });

    await sleep(DISABLE_AFTER_MS + 100);
    await delivery.dispatchDue();
    expect((await t.http.get(`${hooks}/${id}`).set(bearer(jwt)).expect(200)).body.data.webhook).toMatchObject({ enabled: false, disabledReason: REASON, failureStreak: 2 });

    const mail = await smtp.waitFor(owner.email, 0, { subject: SITE_WEBHOOK_DISABLED_SUBJECT });
    const text = mail.raw.replace(/=\r?\n/g, ''); // quoted-printable soft line breaks
    expect(text).toContain(`${receiver.base}/failing (Slack relay)`);
    expect(text).toContain('Checkout shop');
    expect(text).toContain(REASON);
    expect(text).toContain(`/api/v1/sites/${site.id}/webhooks/${id} with {"enabled": true}`);
    await sleep(30);
    await delivery.dispatchDue();
    expect(smtp.to(owner.email, { subject: SITE_WEBHOOK_DISABLED_SUBJECT })).toHaveLength(1);
  });
});
