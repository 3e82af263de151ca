import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { Webhook } from 'standardwebhooks';
import { Database } from '#libs/database';
import { insertUser, largestPlanStep, queriesSentBy, until } from '#libs/testing';
import { WebhookDeliveryService } from '#libs/webhooks';
import { WebhookDeliveriesRepository } from '../../libs/webhooks/src/webhook-deliveries.repository.js';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiCaller } from '../support/api-keys.js';
import { scrape } from '../support/metrics-scrape.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { startReceiver, verifiedEvents } from '../support/webhook-receiver.js';

const METRICS_TOKEN = 'webhook-metrics-token-0123456789';

describe('todo webhooks (Standard Webhooks, durable delivery)', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let delivery: WebhookDeliveryService;
  let caller: { userId: string; key: string };

  beforeAll(async () => {
    t = await startWithDatabase('todo-api', { WEBHOOKS_LOOPBACK: 'true', METRICS_TOKEN: METRICS_TOKEN });
    receiver = await startReceiver();
    delivery = t.app.get(WebhookDeliveryService);
    // The test drives the queue itself (dispatchDue), never the 1 s timer.
    await delivery.onModuleDestroy();
    caller = await insertApiCaller(t.dataSource);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  async function createEndpoint(path: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const response = await t.http.post('/api/v1/webhooks').set('X-API-Key', caller.key).send({ url: `${receiver.base}${path}`, ...body }).expect(201);
    expect(response.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    return { id: response.body.data.webhook.id, secret: response.body.data.secret };
  }

  async function deliveriesOf(endpointId: string): Promise<any[]> {
    return (await t.http.get(`/api/v1/webhooks/${endpointId}/deliveries`).set('X-API-Key', caller.key).expect(200)).body.data.deliveries;
  }

  async function setEnabled(endpointId: string, enabled: boolean): Promise<void> {
    await t.http.patch(`/api/v1/webhooks/${endpointId}`).set('X-API-Key', caller.key).send({ enabled }).expect(200);
  }

  /** Each test removes its endpoints: an account holds at most 10. */
  async function remove(endpointId: string): Promise<void> {
    await t.http.delete(`/api/v1/webhooks/${endpointId}`).set('X-API-Key', caller.key).expect(200);
  }

  /** Lets the retry delays (shortened to a few ms) pass, then runs the queue. */
  async function dispatchAfterRetryDelay(): Promise<void> {
    await sleep(30);
    await delivery.dispatchDue();
  }

  it('delivers every todo event type once, signed (verified with standardwebhooks), with the SSE stream’s event ids', async () => {
    const endpoint = await createEndpoint('/all');
    const received: Array<{ type: string; id: string }> = [];
    const source = new EventSource(`${t.baseUrl}/api/v1/todos/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-API-Key': caller.key } }),
    });
    for (const type of ['todo.created', 'todo.updated', 'todo.deleted']) source.addEventListener(type, (event) => received.push({ type, id: event.lastEventId }));
    await new Promise<void>((resolve, reject) => {
      source.onopen = () => resolve();
      source.onerror = () => reject(new Error('stream failed'));
    });
    try {
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', caller.key).send({ text: 'Hook me', priority: 2, category: 'hooks' }).expect(201);
      const todo = created.body.data.todo;
      await t.http.put(`/api/v1/todos/${todo.id}`).set('X-API-Key', caller.key).send({ priority: 1 }).expect(200);
      await t.http.delete(`/api/v1/todos/${todo.id}`).set('X-API-Key', caller.key).expect(200);
      await until(() => received.length === 3, 5000, 'three SSE events');

      expect(await delivery.dispatchDue()).toBe(3);
      await delivery.dispatchDue();
      const hits = receiver.on('/all');
      expect(hits).toHaveLength(3);
      const bodies = verifiedEvents(endpoint.secret, hits);
      expect(bodies.map((body) => body.type)).toEqual(['todo.created', 'todo.updated', 'todo.deleted']);
      expect(bodies[0].data).toEqual(todo);
      expect(bodies[1].data).toEqual({ ...todo, priority: 1 });
      expect(bodies[2].data).toEqual({ id: todo.id });
      // One event, one id on both channels.
      expect(bodies.map((body) => body.id)).toEqual(received.map((event) => event.id));
      expect(received[0].id).toMatch(/^evt_[0-9]+$/);
      // A signature from another secret does not verify.
      expect(() => new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`).verify(hits[0].body, hits[0].headers as Record<string, string>)).toThrow();

      const listed = await deliveriesOf(endpoint.id);
      expect(listed.map((row) => [row.eventType, row.status, row.attempts, row.lastResponseCode])).toEqual([
        ['todo.deleted', 'delivered', 1, 200],
        ['todo.updated', 'delivered', 1, 200],
        ['todo.created', 'delivered', 1, 200],
      ]);
      // Resume with the evt_ id and with the bare number (clients from before evt_ ids) both work.
      for (const lastId of [received[0].id, received[0].id.slice(4)]) {
        const resumed: string[] = [];
        const again = new EventSource(`${t.baseUrl}/api/v1/todos/events`, {
          fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-API-Key': caller.key, 'Last-Event-ID': lastId } }),
        });
        for (const type of ['todo.updated', 'todo.deleted']) again.addEventListener(type, (event) => resumed.push(event.lastEventId));
        try {
          await until(() => resumed.length === 2, 5000, 'the replay after Last-Event-ID');
          expect(resumed).toEqual([received[1].id, received[2].id]);
        } finally {
          again.close();
        }
      }
    } finally {
      source.close();
      await remove(endpoint.id);
    }
  });

  it('sends only the event types an endpoint asked for', async () => {
    const endpoint = await createEndpoint('/deleted-only', { eventTypes: ['todo.deleted'] });
    const created = await t.http.post('/api/v1/todos').set('X-API-Key', caller.key).send({ text: 'Filter me', priority: 2, category: 'hooks' }).expect(201);
    await t.http.delete(`/api/v1/todos/${created.body.data.todo.id}`).set('X-API-Key', caller.key).expect(200);
    await delivery.dispatchDue();
    expect(receiver.on('/deleted-only').map((hit) => JSON.parse(hit.body).type)).toEqual(['todo.deleted']);
    await remove(endpoint.id);
  });

  it('retries after a 500 and after a timeout on the (shortened) schedule, then marks a delivery failed when it runs out', async () => {
    delivery.retryScheduleMs = [5, 5];
    delivery.attemptTimeoutMs = 300;
    try {
      receiver.behaviours.set('/flaky', (n) => ([500, 'hang', 200] as const)[n] ?? 200);
      const endpoint = await createEndpoint('/flaky');
      const sent = await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.created' }).expect(202);
      expect(sent.body.data.delivery.eventId).toMatch(/^evt_test_/);

      await delivery.dispatchDue();
      let [row] = await deliveriesOf(endpoint.id);
      expect([row.status, row.attempts, row.lastResponseCode, row.lastError]).toEqual(['pending', 1, 500, 'HTTP 500']);
      await dispatchAfterRetryDelay();
      [row] = await deliveriesOf(endpoint.id);
      expect([row.status, row.attempts, row.lastResponseCode, row.lastError]).toEqual(['pending', 2, null, 'timed out']);
      await dispatchAfterRetryDelay();
      [row] = await deliveriesOf(endpoint.id);
      expect([row.status, row.attempts, row.lastResponseCode]).toEqual(['delivered', 3, 200]);
      const hits = receiver.on('/flaky');
      expect(hits).toHaveLength(3);
      // Every attempt is the same event (same webhook-id), signed afresh.
      expect(new Set(verifiedEvents(endpoint.secret, hits).map((event) => event.id)).size).toBe(1);

      receiver.behaviours.set('/down', () => 503);
      const down = await createEndpoint('/down');
      await t.http.post(`/api/v1/webhooks/${down.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.deleted' }).expect(202);
      await delivery.dispatchDue();
      await dispatchAfterRetryDelay();
      await dispatchAfterRetryDelay();
      await dispatchAfterRetryDelay();
      [row] = await deliveriesOf(down.id);
      expect([row.status, row.attempts, row.lastResponseCode, row.nextAttemptAt]).toEqual(['failed', 3, 503, null]);
      expect(receiver.on('/down')).toHaveLength(3);
      const endpointRow = (await t.http.get(`/api/v1/webhooks/${down.id}`).set('X-API-Key', caller.key).expect(200)).body.data.webhook;
      expect(endpointRow.failureStreak).toBe(3);
      await remove(endpoint.id);
      await remove(down.id);
    } finally {
      delivery.retryScheduleMs = [5_000];
      delivery.attemptTimeoutMs = 5_000;
    }
  });

  it('disables an endpoint that answers 410 Gone; no more deliveries are queued for it', async () => {
    receiver.behaviours.set('/gone', () => 410);
    const endpoint = await createEndpoint('/gone');
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.created' }).expect(202);
    await delivery.dispatchDue();
    const webhook = (await t.http.get(`/api/v1/webhooks/${endpoint.id}`).set('X-API-Key', caller.key).expect(200)).body.data.webhook;
    expect([webhook.enabled, webhook.disabledReason]).toEqual([false, 'the endpoint answered 410 Gone']);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: 'failed', lastResponseCode: 410 });
    await t.http.post('/api/v1/todos').set('X-API-Key', caller.key).send({ text: 'Nobody listens', priority: 2, category: 'hooks' }).expect(201);
    await delivery.dispatchDue();
    expect(receiver.on('/gone')).toHaveLength(1);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    // Its owner turns it back on: the reason and the streak are cleared.
    await setEnabled(endpoint.id, true);
    const again = (await t.http.get(`/api/v1/webhooks/${endpoint.id}`).set('X-API-Key', caller.key).expect(200)).body.data.webhook;
    expect([again.enabled, again.disabledReason, again.failureStreak]).toEqual([true, null, 0]);
    await remove(endpoint.id);
  });

  it('signs with the new and the previous secret for a day after a rotation', async () => {
    const endpoint = await createEndpoint('/rotated');
    const rotated = await t.http.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`).set('X-API-Key', caller.key).expect(200);
    const newSecret: string = rotated.body.data.secret;
    expect(newSecret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.data.webhook.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    // Both secrets are sealed at rest: a copy of the table alone cannot sign as us.
    const [stored] = await t.dataSource.query(`SELECT secret, previous_secret AS "previousSecret" FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    for (const secret of [newSecret, endpoint.secret]) {
      const key = secret.replace(/^whsec_/, '');
      expect([stored.secret.includes(key), stored.previousSecret.includes(key)]).toEqual([false, false]);
    }
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.updated' }).expect(202);
    await delivery.dispatchDue();
    const [hit] = receiver.on('/rotated');
    expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [newSecret, endpoint.secret]) new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    // Once the overlap is over, only the new secret signs.
    await t.dataSource.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [endpoint.id]);
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.updated' }).expect(202);
    await delivery.dispatchDue();
    const later = receiver.on('/rotated')[1];
    new Webhook(newSecret).verify(later.body, later.headers as Record<string, string>);
    expect(() => new Webhook(endpoint.secret).verify(later.body, later.headers as Record<string, string>)).toThrow();
    await remove(endpoint.id);
  });

  it('replays one delivery, and everything since a time, with the same event id', async () => {
    const endpoint = await createEndpoint('/replay');
    const since = new Date(Date.now() - 60_000).toISOString();
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.created' }).expect(202);
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.deleted' }).expect(202);
    await delivery.dispatchDue();
    const [latest] = await deliveriesOf(endpoint.id);
    expect(latest.status).toBe('delivered');
    const replayed = await t.http.post(`/api/v1/webhooks/deliveries/${latest.id}/replay`).set('X-API-Key', caller.key).expect(202);
    expect(replayed.body.data.delivery).toMatchObject({ id: latest.id, status: 'pending', attempts: 0 });
    await delivery.dispatchDue();
    const hits = receiver.on('/replay');
    expect(hits).toHaveLength(3);
    expect(hits[2].headers['webhook-id']).toBe(latest.eventId);
    const all = await t.http.post(`/api/v1/webhooks/${endpoint.id}/replay`).set('X-API-Key', caller.key).send({ since }).expect(202);
    expect(all.body.data.replayed).toBe(2);
    await delivery.dispatchDue();
    expect(receiver.on('/replay')).toHaveLength(5);
    await remove(endpoint.id);
  });

  it('loses nothing when a replica dies after claiming, and never hands one delivery to two claimers at once', async () => {
    const queue = t.app.get(WebhookDeliveriesRepository, { strict: false });
    const endpoint = await createEndpoint('/crash');
    for (let i = 0; i < 6; i++) await t.http.post('/api/v1/todos').set('X-API-Key', caller.key).send({ text: `Crash ${i}`, priority: 2, category: 'hooks' }).expect(201);
    // Two replicas claiming at once get disjoint sets (SKIP LOCKED); then both "die" without reporting.
    const [first, second] = await Promise.all([queue.claimDue('account', 4, 60_000), queue.claimDue('account', 4, 60_000)]);
    const claimed = [...first, ...second].filter((row) => row.endpointId === endpoint.id);
    expect(claimed).toHaveLength(6);
    expect(new Set(claimed.map((row) => row.id)).size).toBe(6);
    await delivery.dispatchDue();
    expect(receiver.on('/crash')).toHaveLength(0);
    // Once their lease has passed (a minute: moved here to now), any replica sends them.
    await t.dataSource.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [endpoint.id]);
    await delivery.dispatchDue();
    const hits = receiver.on('/crash');
    expect(hits).toHaveLength(6);
    expect(new Set(hits.map((hit) => hit.headers['webhook-id'])).size).toBe(6);
    expect((await deliveriesOf(endpoint.id)).map((row) => [row.status, row.attempts])).toEqual(Array(6).fill(['delivered', 2]));
    await remove(endpoint.id);
  });

  it('claims a batch by reading about a batch, however long the backlog', async () => {
    // A backlog of its own owner kind, so the claim below (which leases what it takes) touches no other test's rows.
    const queue = t.app.get(WebhookDeliveriesRepository, { strict: false });
    const [endpoint] = await t.dataSource.query(
      `INSERT INTO webhook_endpoints (owner_kind, owner_id, url, secret) VALUES ('backlog-check', $1, 'http://127.0.0.1:9/none', 'unused') RETURNING id`,
      [caller.userId],
    );
    try {
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (endpoint_id, owner_kind, owner_id, event_id, event_type, occurred_at, payload)
         SELECT $1, 'backlog-check', $2, 'evt_backlog_' || g, 'todo.created', now(), '{}' FROM generate_series(1, 10000) g`,
        [endpoint.id, caller.userId],
      );
      await t.dataSource.query('ANALYZE webhook_deliveries');
      const [claim] = await queriesSentBy(t.app.get(Database, { strict: false }), () => queue.claimDue('backlog-check', 50, 60_000));
      // Before the due index held claim order, every due row was read, joined and sorted to keep 50 (10,000 here).
      const largest = await largestPlanStep(t.dataSource, claim);
      expect({ ...largest, withinTwoBatches: largest.rows <= 100 }).toMatchObject({ withinTwoBatches: true });
    } finally {
      await t.dataSource.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    }
  });

  it('refuses private addresses, at create and at delivery, without connecting', async () => {
    for (const url of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/hook', 'ftp://example.com/x']) {
      const response = await t.http.post('/api/v1/webhooks').set('X-API-Key', caller.key).send({ url }).expect(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    const endpoint = await createEndpoint('/moved');
    // The name later resolves elsewhere (here: the stored URL changes under it): the delivery's own guard refuses.
    await t.dataSource.query(`UPDATE webhook_endpoints SET url = 'http://10.255.255.1/hook' WHERE id = $1`, [endpoint.id]);
    await t.http.post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', caller.key).send({ eventType: 'todo.created' }).expect(202);
    await delivery.dispatchDue();
    const [row] = await deliveriesOf(endpoint.id);
    expect([row.status, row.lastResponseCode, row.lastError]).toEqual(['pending', null, 'refused: the URL resolves to a private address']);
    await remove(endpoint.id);
  });

  it('reports events written, deliveries by outcome, the queue and failing endpoints in /metrics', async () => {
    receiver.behaviours.set('/metered', () => 500);
    const endpoint = await createEndpoint('/metered');
    const before = await scrape(t.baseUrl, METRICS_TOKEN);
    await t.http.post('/api/v1/todos').set('X-API-Key', caller.key).send({ text: 'Count me', priority: 2, category: 'hooks' }).expect(201);
    await delivery.dispatchDue();
    await delivery.refreshStats();
    const after = await scrape(t.baseUrl, METRICS_TOKEN);
    expect(after.value('todo_events_written_total') - before.value('todo_events_written_total')).toBe(1);
    expect(after.value('todo_events_written_total', { type: 'todo.created' }) - before.value('todo_events_written_total', { type: 'todo.created' })).toBe(1);
    expect(after.value('webhook_deliveries_total', { outcome: 'retry' }) - before.value('webhook_deliveries_total', { outcome: 'retry' })).toBe(1);
    expect(after.value('webhook_queue_depth')).toBeGreaterThanOrEqual(1);
    expect(after.value('webhook_endpoints_failing')).toBeGreaterThanOrEqual(1);
    expect(after.value('webhook_endpoint_failure_streak_max')).toBeGreaterThanOrEqual(1);
    await remove(endpoint.id);
  });

  it('keeps endpoints to their account: another account gets 404, and account deletion removes them', async () => {
    const endpoint = await createEndpoint('/mine');
    const other = await insertApiCaller(t.dataSource);
    await t.http.get(`/api/v1/webhooks/${endpoint.id}`).set('X-API-Key', other.key).expect(404);
    await t.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries`).set('X-API-Key', other.key).expect(404);
    await t.http.delete(`/api/v1/webhooks/${endpoint.id}`).set('X-API-Key', other.key).expect(404);
    expect((await t.http.get('/api/v1/webhooks').set('X-API-Key', other.key).expect(200)).body.data.webhooks).toEqual([]);
    const mine = (await t.http.get('/api/v1/webhooks').set('X-API-Key', caller.key).expect(200)).body.data.webhooks;
    expect(mine.map((webhook: { id: string }) => webhook.id)).toContain(endpoint.id);
    expect(JSON.stringify(mine)).not.toContain('whsec_');

    const jwt = await t.accessTokenFor(caller.userId);
    const exported = await t.http.get('/api/v1/account/export').set('Authorization', `Bearer ${jwt}`).expect(200);
    expect(exported.body.data.webhooks.map((webhook: { id: string }) => webhook.id)).toContain(endpoint.id);
    expect(JSON.stringify(exported.body.data)).not.toContain('whsec_');

    const leaving = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, leaving.id);
    const leavingJwt = await t.accessTokenFor(leaving.id);
    const theirs = await t.http.post('/api/v1/webhooks').set('Authorization', `Bearer ${leavingJwt}`).send({ url: `${receiver.base}/leaving` }).expect(201);
    await t.http.post(`/api/v1/webhooks/${theirs.body.data.webhook.id}/test`).set('Authorization', `Bearer ${leavingJwt}`).send({ eventType: 'todo.created' }).expect(202);
    await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${leavingJwt}`).send({ password: leaving.password, confirmText: 'DELETE' }).expect(200);
    const left = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM webhook_endpoints WHERE owner_id = $1)::int AS endpoints, (SELECT count(*) FROM webhook_deliveries WHERE owner_id = $1)::int AS deliveries`,
      [leaving.id],
    );
    expect(left).toEqual([{ endpoints: 0, deliveries: 0 }]);
  });
});
