import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser, SmtpTestServer, type TestUser } from '#libs/testing';
import { WebhookDeliveryService } from '#libs/webhooks';
import { WebhookEndpointsRepository } from '../../libs/webhooks/src/webhook-endpoints.repository.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { scrape } from '../support/metrics-scrape.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const METRICS_TOKEN = 'webhook-metrics-token-0123456789';
/** WEBHOOK_DISABLE_AFTER_MS shortened from 5 days. */
const DISABLE_AFTER_MS = 300;
const REASON = `every delivery attempt failed for ${DISABLE_AFTER_MS} ms without a success`;

describe('a webhook endpoint failing for WEBHOOK_DISABLE_AFTER_MS is disabled and its owner mailed once', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;
  let delivery: WebhookDeliveryService;
  let owner: TestUser;
  let key: string;
  let server: Server;
  let receiverUrl: string;
  let answer = 500;
  let hits = 0;

  beforeAll(async () => {
    await smtp.start();
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        hits++;
        response.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    t = await startWithDatabase('todo-api', { WEBHOOKS_LOOPBACK: 'true', WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS), SMTP_URL: smtp.url, METRICS_TOKEN });
    delivery = t.app.get(WebhookDeliveryService);
    // The test drives the queue itself (dispatchDue), never the 1 s timer; retries are due after a few ms.
    await delivery.onModuleDestroy();
    delivery.retryScheduleMs = Array.from({ length: 20 }, () => 5);
    owner = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, owner.id);
    key = (await insertApiKey(t.dataSource, owner.id)).key;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
    await smtp.stop();
  });

  const webhook = async (id: string) => (await t.http.get(`/api/v1/webhooks/${id}`).set('X-API-Key', key).expect(200)).body.data.webhook;
  const deliveries = async (id: string): Promise<any[]> => (await t.http.get(`/api/v1/webhooks/${id}/deliveries`).set('X-API-Key', key).expect(200)).body.data.deliveries;
  const sendTest = (id: string) => t.http.post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', key).send({ eventType: 'todo.created' }).expect(202);

  it('disables it with the reason at the first failure past the threshold, holds its deliveries, mails once; re-enabling resumes', async () => {
    const created = await t.http.post('/api/v1/webhooks').set('X-API-Key', key).send({ url: receiverUrl, description: 'CRM sync' }).expect(201);
    const id: string = created.body.data.webhook.id;
    await sendTest(id);
    await sendTest(id);
    const before = await scrape(t.baseUrl, METRICS_TOKEN);

    // Failing, but not yet for the threshold: still enabled, nobody mailed.
    await delivery.dispatchDue();
    expect(hits).toBe(2);
    let endpoint = await webhook(id);
    expect([endpoint.enabled, endpoint.disabledReason, endpoint.failureStreak]).toEqual([true, null, 2]);

    // The streak's first failure is now older than the threshold: the next failure disables it.
    await sleep(DISABLE_AFTER_MS + 100);
    await delivery.dispatchDue();
    expect(hits).toBe(3);
    endpoint = await webhook(id);
    expect([endpoint.enabled, endpoint.disabledReason, endpoint.failureStreak]).toEqual([false, REASON, 3]);
    const listed = (await t.http.get('/api/v1/webhooks').set('X-API-Key', key).expect(200)).body.data.webhooks;
    expect(listed.find((row: { id: string }) => row.id === id).disabledReason).toBe(REASON);

    const mail = await smtp.waitFor(owner.email, 0, ACCOUNT_MAILS.webhookDisabled);
    const text = mail.raw.replace(/=\r?\n/g, ''); // quoted-printable soft line breaks
    expect(text).toContain(`${receiverUrl} (CRM sync)`);
    expect(text).toContain(REASON);
    expect(text).toContain(`/api/v1/webhooks/${id} with {"enabled": true}`);
    const after = await scrape(t.baseUrl, METRICS_TOKEN);
    expect(after.value('webhook_endpoints_disabled_total', { reason: 'failing' }) - before.value('webhook_endpoints_disabled_total', { reason: 'failing' })).toBe(1);

    // Held: both deliveries wait, nothing more is sent, nobody is mailed again.
    await sleep(30);
    await delivery.dispatchDue();
    expect(hits).toBe(3);
    expect((await deliveries(id)).map((row) => row.status)).toEqual(['pending', 'pending']);
    expect(smtp.to(owner.email, ACCOUNT_MAILS.webhookDisabled)).toHaveLength(1);

    // Its owner fixes the receiver and re-enables it: the reason and the streak are cleared, the held deliveries go out.
    answer = 204;
    await t.http.patch(`/api/v1/webhooks/${id}`).set('X-API-Key', key).send({ enabled: true }).expect(200);
    endpoint = await webhook(id);
    expect([endpoint.enabled, endpoint.disabledReason, endpoint.failureStreak]).toEqual([true, null, 0]);
    await sleep(30);
    await delivery.dispatchDue();
    expect(hits).toBe(5);
    expect((await deliveries(id)).map((row) => [row.status, row.lastResponseCode])).toEqual([
      ['delivered', 204],
      ['delivered', 204],
    ]);
    expect(smtp.to(owner.email, ACCOUNT_MAILS.webhookDisabled)).toHaveLength(1);
    await t.http.delete(`/api/v1/webhooks/${id}`).set('X-API-Key', key).expect(200);
  });

  it('lets one of two racing replicas disable an endpoint (the one that mails)', async () => {
    answer = 500;
    const created = await t.http.post('/api/v1/webhooks').set('X-API-Key', key).send({ url: receiverUrl }).expect(201);
    const id: string = created.body.data.webhook.id;
    await sendTest(id);
    await delivery.dispatchDue();
    await sleep(DISABLE_AFTER_MS + 100);
    const endpoints = t.app.get(WebhookEndpointsRepository);
    const results = await Promise.all([0, 1, 2].map(() => endpoints.disableIfFailingSince(id, DISABLE_AFTER_MS, REASON)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await webhook(id)).enabled).toBe(false);
    await t.http.delete(`/api/v1/webhooks/${id}`).set('X-API-Key', key).expect(200);
  });
});
