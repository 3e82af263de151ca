import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Webhook } from 'standardwebhooks';
import { WebhookDeliveryService } from '#libs/webhooks';
import { FeedbackEventsSweeper } from '../../apps/feedback-export/src/webhooks/feedback-events.sweeper.js';
import { FEEDBACK_WEBHOOK_EVENTS } from '../../apps/feedback-export/src/webhooks/feedback-webhook-events.js';
import { bearer, createOwner, createSite, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';
import { sampleQuestions, tokenOfUrl } from '../questions/questions-fixtures.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { scrape } from '../support/metrics-scrape.js';
import { startReceiver, verifiedEvents, type Receiver } from '../support/webhook-receiver.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

const METRICS_TOKEN = 'feedback-webhook-metrics-token-0123';

describe("a site's webhooks: feedback and question-batch events (Standard Webhooks, durable delivery)", () => {
  let t: TestApp & { database: { url: string } };
  let receiver: Receiver;
  let delivery: WebhookDeliveryService;
  let owner: TestOwner;
  let site: TestSite;
  let otherOwner: TestOwner;
  let otherSite: TestSite;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { WEBHOOKS_LOOPBACK: 'true', METRICS_TOKEN });
    receiver = await startReceiver();
    delivery = t.app.get(WebhookDeliveryService);
    // The test drives the queue itself (dispatchDue), never the 1 s timer.
    await delivery.onModuleDestroy();
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Shop');
    otherOwner = await createOwner(t);
    otherSite = await createSite(t, otherOwner, 'Elsewhere');
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await receiver?.close();
    await t?.close();
  });

  const hooks = (siteId: string) => `/api/v1/sites/${siteId}/webhooks`;

  async function createEndpoint(token: string, siteId: string, path: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const response = await t.http.post(hooks(siteId)).set(bearer(token)).send({ url: `${receiver.base}${path}`, ...body }).expect(201);
    expect(response.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    return { id: response.body.data.webhook.id, secret: response.body.data.secret };
  }

  it('delivers every feedback and batch event type once, signed (verified with standardwebhooks), from the change that wrote it', async () => {
    const endpoint = await createEndpoint(site.writeToken, site.id, '/all');
    const widget = (message: string) => t.http.post('/api/v1/widget/feedback').send({ siteKey: site.siteKey, type: 'bug', message, rating: 2, pageUrl: 'https://shop.example.org/cart' }).expect(201);
    const first = (await widget('The button is broken')).body.data.id;
    const second = (await widget('The cart is empty')).body.data.id;
    // Triage with the write token (one item), then the owner's bulk triage; the same status again records nothing.
    await t.http.put(`/api/v1/export/feedback/${first}`).set(bearer(site.writeToken)).send({ status: 'triaged' }).expect(200);
    await t.http.put(`/api/v1/export/feedback/${first}`).set(bearer(site.writeToken)).send({ status: 'triaged' }).expect(200);
    await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: [first, second], status: 'resolved' }).expect(200);
    // A batch sent at once, opened, answered (two saves of one answer, one of another), submitted twice; a draft sent later.
    const sent = await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Homepage review', questions: sampleQuestions(2), sendNow: true }).expect(201);
    const batchId = sent.body.data.id;
    const share = tokenOfUrl(sent.body.data.shareUrl);
    await t.http.get(`/api/v1/share/${share}`).expect(200);
    await t.http.get(`/api/v1/share/${share}`).expect(200);
    await t.http.put(`/api/v1/share/${share}/answers/1`).send({ text: 'Too slow' }).expect(200);
    await t.http.put(`/api/v1/share/${share}/answers/1`).send({ text: 'Far too slow' }).expect(200);
    await t.http.put(`/api/v1/share/${share}/answers/2`).send({ text: 'Fine' }).expect(200);
    await t.http.post(`/api/v1/share/${share}/submit`).expect(200);
    await t.http.post(`/api/v1/share/${share}/submit`).expect(200);
    const draft = await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Pricing', questions: sampleQuestions(1) }).expect(201);
    const draftId = draft.body.data.id;
    await t.http.post(`/api/v1/export/questions/${draftId}/send`).set(bearer(site.writeToken)).expect(200);
    // Another site's changes never reach this site's endpoint.
    await t.http.post('/api/v1/widget/feedback').send({ siteKey: otherSite.siteKey, type: 'bug', message: 'elsewhere', pageUrl: 'https://elsewhere.example.org/' }).expect(201);

    await delivery.dispatchDue();
    await delivery.dispatchDue();
    const hits = receiver.on('/all');
    const bodies = verifiedEvents(endpoint.secret, hits);
    expect(bodies.map((body) => body.type)).toEqual([
      'feedback.created',
      'feedback.created',
      'feedback.status_changed',
      'feedback.status_changed',
      'feedback.status_changed',
      'batch.sent',
      'batch.opened',
      'batch.answer_saved',
      'batch.answer_saved',
      'batch.answer_saved',
      'batch.answered',
      'batch.sent',
    ]);
    // Every type of the catalogue came through, each event once with its own evt_ id.
    expect(new Set(bodies.map((body) => body.type))).toEqual(new Set(Object.keys(FEEDBACK_WEBHOOK_EVENTS)));
    const ids = hits.map((hit) => hit.headers['webhook-id'] as string);
    expect(ids.every((id) => /^evt_[0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // A signature from another secret does not verify.
    expect(() => new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`).verify(hits[0].body, hits[0].headers as Record<string, string>)).toThrow();

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(bodies[0].data).toEqual({ ...exported.find((item: { id: string }) => item.id === first), status: 'new' });
    expect(bodies[1].data).toMatchObject({ id: second, siteId: site.id, message: 'The cart is empty', status: 'new' });
    expect(bodies.slice(2, 5).map((body) => body.data)).toEqual([
      { id: first, siteId: site.id, status: 'triaged', previousStatus: 'new' },
      ...[
        { id: first, siteId: site.id, status: 'resolved', previousStatus: 'triaged' },
        { id: second, siteId: site.id, status: 'resolved', previousStatus: 'new' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    ]);
    const batch = (await t.http.get(`/api/v1/export/questions/${batchId}`).set(bearer(site.readToken)).expect(200)).body.data.batch;
    const summary = { id: batchId, siteId: site.id, title: 'Homepage review', questionCount: 2, createdAt: batch.createdAt, sentAt: batch.sentAt };
    expect(bodies[5].data).toEqual({ ...summary, status: 'sent', answerCount: 0, openedAt: null, answeredAt: null });
    expect(bodies[6].data).toEqual({ ...summary, status: 'opened', answerCount: 0, openedAt: batch.openedAt, answeredAt: null });
    expect(bodies.slice(7, 10).map((body) => [body.data.batchId, body.data.siteId, body.data.n, body.data.text])).toEqual([
      [batchId, site.id, 1, 'Too slow'],
      [batchId, site.id, 1, 'Far too slow'],
      [batchId, site.id, 2, 'Fine'],
    ]);
    expect(bodies[9].data.updatedAt).toBe(batch.questions[1].answer.updatedAt);
    expect(bodies[10].data).toEqual({ ...summary, status: 'answered', answerCount: 2, openedAt: batch.openedAt, answeredAt: batch.answeredAt });
    expect(bodies[11].data).toMatchObject({ id: draftId, status: 'sent', questionCount: 1 });

    const listed = (await t.http.get(`${hooks(site.id)}/${endpoint.id}/deliveries`).set(bearer(owner.jwt)).expect(200)).body.data.deliveries;
    expect(listed).toHaveLength(12);
    expect(listed.every((row: { status: string; attempts: number; lastResponseCode: number }) => row.status === 'delivered' && row.attempts === 1 && row.lastResponseCode === 200)).toBe(true);
    await t.http.delete(`${hooks(site.id)}/${endpoint.id}`).set(bearer(site.writeToken)).expect(200);
  });

  it('counts the events written, by type, in /metrics: each one the event log holds, none for a change that wrote none', async () => {
    const eventRows = async (): Promise<Record<string, number>> =>
      Object.fromEntries((await t.dataSource.query(`SELECT type, count(*)::int AS n FROM feedback_events GROUP BY type`)).map((row: { type: string; n: number }) => [row.type, row.n]));
    const types = Object.keys(FEEDBACK_WEBHOOK_EVENTS);
    const before = await scrape(t.baseUrl, METRICS_TOKEN);
    const rowsBefore = await eventRows();
    // Every type has its series from the start.
    for (const type of types) expect(before.has('feedback_events_written_total', { type })).toBe(true);

    const widget = (message: string, key?: string) => {
      const request = t.http.post('/api/v1/widget/feedback');
      if (key) request.set('Idempotency-Key', key);
      return request.send({ siteKey: site.siteKey, type: 'bug', message, pageUrl: 'https://shop.example.org/' }).expect(201);
    };
    const first = (await widget('Counted once')).body.data.id;
    const keyed = (await widget('Keyed', 'metrics-key-1')).body.data.id;
    await widget('Keyed', 'metrics-key-1'); // the key's replay writes nothing
    await t.http.put(`/api/v1/export/feedback/${first}`).set(bearer(site.writeToken)).send({ status: 'triaged' }).expect(200);
    await t.http.put(`/api/v1/export/feedback/${first}`).set(bearer(site.writeToken)).send({ status: 'triaged' }).expect(200); // same status: none
    await t.http.put(`/api/v1/sites/${site.id}/feedback/${keyed}`).set(bearer(owner.jwt)).send({ status: 'resolved' }).expect(200);
    await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: [first, keyed], status: 'resolved' }).expect(200); // one of two changes
    const sent = await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Counted', questions: sampleQuestions(2), sendNow: true }).expect(201);
    const share = tokenOfUrl(sent.body.data.shareUrl);
    await t.http.get(`/api/v1/share/${share}`).expect(200);
    await t.http.get(`/api/v1/share/${share}`).expect(200); // opened once
    await t.http.put(`/api/v1/share/${share}/answers/1`).send({ text: 'One' }).expect(200);
    await t.http.put(`/api/v1/share/${share}/answers/2`).send({ text: 'Two' }).expect(200);
    await t.http.post(`/api/v1/share/${share}/submit`).expect(200);
    await t.http.post(`/api/v1/share/${share}/submit`).expect(200); // answered once
    const draft = (await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Draft', questions: sampleQuestions(1) }).expect(201)).body.data.id;
    await t.http.post(`/api/v1/sites/${site.id}/questions/${draft}/send`).set(bearer(owner.jwt)).expect(200);
    await t.http.post(`/api/v1/sites/${site.id}/questions/${draft}/send`).set(bearer(owner.jwt)).expect(200); // sent once

    const after = await scrape(t.baseUrl, METRICS_TOKEN);
    const rowsAfter = await eventRows();
    const counted = Object.fromEntries(types.map((type) => [type, after.value('feedback_events_written_total', { type }) - before.value('feedback_events_written_total', { type })]));
    expect(counted).toEqual({ 'feedback.created': 2, 'feedback.status_changed': 3, 'batch.sent': 2, 'batch.opened': 1, 'batch.answer_saved': 2, 'batch.answered': 1 });
    // The counter agrees with the event log itself.
    expect(counted).toEqual(Object.fromEntries(types.map((type) => [type, (rowsAfter[type] ?? 0) - (rowsBefore[type] ?? 0)])));
    await delivery.dispatchDue();
  });

  it("keeps each site's endpoints to its own write token and owner: another site's token is answered as a missing site", async () => {
    const endpoint = await createEndpoint(owner.jwt, site.id, '/scoped');
    const missingSite = '00000000-0000-4000-8000-000000000000';
    const asMissing = (await t.http.get(hooks(missingSite)).set(bearer(otherSite.writeToken)).expect(404)).body;
    // B's write token on A's site: the same answer as on a site that does not exist, on every route.
    const attempts = [
      t.http.get(hooks(site.id)),
      t.http.post(hooks(site.id)).send({ url: `${receiver.base}/stolen` }),
      t.http.get(`${hooks(site.id)}/${endpoint.id}`),
      t.http.patch(`${hooks(site.id)}/${endpoint.id}`).send({ enabled: false }),
      t.http.get(`${hooks(site.id)}/${endpoint.id}/deliveries`),
      t.http.post(`${hooks(site.id)}/${endpoint.id}/rotate-secret`),
      t.http.post(`${hooks(site.id)}/${endpoint.id}/test`).send({ eventType: 'feedback.created' }),
      t.http.delete(`${hooks(site.id)}/${endpoint.id}`),
    ];
    for (const attempt of attempts) expect((await attempt.set(bearer(otherSite.writeToken)).expect(404)).body).toEqual(asMissing);
    // B's owner on A's site: 404 too; A's endpoint seen through B's site: 404 (Webhook endpoint not found).
    await t.http.get(hooks(site.id)).set(bearer(otherOwner.jwt)).expect(404);
    expect((await t.http.get(`${hooks(otherSite.id)}/${endpoint.id}`).set(bearer(otherSite.writeToken)).expect(404)).body.error.code).toBe('NOT_FOUND');
    // A read token never manages webhooks; no credential is 401.
    expect((await t.http.get(hooks(site.id)).set(bearer(site.readToken)).expect(401)).body.error.code).toBe('INVALID_TOKEN');
    expect((await t.http.get(hooks(site.id)).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    // A's own token and owner see it, never its secret.
    const listed = (await t.http.get(hooks(site.id)).set(bearer(site.writeToken)).expect(200)).body.data.webhooks;
    expect(listed.map((hook: { id: string }) => hook.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);
    expect((await t.http.get(hooks(otherSite.id)).set(bearer(otherSite.writeToken)).expect(200)).body.data.webhooks).toEqual([]);
    await t.http.delete(`${hooks(site.id)}/${endpoint.id}`).set(bearer(owner.jwt)).expect(200);
  });

  it('sends a real, signed test event of the chosen type, and replays one delivery or everything since a time', async () => {
    const endpoint = await createEndpoint(site.writeToken, site.id, '/test-event', { eventTypes: ['batch.answered'] });
    expect((await t.http.post(`${hooks(site.id)}/${endpoint.id}/test`).set(bearer(site.writeToken)).send({ eventType: 'todo.created' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    const queued = (await t.http.post(`${hooks(site.id)}/${endpoint.id}/test`).set(bearer(site.writeToken)).send({ eventType: 'batch.answered' }).expect(202)).body.data.delivery;
    expect(queued).toMatchObject({ webhookId: endpoint.id, eventType: 'batch.answered', status: 'pending', eventId: expect.stringMatching(/^evt_test_[0-9a-f]{32}$/) });
    await delivery.dispatchDue();
    const [test] = receiver.on('/test-event');
    const [body] = verifiedEvents(endpoint.secret, [test]);
    expect(test.headers['webhook-id']).toBe(queued.eventId);
    expect(body).toMatchObject({ type: 'batch.answered', data: FEEDBACK_WEBHOOK_EVENTS['batch.answered'] });

    const replayed = (await t.http.post(`${hooks(site.id)}/deliveries/${queued.id}/replay`).set(bearer(owner.jwt)).expect(202)).body.data.delivery;
    expect(replayed).toMatchObject({ id: queued.id, status: 'pending', attempts: 0 });
    // Another site's token cannot replay it.
    await t.http.post(`${hooks(otherSite.id)}/deliveries/${queued.id}/replay`).set(bearer(otherSite.writeToken)).expect(404);
    await delivery.dispatchDue();
    expect(receiver.on('/test-event').map((hit) => hit.headers['webhook-id'])).toEqual([queued.eventId, queued.eventId]);
    expect(verifiedEvents(endpoint.secret, receiver.on('/test-event'))[1]).toMatchObject({ type: 'batch.answered' });

    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await t.http.post(`${hooks(site.id)}/${endpoint.id}/replay`).set(bearer(site.writeToken)).send({ since }).expect(202)).body.data).toEqual({ replayed: 1 });
    await delivery.dispatchDue();
    expect(receiver.on('/test-event')).toHaveLength(3);
    await t.http.delete(`${hooks(site.id)}/${endpoint.id}`).set(bearer(site.writeToken)).expect(200);
  });

  it('offers list_webhooks, create_webhook, delete_webhook and list_webhook_deliveries on the MCP server, for the write token’s own site', async () => {
    const connect = async (token: string) => {
      const client = new Client({ name: 'site-webhooks-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: bearer(token) } }));
      clients.push(client);
      return client;
    };
    const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;
    const writer = await connect(site.writeToken);
    const created = await call(writer, 'create_webhook', { url: `${receiver.base}/mcp`, eventTypes: ['feedback.created'], description: 'from an agent' });
    expect(created.isError).toBeFalsy();
    const { webhook, secret } = created.structuredContent;
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({ url: `${receiver.base}/mcp`, eventTypes: ['feedback.created'], description: 'from an agent', enabled: true });
    expect((await call(writer, 'create_webhook', { url: `${receiver.base}/mcp`, eventTypes: ['todo.created'] })).isError).toBe(true);
    expect((await call(writer, 'create_webhook', { url: 'ftp://example.com/' })).isError).toBe(true);
    expect((await call(writer, 'list_webhooks')).structuredContent.webhooks.map((hook: { id: string }) => hook.id)).toEqual([webhook.id]);
    await t.http.post('/api/v1/widget/feedback').send({ siteKey: site.siteKey, type: 'feedback', message: 'via the agent’s hook', pageUrl: 'https://shop.example.org/' }).expect(201);
    await delivery.dispatchDue();
    expect(verifiedEvents(secret, receiver.on('/mcp')).map((body) => body.data.message)).toEqual(['via the agent’s hook']);
    expect((await call(writer, 'list_webhook_deliveries', { id: webhook.id })).structuredContent.deliveries.map((row: { eventType: string; status: string }) => [row.eventType, row.status])).toEqual([
      ['feedback.created', 'delivered'],
    ]);
    // Another site's token sees none of it; a read token gets no webhook tool at all.
    const other = await connect(otherSite.writeToken);
    expect((await call(other, 'list_webhooks')).structuredContent.webhooks).toEqual([]);
    expect((await call(other, 'list_webhook_deliveries', { id: webhook.id })).isError).toBe(true);
    expect((await call(other, 'delete_webhook', { id: webhook.id })).isError).toBe(true);
    expect((await call(await connect(site.readToken), 'list_webhooks')).isError).toBe(true);
    expect((await call(writer, 'delete_webhook', { id: 'x'.repeat(5000) })).isError).toBe(true);
    expect((await call(writer, 'delete_webhook', { id: webhook.id })).structuredContent).toEqual({ deleted: true });
    expect((await call(writer, 'list_webhooks')).structuredContent.webhooks).toEqual([]);
  });

  it("lists the sites' endpoints in the owner's account export (todo-api, the account service), never their secrets", async () => {
    const mine = await createEndpoint(site.writeToken, site.id, '/exported', { description: 'exported' });
    const theirs = await createEndpoint(otherSite.writeToken, otherSite.id, '/not-exported');
    const todo = await startApp('todo-api', t.database.url);
    try {
      const exported = (await todo.http.get('/api/v1/account/export').set(bearer(await todo.accessTokenFor(owner.id))).expect(200)).body.data;
      expect(exported.siteWebhooks.map((hook: { siteId: string; id: string; description: string }) => [hook.siteId, hook.id, hook.description])).toEqual([[site.id, mine.id, 'exported']]);
      expect(JSON.stringify(exported)).not.toContain('whsec_');
      expect(JSON.stringify(exported)).not.toContain(theirs.id);
    } finally {
      await todo.close();
    }
    await t.http.delete(`${hooks(site.id)}/${mine.id}`).set(bearer(site.writeToken)).expect(200);
    await t.http.delete(`${hooks(otherSite.id)}/${theirs.id}`).set(bearer(otherSite.writeToken)).expect(200);
  });

  it('sweeps event log rows older than 24 h and keeps the newer ones (deliveries keep their own copy)', async () => {
    const [{ newest }] = await t.dataSource.query(`SELECT max(id)::text AS newest FROM feedback_events`);
    await t.dataSource.query(`UPDATE feedback_events SET created_at = now() - interval '25 hours' WHERE id < $1`, [newest]);
    const [{ old }] = await t.dataSource.query(`SELECT count(*)::int AS old FROM feedback_events WHERE id < $1`, [newest]);
    expect(old).toBeGreaterThan(0);
    expect(await t.app.get(FeedbackEventsSweeper).sweep()).toBe(old);
    expect(await t.dataSource.query(`SELECT id::text FROM feedback_events`)).toEqual([{ id: newest }]);
  });

  it("removes a site's endpoints and their deliveries with the site", async () => {
    const doomed = await createSite(t, owner, 'Doomed');
    const endpoint = await createEndpoint(doomed.writeToken, doomed.id, '/doomed');
    await t.http.post(`${hooks(doomed.id)}/${endpoint.id}/test`).set(bearer(owner.jwt)).send({ eventType: 'feedback.created' }).expect(202);
    const count = async () =>
      (await t.dataSource.query(`SELECT (SELECT count(*)::int FROM webhook_endpoints WHERE id = $1) AS endpoints, (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $1) AS deliveries`, [endpoint.id]))[0];
    expect(await count()).toEqual({ endpoints: 1, deliveries: 1 });
    await t.http.delete(`/api/v1/sites/${doomed.id}`).set(bearer(owner.jwt)).expect(200);
    expect(await count()).toEqual({ endpoints: 0, deliveries: 0 });
  });
});
