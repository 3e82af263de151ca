/**
 * Stripe faults as a matrix: every todo-api route that calls Stripe × every kind of Stripe
 * failure (500, 429, no answer at all). Each cell: a clear 502/503 in the envelope within a few
 * seconds, the account's billing row exactly as before (nothing half-written), Stripe's side
 * unchanged, and the same call succeeding once Stripe is healthy again. test/billing covers
 * single cells of this in more depth (customer reuse after a timeout, webhook re-reads).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { insertUser } from '#libs/testing';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { StripeTestServer, type StripeFault } from '../support/stripe-test-server.js';

const WEBHOOK_SECRET = `whsec_test_${randomBytes(16).toString('hex')}`;
const STRIPE_TIMEOUT_MS = 1000;

const FAULTS: Array<[string, StripeFault]> = [
  ['500', { kind: 'error', status: 500 }],
  ['429', { kind: 'error', status: 429, type: 'rate_limit_error', message: 'Too many requests' }],
  ['no answer', { kind: 'hang' }],
];

type Precondition = 'none' | 'customer' | 'active' | 'cancelling';
const ROUTES: Array<{ path: string; needs: Precondition }> = [
  { path: '/api/v1/billing/checkout-session', needs: 'none' },
  { path: '/api/v1/billing/portal-session', needs: 'customer' },
  { path: '/api/v1/billing/subscription/cancel', needs: 'active' },
  { path: '/api/v1/billing/subscription/reactivate', needs: 'cancelling' },
];

describe('Stripe failing on every route that calls it', () => {
  const stripe = new StripeTestServer();
  let t: TestApp;
  let cells = 0;
  let halfWritten = 0;
  let slowest = 0;

  beforeAll(async () => {
    await stripe.start();
    t = await startWithDatabase('todo-api', {
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: 'price_test_api_monthly',
      STRIPE_API_BASE: stripe.url,
      STRIPE_TIMEOUT_MS: String(STRIPE_TIMEOUT_MS),
    });
  }, 60_000);
  afterEach(() => stripe.clearFaults());
  afterAll(async () => {
    writeFigures('stripe-faults', { cells, routes: ROUTES.length, faultKinds: FAULTS.length, halfWrittenStateFailures: halfWritten, slowestMs: slowest });
    await t?.close();
    await stripe.stop();
  }, 30_000);

  const post = (path: string, token: string) => t.http.post(path).set('Authorization', `Bearer ${token}`);

  /** A user in the state the route needs, reached through the API and signed webhooks. */
  async function userIn(state: Precondition): Promise<{ id: string; token: string; subscriptionId?: string }> {
    const user = await insertUser(t.dataSource);
    const token = await t.accessTokenFor(user.id);
    if (state === 'none') return { id: user.id, token };
    const checkout = await post('/api/v1/billing/checkout-session', token).expect(200);
    if (state === 'customer') return { id: user.id, token };
    const { session, subscription } = stripe.completeCheckout(checkout.body.data.sessionId);
    const { payload, signature } = stripe.signedDelivery(stripe.event('checkout.session.completed', session), WEBHOOK_SECRET);
    await t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(payload).expect(200);
    if (state === 'cancelling') await post('/api/v1/billing/subscription/cancel', token).expect(200);
    return { id: user.id, token, subscriptionId: subscription.id };
  }

  const billingRow = async (userId: string) => t.dataSource.query(`SELECT * FROM subscriptions WHERE user_id = $1`, [userId]);

  for (const route of ROUTES) {
    for (const [faultName, fault] of FAULTS) {
      it(`POST ${route.path} with Stripe answering ${faultName}: 502/503 fast, nothing changed, the retry works`, async () => {
        const user = await userIn(route.needs);
        const before = await billingRow(user.id);
        const stripeBefore = user.subscriptionId ? structuredClone(stripe.subscriptions.get(user.subscriptionId)) : undefined;

        stripe.injectFault(/./, fault);
        const started = Date.now();
        const res = await post(route.path, user.token);
        const elapsed = Date.now() - started;
        slowest = Math.max(slowest, elapsed);
        cells++;
        expect([502, 503]).toContain(res.status);
        expect(res.body).toEqual({ success: false, error: { code: expect.any(String), message: expect.any(String) } });
        expect(['PAYMENT_PROVIDER_ERROR', 'SERVICE_UNAVAILABLE']).toContain(res.body.error.code);
        expect(elapsed).toBeLessThan(STRIPE_TIMEOUT_MS + 4000);

        const after = await billingRow(user.id);
        const stripeAfter = user.subscriptionId ? stripe.subscriptions.get(user.subscriptionId) : undefined;
        if (JSON.stringify(after) !== JSON.stringify(before) || JSON.stringify(stripeAfter) !== JSON.stringify(stripeBefore)) halfWritten++;
        expect(after).toEqual(before);
        expect(stripeAfter).toEqual(stripeBefore);

        stripe.clearFaults();
        await post(route.path, user.token).expect(200);
      });
    }
  }
});
