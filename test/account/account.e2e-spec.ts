import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventSource } from 'eventsource';
import { insertUser, until, type TestUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { BillingCleanupService } from '../../apps/todo-api/src/billing/billing-cleanup.service.js';
import { TodoEventsService } from '../../apps/todo-api/src/todos/todo-events.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';

describe('account export and deletion', () => {
  const stripe = new StripeTestServer();
  let t: TestApp & { database: { url: string } };
  let feedback: TestApp;

  beforeAll(async () => {
    await stripe.start();
    t = await startWithDatabase('todo-api', {
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: 'whsec_test_local',
      STRIPE_PRICE_ID: 'price_test',
      STRIPE_API_BASE: stripe.url,
      STRIPE_TIMEOUT_MS: '1000',
    });
    feedback = await startApp('feedback-export', t.database.url);
  });
  afterAll(async () => {
    await feedback?.close();
    await t?.close();
    await stripe.stop();
  });

  /** A user with something in every kind of table: todos, events, idempotency keys, keys, sessions, subscription, counters, a feedback site. */
  async function populatedUser(): Promise<{ user: TestUser; jwt: string; key: { id: string; key: string } }> {
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    const key = await insertApiKey(t.dataSource, user.id);
    const jwt = await t.accessTokenFor(user.id);
    for (let i = 0; i < 3; i++) {
      await t.http.post('/api/v1/todos').set('X-API-Key', key.key).set('Idempotency-Key', `k-${i}`).send({ text: `todo ${i}`, priority: 1 + i, category: 'c' }).expect(201);
    }
    await feedback.http.post('/api/v1/sites').set('Authorization', `Bearer ${jwt}`).send({ name: `Site of ${user.username}` }).expect(201);
    return { user, jwt, key };
  }

  /** Rows of every table in the schema (found at run time) whose text mentions any of the needles. */
  async function rowsMentioning(needles: string[]): Promise<Record<string, number>> {
    const tables: Array<{ name: string }> = await t.dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM "${name.replace(/"/g, '""')}" AS r WHERE r::text ILIKE ANY($1::text[])`, [
        needles.map((needle) => `%${needle}%`),
      ]);
      counts[name] = rows[0].n;
    }
    if (t.rateLimits.storage === 'redis') {
      // The counters live in Redis then (and PostgreSQL's table stays empty): count its keys instead.
      const lowered = needles.map((needle) => needle.toLowerCase());
      counts.rate_limit_counters = (await t.rateLimits.keys()).filter((key) => lowered.some((needle) => key.toLowerCase().includes(needle))).length;
    }
    return counts;
  }

  it('exports the account, todos, API key records, sessions and subscription, version v1, without secrets', async () => {
    const { user, jwt, key } = await populatedUser();
    const res = await t.http.get('/api/v1/account/export').set('Authorization', `Bearer ${jwt}`).expect(200);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(['account', 'apiKeys', 'connectedApps', 'exportedAt', 'passkeys', 'secondFactor', 'securityActivity', 'sessions', 'siteWebhooks', 'subscription', 'todos', 'version', 'webhooks']);
    expect(data.version).toBe('v1');
    expect(new Date(data.exportedAt).toISOString()).toBe(data.exportedAt);
    expect(data.account).toMatchObject({ id: user.id, email: user.email, username: user.username, privilege: 'user' });
    expect(data.todos.map((todo: { text: string }) => todo.text)).toEqual(['todo 0', 'todo 1', 'todo 2']);
    expect(data.todos[0]).toEqual({ id: expect.any(Number), text: 'todo 0', priority: 1, category: 'c', estimatedDurationMinutes: null, createdAt: expect.any(Number) });
    expect(data.apiKeys).toEqual([
      { id: key.id, name: 'test key', prefix: key.key.slice(0, 12), createdAt: expect.any(String), lastUsedAt: expect.any(String), expiresAt: null, revokedAt: null },
    ]);
    expect(data.sessions).toHaveLength(1);
    expect(data.sessions[0]).toMatchObject({ isActive: true, revokedAt: null });
    expect(data.subscription).toMatchObject({ isBetaLifetime: true, isActive: true, status: 'none' });

    const raw = JSON.stringify(res.body);
    const [secrets] = await t.dataSource.query(
      `SELECT u.password_hash AS p, k.key_hash AS k, s.refresh_token_hash AS s FROM users u JOIN api_keys k ON k.user_id = u.id JOIN sessions s ON s.user_id = u.id WHERE u.id = $1`,
      [user.id],
    );
    for (const secret of [key.key, secrets.p, secrets.k, secrets.s, user.password]) expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/hash|password/i);

    expect((await t.http.get('/api/v1/account/export').expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await t.http.get('/api/v1/account/export').set('X-API-Key', key.key).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
  });

  it('refuses a confirmText other than DELETE (400) and a wrong password (401), deleting nothing', async () => {
    const { user, jwt } = await populatedUser();
    for (const body of [
      { password: user.password, confirmText: 'delete' },
      { password: user.password, confirmText: 'DELETE ' },
      { password: user.password },
      { confirmText: 'DELETE' },
      { password: user.password, confirmText: 'DELETE', extra: true },
    ]) {
      const res = await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send(body).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const wrong = await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send({ password: 'not-the-password', confirmText: 'DELETE' }).expect(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await t.dataSource.query(`SELECT 1 FROM users WHERE id = $1`, [user.id])).length).toBe(1);
  });

  it('deletes every row of the account in both services, cancels the paid subscription, and ends sessions, keys and streams at once', async () => {
    const { user, jwt, key } = await populatedUser();
    const bystander = await populatedUser();
    const customerId = `cus_test_${user.id.slice(0, 8)}`;
    const subscription = stripe.createSubscription(customerId, { status: 'active' });
    await t.dataSource.query(
      `UPDATE subscriptions SET provider = 'stripe', plan_code = 'api_access_monthly', status = 'active', provider_customer_id = $2, provider_subscription_id = $3 WHERE user_id = $1`,
      [user.id, customerId, subscription.id],
    );
    const sessionIds: string[] = (await t.dataSource.query(`SELECT id FROM sessions WHERE user_id = $1`, [user.id])).map((row: { id: string }) => row.id);
    const needles = [user.id, user.email, key.id, customerId, ...sessionIds];
    const bystanderNeedles = [bystander.user.id, bystander.key.id];

    const before = await rowsMentioning(needles);
    for (const table of ['users', 'todos', 'todo_events', 'todo_idempotency_keys', 'api_keys', 'sessions', 'subscriptions', 'rate_limit_counters', 'sites']) {
      expect([table, before[table]]).toEqual([table, expect.any(Number)]);
      expect(before[table]).toBeGreaterThan(0);
    }
    const bystanderBefore = await rowsMentioning(bystanderNeedles);

    const stream = new EventSource(`${t.baseUrl}/api/v1/todos/events?access_token=${key.key}`);
    await new Promise<void>((resolve, reject) => {
      stream.onopen = () => resolve();
      stream.onerror = () => reject(new Error('stream failed'));
    });
    const events = t.app.get(TodoEventsService);
    expect(events.subscriberCount()).toBeGreaterThan(0);
    stream.onerror = () => stream.close(); // the server ends it; do not reconnect

    const res = await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send({ password: user.password, confirmText: 'DELETE' }).expect(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });

    expect(stripe.requestsTo('DELETE', new RegExp(`^/v1/subscriptions/${subscription.id}$`))).toHaveLength(1);
    const after = await rowsMentioning(needles);
    expect(Object.entries(after).filter(([, count]) => count > 0)).toEqual([]);
    expect(await rowsMentioning(bystanderNeedles)).toEqual(bystanderBefore);

    expect((await t.http.get('/api/v1/account/export').set('Authorization', `Bearer ${jwt}`).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await feedback.http.get('/api/v1/sites').set('Authorization', `Bearer ${jwt}`).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await t.http.get('/api/v1/todos').set('X-API-Key', key.key).expect(401)).body.error.code).toBe('INVALID_API_KEY');
    await until(() => events.subscriberCount() === 0);
    stream.close();
    await t.http.get('/api/v1/todos').set('X-API-Key', bystander.key.key).expect(200);
  });

  it('expires the account’s open Checkout sessions and deletes its Stripe customer: a checkout left open cannot be paid after the deletion', async () => {
    const user = await insertUser(t.dataSource);
    const jwt = await t.accessTokenFor(user.id);
    const first = (await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${jwt}`).expect(200)).body.data.sessionId;
    const second = (await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${jwt}`).expect(200)).body.data.sessionId;
    const customerId = stripe.checkoutSessions.get(first)!.customer;
    await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send({ password: user.password, confirmText: 'DELETE' }).expect(200);

    for (const sessionId of [first, second]) {
      expect(stripe.checkoutSessions.get(sessionId)!.status).toBe('expired');
      expect(stripe.requestsTo('POST', new RegExp(`^/v1/checkout/sessions/${sessionId}/expire$`))).toHaveLength(1);
      expect(() => stripe.completeCheckout(sessionId)).toThrow(/cannot be paid/);
    }
    expect(stripe.requestsTo('DELETE', new RegExp(`^/v1/customers/${customerId}$`))).toHaveLength(1);
    expect(stripe.customers.get(customerId)!.deleted).toBe(true);
    expect(await t.dataSource.query(`SELECT 1 FROM billing_cleanups WHERE provider_customer_id = $1`, [customerId])).toEqual([]);
  });

  it('deletes the account at once while Stripe is down, and the kept clean-up finishes it at Stripe later (the subscription canceled, the customer deleted)', async () => {
    const { user, jwt } = await populatedUser();
    const customer = `cus_down_${user.id.slice(0, 8)}`;
    stripe.customers.set(customer, { id: customer, object: 'customer', email: user.email, metadata: {} });
    const subscription = stripe.createSubscription(customer, { status: 'active' });
    await t.dataSource.query(
      `UPDATE subscriptions SET provider = 'stripe', status = 'active', provider_customer_id = $2, provider_subscription_id = $3 WHERE user_id = $1`,
      [user.id, customer, subscription.id],
    );
    stripe.injectFault(/^GET \/v1\/checkout\/sessions$/, { kind: 'hang' });
    const started = Date.now();
    try {
      const res = await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send({ password: user.password, confirmText: 'DELETE' });
      expect(res.body).toEqual({ success: true, data: { deleted: true } });
    } finally {
      stripe.clearFaults();
    }
    expect(Date.now() - started).toBeLessThan(3000);
    expect(Object.entries(await rowsMentioning([user.id])).filter(([, count]) => count > 0)).toEqual([]);
    expect(stripe.subscriptions.get(subscription.id)!.status).toBe('active');
    // Kept, and due again later (backing off): the clean-up is not lost.
    const kept: Array<{ attempts: number; due: boolean }> = await t.dataSource.query(
      `SELECT attempts, next_attempt_at <= now() AS due FROM billing_cleanups WHERE provider_customer_id = $1`,
      [customer],
    );
    expect(kept).toEqual([{ attempts: 1, due: false }]);

    // Time passes; the sweep of some replica takes it up.
    await t.dataSource.query(`UPDATE billing_cleanups SET next_attempt_at = now() WHERE provider_customer_id = $1`, [customer]);
    await expect(t.app.get(BillingCleanupService).runDue()).resolves.toBe(1);
    expect(stripe.subscriptions.get(subscription.id)!.status).toBe('canceled');
    expect(stripe.customers.get(customer)!.deleted).toBe(true);
    expect(await t.dataSource.query(`SELECT 1 FROM billing_cleanups`)).toEqual([]);
  });
});
