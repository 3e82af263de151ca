import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { insertUser, type TestUser } from '#libs/testing';
import { BillingCleanupService } from '../../apps/todo-api/src/billing/billing-cleanup.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';

const WEBHOOK_SECRET = `whsec_test_${randomBytes(16).toString('hex')}`;
const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const PRICE_ID = 'price_test_api_monthly';
const PUBLIC_BASE_URL = 'https://app.example.test';

describe('billing (Stripe through a local Stripe-compatible server)', () => {
  const stripe = new StripeTestServer();
  let t: TestApp & { database: { url: string } };
  let unconfigured: TestApp;

  beforeAll(async () => {
    await stripe.start();
    t = await startWithDatabase('todo-api', {
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: PRICE_ID,
      STRIPE_API_BASE: stripe.url,
      STRIPE_TIMEOUT_MS: '1000',
      ADMIN_API_KEY: ADMIN_KEY,
      PUBLIC_BASE_URL,
    });
    // A second replica on the same database with billing not configured.
    unconfigured = await startApp('todo-api', t.database.url, { ADMIN_API_KEY: ADMIN_KEY });
  });
  afterEach(() => stripe.clearFaults());
  afterAll(async () => {
    await unconfigured?.close();
    await t?.close();
    await stripe.stop();
  });

  async function newUser(): Promise<TestUser & { token: string }> {
    const user = await insertUser(t.dataSource);
    return { ...user, token: await t.accessTokenFor(user.id) };
  }

  function deliver(event: Record<string, any> | string, options: { secret?: string; timestamp?: number; tamper?: (payload: string) => string; app?: TestApp } = {}) {
    const { payload, signature } = stripe.signedDelivery(event, options.secret ?? WEBHOOK_SECRET, options.timestamp);
    return (options.app ?? t).http
      .post('/api/v1/billing/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', signature)
      .send(options.tamper ? options.tamper(payload) : payload);
  }

  async function subscription(token: string) {
    const res = await t.http.get('/api/v1/billing/subscription').set('Authorization', `Bearer ${token}`).expect(200);
    return res.body.data.subscription;
  }

  async function startCheckout(token: string): Promise<string> {
    const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${token}`).expect(200);
    return res.body.data.sessionId;
  }

  /** Checkout, payment at "Stripe", and the signed checkout.session.completed webhook. */
  async function subscribe(token: string): Promise<{ subscriptionId: string; customerId: string }> {
    const { session, subscription: created } = stripe.completeCheckout(await startCheckout(token));
    await deliver(stripe.event('checkout.session.completed', session)).expect(200);
    return { subscriptionId: created.id, customerId: session.customer };
  }

  async function customerOf(userId: string): Promise<string | null> {
    const rows = await t.dataSource.query(`SELECT provider_customer_id FROM subscriptions WHERE user_id = $1`, [userId]);
    return rows[0]?.provider_customer_id ?? null;
  }

  describe('status and checkout', () => {
    it('answers plan, price and an empty subscription for a new user', async () => {
      const user = await newUser();
      const res = await t.http.get('/api/v1/billing/subscription').set('Authorization', `Bearer ${user.token}`).expect(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          planCode: 'api_access_monthly',
          monthlyPriceUsd: 5,
          checkoutEnabled: true,
          subscription: {
            provider: null,
            planCode: null,
            status: 'none',
            isActive: false,
            isBetaLifetime: false,
            currentPeriodEnd: null,
            cancelAtPeriodEnd: false,
            providerCustomerId: null,
          },
        },
      });
      await t.http.get('/api/v1/billing/subscription').expect(401);
    });

    it('checkout -> signed webhook -> isActive true -> API key creation allowed', async () => {
      const user = await newUser();
      await t.http.post('/api/v1/auth/api-keys').set('Authorization', `Bearer ${user.token}`).send({ name: 'before' }).expect(402);

      const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).expect(200);
      expect(res.body.data.checkoutUrl).toMatch(/^https:\/\//);
      const sessionRequest = stripe.requestsTo('POST', /^\/v1\/checkout\/sessions$/).at(-1)!;
      expect(sessionRequest.body).toMatchObject({
        mode: 'subscription',
        client_reference_id: user.id,
        metadata: { userId: user.id },
        subscription_data: { metadata: { userId: user.id } },
        line_items: [{ price: PRICE_ID, quantity: '1' }],
      });
      // Back to the account page's subscription section.
      expect(sessionRequest.body.success_url).toBe(`${PUBLIC_BASE_URL}/account?checkout=success#subscription`);
      expect(sessionRequest.body.cancel_url).toBe(`${PUBLIC_BASE_URL}/account?checkout=cancel#subscription`);
      const customer = stripe.customers.get(sessionRequest.body.customer)!;
      expect(customer).toMatchObject({ email: user.email, metadata: { userId: user.id } });
      expect(await subscription(user.token)).toMatchObject({ status: 'none', isActive: false, providerCustomerId: customer.id });

      const { session } = stripe.completeCheckout(res.body.data.sessionId);
      const delivered = await deliver(stripe.event('checkout.session.completed', session)).expect(200);
      expect(delivered.body).toEqual({ success: true, data: { received: true, duplicate: false } });

      const after = await subscription(user.token);
      expect(after).toMatchObject({
        provider: 'stripe',
        planCode: 'api_access_monthly',
        status: 'active',
        isActive: true,
        cancelAtPeriodEnd: false,
        providerCustomerId: customer.id,
      });
      expect(new Date(after.currentPeriodEnd).getTime()).toBeGreaterThan(Date.now() + 20 * 24 * 3600 * 1000);
      await t.http.post('/api/v1/auth/api-keys').set('Authorization', `Bearer ${user.token}`).send({ name: 'after' }).expect(201);

      const again = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).expect(409);
      expect(again.body.error.code).toBe('SUBSCRIPTION_ALREADY_ACTIVE');
    });

    it('creates the Stripe customer once and reuses it on later checkouts', async () => {
      const user = await newUser();
      await startCheckout(user.token);
      await startCheckout(user.token);
      const creates = stripe.requestsTo('POST', /^\/v1\/customers$/).filter((r) => r.body.metadata?.userId === user.id);
      expect(creates).toHaveLength(1);
      const stored = await customerOf(user.id);
      expect(stored).toMatch(/^cus_/);
      const sessions = stripe.requestsTo('POST', /^\/v1\/checkout\/sessions$/).filter((r) => r.body.client_reference_id === user.id);
      expect(sessions.map((r) => r.body.customer)).toEqual([stored, stored]);
    });

    it('replaces a stored customer that no longer exists at Stripe', async () => {
      const user = await newUser();
      await startCheckout(user.token);
      const old = (await customerOf(user.id))!;
      stripe.customers.delete(old);
      await startCheckout(user.token);
      const replaced = await customerOf(user.id);
      expect(replaced).not.toBeNull();
      expect(replaced).not.toBe(old);
      expect(stripe.customers.has(replaced!)).toBe(true);
    });

    it('refuses checkout to a lifetime-beta user with 409 BETA_LIFETIME_ACCESS', async () => {
      const user = await newUser();
      await grantBetaAccess(t.dataSource, user.id);
      const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).expect(409);
      expect(res.body).toEqual({ success: false, error: { code: 'BETA_LIFETIME_ACCESS', message: expect.any(String) } });
    });

    it('refuses a body on checkout (unknown properties)', async () => {
      const user = await newUser();
      const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).send({ price: 'free' }).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('Stripe failures leave nothing half-written', () => {
    it('Stripe 500 on customer creation: 502 PAYMENT_PROVIDER_ERROR, nothing stored', async () => {
      const user = await newUser();
      stripe.injectFault(/^POST \/v1\/customers$/, { kind: 'error', status: 500 });
      const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).expect(502);
      expect(res.body).toEqual({ success: false, error: { code: 'PAYMENT_PROVIDER_ERROR', message: expect.any(String) } });
      expect(await customerOf(user.id)).toBeNull();
      expect(await subscription(user.token)).toMatchObject({ status: 'none', providerCustomerId: null });
    });

    it('Stripe timing out on the checkout session: 503 with Retry-After, no customer linked; the retry reuses the same customer', async () => {
      const user = await newUser();
      stripe.injectFault(/^POST \/v1\/checkout\/sessions$/, { kind: 'hang' });
      const started = Date.now();
      const res = await t.http.post('/api/v1/billing/checkout-session').set('Authorization', `Bearer ${user.token}`).expect(503);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('30');
      expect(await customerOf(user.id)).toBeNull();

      await startCheckout(user.token);
      const customerIds = new Set(stripe.requestsTo('POST', /^\/v1\/checkout\/sessions$/).filter((r) => r.body.client_reference_id === user.id).map((r) => r.body.customer));
      expect(customerIds.size).toBe(1);
      expect(await customerOf(user.id)).toBe([...customerIds][0]);
    });

    it('Stripe 500 on cancel: 502 and the subscription is unchanged here and at Stripe', async () => {
      const user = await newUser();
      const { subscriptionId } = await subscribe(user.token);
      stripe.injectFault(/^POST \/v1\/subscriptions\//, { kind: 'error', status: 500 });
      const res = await t.http.post('/api/v1/billing/subscription/cancel').set('Authorization', `Bearer ${user.token}`).expect(502);
      expect(res.body.error.code).toBe('PAYMENT_PROVIDER_ERROR');
      expect(await subscription(user.token)).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, isActive: true });
      expect(stripe.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(false);
    });

    it('Stripe failing on a webhook re-read: 502 and the event is not marked processed, so the retry applies it', async () => {
      const user = await newUser();
      const { session, subscription: created } = stripe.completeCheckout(await startCheckout(user.token));
      const event = stripe.event('checkout.session.completed', session);
      stripe.injectFault(/^GET \/v1\/subscriptions\//, { kind: 'error', status: 503 });
      await deliver(event).expect(502);
      expect((await subscription(user.token)).isActive).toBe(false);
      const retried = await deliver(event).expect(200);
      expect(retried.body.data.duplicate).toBe(false);
      expect(await subscription(user.token)).toMatchObject({ status: 'active', isActive: true });
      expect(stripe.subscriptions.has(created.id)).toBe(true);
    });
  });

  describe('portal, cancel and reactivate', () => {
    it('portal: 404 CUSTOMER_NOT_FOUND before any checkout, then a portal URL for the customer', async () => {
      const user = await newUser();
      const missing = await t.http.post('/api/v1/billing/portal-session').set('Authorization', `Bearer ${user.token}`).expect(404);
      expect(missing.body).toEqual({ success: false, error: { code: 'CUSTOMER_NOT_FOUND', message: expect.any(String) } });

      const { customerId } = await subscribe(user.token);
      const res = await t.http.post('/api/v1/billing/portal-session').set('Authorization', `Bearer ${user.token}`).expect(200);
      expect(res.body.data).toEqual({ portalUrl: expect.stringMatching(/^https:\/\//), sessionId: expect.any(String) });
      const request = stripe.requestsTo('POST', /^\/v1\/billing_portal\/sessions$/).at(-1)!;
      expect(request.body).toMatchObject({ customer: customerId, return_url: `${PUBLIC_BASE_URL}/account#subscription` });
    });

    it('cancel and reactivate without a subscription: 404 SUBSCRIPTION_NOT_FOUND', async () => {
      const user = await newUser();
      for (const action of ['cancel', 'reactivate']) {
        const res = await t.http.post(`/api/v1/billing/subscription/${action}`).set('Authorization', `Bearer ${user.token}`).expect(404);
        expect(res.body).toEqual({ success: false, error: { code: 'SUBSCRIPTION_NOT_FOUND', message: expect.any(String) } });
      }
    });

    it('cancel sets cancelAtPeriodEnd at Stripe and here (access continues); reactivate undoes it', async () => {
      const user = await newUser();
      const { subscriptionId } = await subscribe(user.token);

      const cancelled = await t.http.post('/api/v1/billing/subscription/cancel').set('Authorization', `Bearer ${user.token}`).expect(200);
      expect(cancelled.body.data.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, isActive: true });
      expect(stripe.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(true);
      expect(await subscription(user.token)).toMatchObject({ cancelAtPeriodEnd: true });

      const reactivated = await t.http.post('/api/v1/billing/subscription/reactivate').set('Authorization', `Bearer ${user.token}`).expect(200);
      expect(reactivated.body.data.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, isActive: true });
      expect(stripe.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(false);
    });

    it('reactivate on an ended subscription: 409 SUBSCRIPTION_NOT_REACTIVATABLE; cancel on it: 404', async () => {
      const user = await newUser();
      const { subscriptionId } = await subscribe(user.token);
      const ended = stripe.updateSubscription(subscriptionId, { status: 'canceled' });
      await deliver(stripe.event('customer.subscription.deleted', ended)).expect(200);
      expect(await subscription(user.token)).toMatchObject({ status: 'canceled', isActive: false });

      const res = await t.http.post('/api/v1/billing/subscription/reactivate').set('Authorization', `Bearer ${user.token}`).expect(409);
      expect(res.body.error.code).toBe('SUBSCRIPTION_NOT_REACTIVATABLE');
      await t.http.post('/api/v1/billing/subscription/cancel').set('Authorization', `Bearer ${user.token}`).expect(404);
    });

    it('invoice.payment_failed makes the subscription past_due: access off, key management 402', async () => {
      const user = await newUser();
      const { subscriptionId } = await subscribe(user.token);
      await t.http.get('/api/v1/auth/api-keys').set('Authorization', `Bearer ${user.token}`).expect(200);
      stripe.updateSubscription(subscriptionId, { status: 'past_due' });
      const invoice = { id: `in_test_${randomBytes(6).toString('hex')}`, object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId } } };
      await deliver(stripe.event('invoice.payment_failed', invoice)).expect(200);
      expect(await subscription(user.token)).toMatchObject({ status: 'past_due', isActive: false });
      const res = await t.http.get('/api/v1/auth/api-keys').set('Authorization', `Bearer ${user.token}`).expect(402);
      expect(res.body.error.code).toBe('SUBSCRIPTION_REQUIRED');
    });
  });

  describe('webhook verification and ordering', () => {
    async function activeUserEvent() {
      const user = await newUser();
      const { session } = stripe.completeCheckout(await startCheckout(user.token));
      return { user, event: stripe.event('checkout.session.completed', session) };
    }

    it('refuses tampered, stale, wrongly signed and unsigned deliveries with 400 INVALID_SIGNATURE, changing nothing', async () => {
      const { user, event } = await activeUserEvent();
      const answers = [
        await deliver(event, { tamper: (payload) => payload.replace('"livemode":false', '"livemode":true') }),
        await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        await deliver(event, { secret: 'whsec_not_the_right_one' }),
        await t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').send(JSON.stringify(event)),
        await t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', 'garbage').send(JSON.stringify(event)),
      ];
      for (const res of answers) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ success: false, error: { code: 'INVALID_SIGNATURE', message: expect.any(String) } });
      }
      expect((await subscription(user.token)).isActive).toBe(false);
      const recorded = await t.dataSource.query(`SELECT 1 FROM billing_webhook_events WHERE event_id = $1`, [event.id]);
      expect(recorded).toHaveLength(0);
      // The untouched delivery still works, so the refusals above were about the signature.
      await deliver(event).expect(200);
      expect((await subscription(user.token)).isActive).toBe(true);
    });

    it('applies the same event delivered 5 times concurrently exactly once', async () => {
      const { user, event } = await activeUserEvent();
      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((res) => res.body.data.duplicate === false)).toHaveLength(1);
      const recorded = await t.dataSource.query(`SELECT event_id FROM billing_webhook_events WHERE event_id = $1`, [event.id]);
      expect(recorded).toHaveLength(1);
      expect((await subscription(user.token)).isActive).toBe(true);
      const later = await deliver(event).expect(200);
      expect(later.body.data.duplicate).toBe(true);
    });

    it('ends in Stripe’s final state whatever order the events arrive in', async () => {
      const orders = [
        [0, 1, 2, 3, 4],
        [4, 3, 2, 1, 0],
        [2, 4, 0, 3, 1],
      ];
      for (const order of orders) {
        const user = await newUser();
        const sessionId = await startCheckout(user.token);
        const { session, subscription: sub } = stripe.completeCheckout(sessionId, { status: 'incomplete' });
        const events = [stripe.event('customer.subscription.created', sub), stripe.event('checkout.session.completed', session)];
        events.push(stripe.event('customer.subscription.updated', stripe.updateSubscription(sub.id, { status: 'active' })));
        const invoice = { id: `in_test_${randomBytes(6).toString('hex')}`, object: 'invoice', parent: { subscription_details: { subscription: sub.id } } };
        stripe.updateSubscription(sub.id, { status: 'past_due' });
        events.push(stripe.event('invoice.payment_failed', invoice));
        const renewedUntil = Math.floor(Date.now() / 1000) + 60 * 24 * 3600;
        events.push(stripe.event('customer.subscription.updated', stripe.updateSubscription(sub.id, { status: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: renewedUntil })));

        for (const index of order) await deliver(events[index]).expect(200);
        expect(await subscription(user.token)).toMatchObject({
          status: 'active',
          isActive: true,
          cancelAtPeriodEnd: true,
          currentPeriodEnd: new Date(renewedUntil * 1000).toISOString(),
        });
      }
    });

    it('never lets an older event copy move a subscription backwards when Stripe cannot be re-read', async () => {
      const user = await newUser();
      const { subscriptionId } = await subscribe(user.token);
      const ended = stripe.updateSubscription(subscriptionId, { status: 'canceled' });
      await deliver(stripe.event('customer.subscription.deleted', ended)).expect(200);
      // The subscription is gone at Stripe; a delayed "active" event from an hour ago arrives.
      const stale = stripe.event('customer.subscription.updated', { ...ended, status: 'active' }, { created: Math.floor(Date.now() / 1000) - 3600 });
      stripe.subscriptions.delete(subscriptionId);
      await deliver(stale).expect(200);
      expect(await subscription(user.token)).toMatchObject({ status: 'canceled', isActive: false });
    });

    it('an old subscription ending does not displace a newer live one', async () => {
      const user = await newUser();
      const first = await subscribe(user.token);
      const endedFirst = stripe.updateSubscription(first.subscriptionId, { status: 'canceled' });
      await deliver(stripe.event('customer.subscription.deleted', endedFirst)).expect(200);
      const second = await subscribe(user.token);
      expect(second.subscriptionId).not.toBe(first.subscriptionId);
      // A redelivered (new id) notice about the first subscription arrives late.
      await deliver(stripe.event('customer.subscription.deleted', endedFirst)).expect(200);
      expect(await subscription(user.token)).toMatchObject({ status: 'active', isActive: true });
      const rows = await t.dataSource.query(`SELECT provider_subscription_id FROM subscriptions WHERE user_id = $1`, [user.id]);
      expect(rows[0].provider_subscription_id).toBe(second.subscriptionId);
    });

    it('acknowledges event types it does not handle without recording them', async () => {
      const event = stripe.event('customer.created', { id: 'cus_test_x', object: 'customer' });
      const res = await deliver(event).expect(200);
      expect(res.body.data).toEqual({ received: true, duplicate: false });
      expect(await t.dataSource.query(`SELECT 1 FROM billing_webhook_events WHERE event_id = $1`, [event.id])).toHaveLength(0);
    });
  });

  describe('lifetime beta administration', () => {
    const grant = (body: unknown, key: string | null = ADMIN_KEY) => {
      const req = t.http.post('/api/v1/billing/beta/grant');
      return (key === null ? req : req.set('X-Admin-API-Key', key)).send(body as object);
    };
    const revoke = (body: unknown) => t.http.post('/api/v1/billing/beta/revoke').set('X-Admin-API-Key', ADMIN_KEY).send(body as object);

    it('needs the admin key: 401 ADMIN_AUTH_REQUIRED without or with a wrong one', async () => {
      const user = await newUser();
      for (const key of [null, '', 'wrong-admin-key-0123456789', `${ADMIN_KEY}x`]) {
        const res = await grant({ userId: user.id }, key).expect(401);
        expect(res.body.error.code).toBe('ADMIN_AUTH_REQUIRED');
      }
      // A JWT is not an admin key.
      const res = await t.http.post('/api/v1/billing/beta/grant').set('Authorization', `Bearer ${user.token}`).send({ userId: user.id }).expect(401);
      expect(res.body.error.code).toBe('ADMIN_AUTH_REQUIRED');
      expect((await subscription(user.token)).isBetaLifetime).toBe(false);
    });

    it('takes exactly one of userId or email', async () => {
      const user = await newUser();
      for (const body of [{}, { userId: user.id, email: user.email }, { userId: 'not-a-uuid' }, { email: 'nope' }, { userId: user.id, extra: true }]) {
        const res = await grant(body).expect(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
      const unknown = await grant({ userId: '00000000-0000-4000-8000-000000000000' }).expect(404);
      expect(unknown.body.error.code).toBe('USER_NOT_FOUND');
      await grant({ email: 'nobody-here@example.test' }).expect(404);
    });

    it('grants (idempotently, by id or e-mail), revokes, and audit-logs each call', async () => {
      const user = await newUser();
      const first = await grant({ email: user.email.toUpperCase() }).expect(200);
      expect(first.body).toEqual({ success: true, data: { userId: user.id, isBetaLifetime: true } });
      const second = await grant({ userId: user.id }).expect(200);
      expect(second.body.data).toEqual({ userId: user.id, isBetaLifetime: true });
      expect(await subscription(user.token)).toMatchObject({ isBetaLifetime: true, isActive: true, status: 'none' });

      const revoked = await revoke({ userId: user.id }).expect(200);
      expect(revoked.body.data).toEqual({ userId: user.id, isBetaLifetime: false });
      expect(await subscription(user.token)).toMatchObject({ isBetaLifetime: false, isActive: false });
      const again = await revoke({ email: user.email }).expect(404);
      expect(again.body.error.code).toBe('BETA_ACCESS_NOT_FOUND');

      const audit = await t.dataSource.query(`SELECT action, changed FROM beta_access_audit WHERE user_id = $1 ORDER BY created_at, action`, [user.id]);
      expect(audit).toEqual([
        { action: 'grant', changed: true },
        { action: 'grant', changed: false },
        { action: 'revoke', changed: true },
      ]);
    });

    it('revoking beta leaves a paid subscription active', async () => {
      const user = await newUser();
      await subscribe(user.token);
      await grant({ userId: user.id }).expect(200);
      await revoke({ userId: user.id }).expect(200);
      expect(await subscription(user.token)).toMatchObject({ status: 'active', isActive: true, isBetaLifetime: false });
    });
  });

  describe('billing not configured', () => {
    it('answers 503 BILLING_UNAVAILABLE on every Stripe route and checkoutEnabled false on status', async () => {
      const user = await insertUser(unconfigured.dataSource);
      const token = await unconfigured.accessTokenFor(user.id);
      for (const path of ['checkout-session', 'portal-session', 'subscription/cancel', 'subscription/reactivate']) {
        const res = await unconfigured.http.post(`/api/v1/billing/${path}`).set('Authorization', `Bearer ${token}`).expect(503);
        expect(res.body).toEqual({ success: false, error: { code: 'BILLING_UNAVAILABLE', message: expect.any(String) } });
      }
      const status = await unconfigured.http.get('/api/v1/billing/subscription').set('Authorization', `Bearer ${token}`).expect(200);
      expect(status.body.data.checkoutEnabled).toBe(false);
      const { event } = { event: stripe.event('customer.subscription.updated', { id: 'sub_x', object: 'subscription' }) };
      const hook = await deliver(event, { app: unconfigured }).expect(503);
      expect(hook.body.error.code).toBe('BILLING_UNAVAILABLE');
      // The Stripe clean-up of deleted accounts is left to replicas with billing.
      await expect(unconfigured.app.get(BillingCleanupService).runDue()).resolves.toBe(0);
    });
  });

  describe('contract', () => {
    it('documents every billing and API-key route in OpenAPI with an operationId and its error codes', async () => {
      const doc = (await t.http.get('/api/v1/openapi.json').expect(200)).body;
      const operations: Array<[string, string, string, string[]]> = [
        ['get', '/api/v1/billing/subscription', 'getSubscription', ['401']],
        ['post', '/api/v1/billing/checkout-session', 'createCheckoutSession', ['401', '409', '502', '503']],
        ['post', '/api/v1/billing/portal-session', 'createPortalSession', ['404', '502', '503']],
        ['post', '/api/v1/billing/subscription/cancel', 'cancelSubscription', ['404', '502', '503']],
        ['post', '/api/v1/billing/subscription/reactivate', 'reactivateSubscription', ['404', '409', '502', '503']],
        ['post', '/api/v1/billing/beta/grant', 'grantBetaAccess', ['400', '401', '404']],
        ['post', '/api/v1/billing/beta/revoke', 'revokeBetaAccess', ['400', '401', '404']],
        ['post', '/api/v1/billing/webhook', 'receiveStripeWebhook', ['400', '503']],
        ['get', '/api/v1/auth/api-keys', 'listApiKeys', ['401', '402']],
        ['post', '/api/v1/auth/api-keys', 'createApiKey', ['400', '401', '402']],
        ['delete', '/api/v1/auth/api-keys/{keyId}', 'revokeApiKey', ['401', '402', '404']],
        ['post', '/api/v1/auth/api-keys/{keyId}/rotate', 'rotateApiKey', ['401', '402', '404', '409']],
        ['get', '/api/v1/auth/api-keys/current', 'getCurrentApiKey', ['401', '402']],
      ];
      for (const [method, path, operationId, errors] of operations) {
        const operation = doc.paths[path]?.[method];
        expect({ path, operationId: operation?.operationId }).toEqual({ path, operationId });
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(errors));
      }
      expect(doc.components.schemas.CreateApiKeyDto.properties.name).toMatchObject({ minLength: 1, maxLength: 80 });
      expect(doc.components.schemas.SubscriptionDto.required).toEqual(
        expect.arrayContaining(['provider', 'planCode', 'status', 'isActive', 'isBetaLifetime', 'cancelAtPeriodEnd']),
      );
    });
  });

  describe('subscriptions of no known account', () => {
    const cancels = (subscriptionId: string) => stripe.requestsTo('DELETE', new RegExp(`^/v1/subscriptions/${subscriptionId}$`));

    it('a webhook for a live subscription our checkout made for an account that is gone cancels it at Stripe, once', async () => {
      // An account deleted while its checkout was still open, paid afterwards: the subscription names the gone account.
      const live = stripe.createSubscription('cus_test_gone', { status: 'active', metadata: { userId: randomUUID() } });
      const created = stripe.event('customer.subscription.created', live);
      await deliver(created).expect(200, { success: true, data: { received: true, duplicate: false } });
      expect(cancels(live.id)).toHaveLength(1);
      expect(stripe.subscriptions.get(live.id)!.status).toBe('canceled');
      // Idempotent: the same event again, and a later event, call nothing more.
      await deliver(created).expect(200, { success: true, data: { received: true, duplicate: true } });
      await deliver(stripe.event('customer.subscription.updated', stripe.subscriptions.get(live.id)!)).expect(200);
      expect(cancels(live.id)).toHaveLength(1);
      const stored = await t.dataSource.query(`SELECT 1 FROM subscriptions WHERE provider_subscription_id = $1`, [live.id]);
      expect(stored).toEqual([]);
    });

    it('leaves alone a live subscription that names no account of ours (made elsewhere in the Stripe account)', async () => {
      const foreign = stripe.createSubscription('cus_test_foreign', { status: 'active' });
      await deliver(stripe.event('customer.subscription.created', foreign)).expect(200);
      expect(cancels(foreign.id)).toHaveLength(0);
      expect(stripe.subscriptions.get(foreign.id)!.status).toBe('active');
    });

    it('when Stripe fails the cancel, answers 5xx without recording the event, and the redelivery cancels', async () => {
      const live = stripe.createSubscription('cus_test_gone_2', { status: 'active', metadata: { userId: randomUUID() } });
      const event = stripe.event('customer.subscription.created', live);
      stripe.injectFault(/^DELETE \/v1\/subscriptions\//, { kind: 'error', status: 500 });
      const failed = await deliver(event);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(stripe.subscriptions.get(live.id)!.status).toBe('active');
      await deliver(event).expect(200, { success: true, data: { received: true, duplicate: false } });
      expect(stripe.subscriptions.get(live.id)!.status).toBe('canceled');
    });
  });
});
