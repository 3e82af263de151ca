/**
 * The security activity log (issue 29): every event it reports is produced through the real routes, the owner
 * reads it newest first and cursor-paged, nobody else sees it, the export carries it, the account's deletion
 * removes it, and the sweep bounds it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SmtpTestServer, until } from '#libs/testing';
import { SecurityActivitySweeper } from '../../libs/identity/src/security-activity/security-activity.sweeper.js';
import { bearer, expectError, logIn, signUp, strongPassword, uniqueEmail, type SignedUp } from '../auth/helpers.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const DEVICE = 'ActivityTest/1.0 (X11; Linux x86_64)';

interface Entry {
  id: string;
  type: string;
  createdAt: string;
  ipAddress: string | null;
  userAgent: string | null;
  device?: string;
  details: Record<string, unknown>;
}

describe('security activity log', () => {
  const smtp = new SmtpTestServer();
  const stripe = new StripeTestServer();
  let t: TestApp & { database: { url: string } };
  let stripeEnv: Record<string, string>;

  beforeAll(async () => {
    await smtp.start();
    await stripe.start();
    stripeEnv = stripe.appEnv('activity');
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, ADMIN_API_KEY: ADMIN_KEY, PUBLIC_BASE_URL: 'https://app.example.test', ...stripeEnv });
  });
  afterAll(async () => {
    await t?.close();
    await stripe.stop();
    await smtp.stop();
  });
  beforeEach(() => t.rateLimits.clear());

  /** Every entry of the account, page by page (newest first). */
  async function activityOf(token: string, limit = 100): Promise<Entry[]> {
    const entries: Entry[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: any } = await t.http.get('/api/v1/account/activity').set(bearer(token)).query({ limit, ...(cursor ? { cursor } : {}) }).expect(200);
      entries.push(...res.body.data.activity);
      cursor = res.body.data.nextCursor;
    } while (cursor);
    return entries;
  }

  async function signIn(user: { email: string; password: string }): Promise<string> {
    return (await logIn(t, user.email, user.password).expect(200)).body.data.token;
  }

  it('records a sign-in with its device and address', async () => {
    const user = await signUp(t);
    const res = await logIn(t, user.email, user.password, { 'User-Agent': DEVICE }).expect(200);
    const [entry] = await activityOf(res.body.data.token);
    expect(entry).toEqual({
      id: expect.any(String),
      type: 'sign_in',
      createdAt: expect.any(String),
      ipAddress: expect.stringContaining('127.0.0.1'),
      userAgent: DEVICE,
      // Named for people from the User-Agent (an optional field beside it).
      device: 'ActivityTest 1 on Linux',
      details: { sessionId: expect.any(String) },
    });
  });

  it('records a failed sign-in of a known account, answered exactly like an unknown e-mail', async () => {
    const user = await signUp(t);
    const known = await logIn(t, user.email, 'wrong-password-1', { 'User-Agent': DEVICE });
    const unknown = await logIn(t, uniqueEmail('nobody'), 'wrong-password-1', { 'User-Agent': DEVICE });
    expectError(known, 401, 'INVALID_CREDENTIALS');
    expect(known.body).toEqual(unknown.body);
    expect(Object.keys(known.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    await until(async () => (await activityOf(user.token)).some((entry) => entry.type === 'sign_in_failed'), 5000, 'the failed sign-in entry');
    const failed = (await activityOf(user.token)).find((entry) => entry.type === 'sign_in_failed')!;
    expect(failed).toMatchObject({ userAgent: DEVICE, ipAddress: expect.stringContaining('127.0.0.1'), details: {} });
  });

  it('records a password change', async () => {
    const user = await signUp(t);
    const password = strongPassword();
    await t.http.post('/api/v1/auth/change-password').set(bearer(user.token)).send({ currentPassword: user.password, newPassword: password, newPasswordConfirm: password }).expect(200);
    const entries = await activityOf(await signIn({ email: user.email, password }));
    expect(entries.map((entry) => entry.type)).toEqual(['sign_in', 'password_changed']);
    expect(entries[1].details).toEqual({ disconnectedApps: 0 });
  });

  it('records a password reset with the address that reset it', async () => {
    const user = await signUp(t);
    const before = smtp.to(user.email, ACCOUNT_MAILS.resetCode).length;
    await t.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
    const code = /reset code is (\d{6})/.exec((await smtp.waitFor(user.email, before, ACCOUNT_MAILS.resetCode)).raw)![1];
    const token = (await t.http.post('/api/v1/auth/verify-reset-code').send({ email: user.email, code }).expect(200)).body.data.token;
    const password = strongPassword();
    await t.http.post('/api/v1/auth/reset-password').set('User-Agent', DEVICE).send({ token, password, passwordConfirm: password }).expect(200);
    const entries = await activityOf(await signIn({ email: user.email, password }));
    expect(entries[1]).toMatchObject({ type: 'password_reset', userAgent: DEVICE, ipAddress: expect.stringContaining('127.0.0.1') });
  });

  it('records session revocations: one session, and every session at sign-out', async () => {
    const user = await signUp(t);
    const other = await logIn(t, user.email, user.password).expect(200);
    const otherSessionId = (await activityOf(user.token))[0].details.sessionId as string;
    await t.http.delete(`/api/v1/auth/sessions/${otherSessionId}`).set(bearer(user.token)).expect(200);
    expect((await activityOf(user.token))[0]).toMatchObject({ type: 'session_revoked', details: { sessionId: otherSessionId } });
    expect(other.body.data.token).toEqual(expect.any(String));
    await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).send({ allSessions: true }).expect(200);
    const entries = await activityOf(await signIn(user));
    expect(entries[1]).toMatchObject({ type: 'session_revoked', details: { allSessions: true, count: 1 } });
  });

  it('records beta access granted and revoked, and API keys created, rotated and revoked', async () => {
    const user = await signUp(t);
    await t.http.post('/api/v1/billing/beta/grant').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.userId }).expect(200);
    const created = await t.http.post('/api/v1/auth/api-keys').set(bearer(user.token)).send({ name: 'ci key' }).expect(201);
    const keyId = created.body.data.key.id;
    await t.http.post(`/api/v1/auth/api-keys/${keyId}/rotate`).set(bearer(user.token)).send({}).expect(200);
    await t.http.delete(`/api/v1/auth/api-keys/${keyId}`).set(bearer(user.token)).expect(200);
    await t.http.post('/api/v1/billing/beta/revoke').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.userId }).expect(200);
    const entries = await activityOf(user.token);
    expect(entries.map((entry) => [entry.type, entry.details])).toEqual([
      ['beta_revoked', {}],
      ['api_key_revoked', { keyId }],
      ['api_key_rotated', { keyId, name: 'ci key' }],
      ['api_key_created', { keyId, name: 'ci key' }],
      ['beta_granted', {}],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.body.data.apiKey);
  });

  it('records a subscription change from the payment webhook', async () => {
    const user = await signUp(t);
    const sessionId = (await t.http.post('/api/v1/billing/checkout-session').set(bearer(user.token)).expect(200)).body.data.sessionId;
    const { session } = stripe.completeCheckout(sessionId);
    const { payload, signature } = stripe.signedDelivery(stripe.event('checkout.session.completed', session), stripeEnv.STRIPE_WEBHOOK_SECRET);
    await t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(payload).expect(200);
    expect((await activityOf(user.token))[0]).toMatchObject({
      type: 'subscription_changed',
      details: { status: 'active', cancelAtPeriodEnd: false, event: 'checkout.session.completed' },
    });
  });

  it('pages newest first with signed cursors, and refuses a forged one', async () => {
    const user = await signUp(t);
    for (let i = 0; i < 5; i++) await logIn(t, user.email, user.password).expect(200);
    const all = await activityOf(user.token, 100);
    expect(all).toHaveLength(5);
    const paged = await activityOf(user.token, 2);
    expect(paged.map((entry) => entry.id)).toEqual(all.map((entry) => entry.id));
    const times = all.map((entry) => Date.parse(entry.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const first = await t.http.get('/api/v1/account/activity').set(bearer(user.token)).query({ limit: 2 }).expect(200);
    const [version, body] = (first.body.data.nextCursor as string).split('.');
    expectError(await t.http.get('/api/v1/account/activity').set(bearer(user.token)).query({ cursor: `${version}.${body}.forged` }), 400, 'VALIDATION_ERROR');
    expectError(await t.http.get('/api/v1/account/activity').set(bearer(user.token)).query({ limit: 101 }), 400, 'VALIDATION_ERROR');
    await t.http.get('/api/v1/account/activity').expect(401);
  });

  it('shows an account only its own entries, even through another account’s cursor', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    for (let i = 0; i < 3; i++) await logIn(t, alice.email, alice.password).expect(200);
    const aliceIds = new Set((await activityOf(alice.token)).map((entry) => entry.id));
    expect(await activityOf(bob.token)).toEqual([]);
    const cursor = (await t.http.get('/api/v1/account/activity').set(bearer(alice.token)).query({ limit: 1 }).expect(200)).body.data.nextCursor;
    const res = await t.http.get('/api/v1/account/activity').set(bearer(bob.token)).query({ cursor }).expect(200);
    expect(res.body.data.activity.filter((entry: Entry) => aliceIds.has(entry.id))).toEqual([]);
  });

  it('is part of the account export and goes with the account', async () => {
    const user: SignedUp = await signUp(t);
    await logIn(t, user.email, user.password, { 'User-Agent': DEVICE }).expect(200);
    const exported = (await t.http.get('/api/v1/account/export').set(bearer(user.token)).expect(200)).body.data;
    expect(exported.securityActivity).toEqual(await activityOf(user.token));
    expect(exported.securityActivity[0]).toMatchObject({ type: 'sign_in', userAgent: DEVICE });
    await t.http.delete('/api/v1/account').set(bearer(user.token)).send({ password: user.password, confirmText: 'DELETE' }).expect(200);
    expect(await t.dataSource.query(`SELECT 1 FROM security_activity WHERE user_id = $1`, [user.userId])).toEqual([]);
  });

  it('is bounded by the sweep: 90 days, and the newest 1000 entries per account', async () => {
    const old = await signUp(t);
    const busy = await signUp(t);
    await t.dataSource.query(
      `INSERT INTO security_activity (user_id, type, created_at) SELECT $1, 'sign_in_failed', now() - interval '91 days' - make_interval(secs => n) FROM generate_series(1, 3) n`,
      [old.userId],
    );
    await logIn(t, old.email, old.password).expect(200);
    await t.dataSource.query(
      `INSERT INTO security_activity (user_id, type, created_at) SELECT $1, 'sign_in_failed', now() - make_interval(secs => n) FROM generate_series(1, 1005) n`,
      [busy.userId],
    );
    const newest = (await t.dataSource.query(`SELECT id FROM security_activity WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1000`, [busy.userId])).map((row: { id: string }) => row.id);
    expect(await t.app.get(SecurityActivitySweeper).sweep()).toBeGreaterThanOrEqual(8);
    expect((await activityOf(old.token)).map((entry) => entry.type)).toEqual(['sign_in']);
    const kept = (await t.dataSource.query(`SELECT id FROM security_activity WHERE user_id = $1 ORDER BY created_at DESC, id DESC`, [busy.userId])).map((row: { id: string }) => row.id);
    expect(kept).toEqual(newest);
  });
});
