/**
 * The realtime stream lives only as long as the credential it was opened with: every way a
 * credential stops working ends the open streams (on every replica), and an account holds at
 * most TODO_STREAMS_PER_ACCOUNT streams at once (over every replica).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { JwtService } from '@nestjs/jwt';
import { EventSource } from 'eventsource';
import { insertUser, SmtpTestServer, until, usingRealPostgres, type TestUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { TodoEventsService } from '../../apps/todo-api/src/todos/todo-events.service.js';
import { TodoStreamCredentialChecks } from '../../apps/todo-api/src/todos/todo-stream-credential-checks.service.js';
import { TODO_STREAMS_PER_ACCOUNT } from '../../apps/todo-api/src/todos/todo-stream-leases.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';

const ADMIN_KEY = 'admin-key-for-stream-tests-0123456789';
const WEBHOOK_SECRET = 'whsec_stream_tests';
/** Longer than any wait below, so an ending seen here came from the revocation notice, not from the periodic re-check. */
const NOTICE_WAIT_MS = 5000;

interface StreamEvent {
  type: string;
  id: string;
  data: any;
}

/** An SSE response read as it arrives: its events, and whether the server has ended it. */
interface OpenStream {
  events: StreamEvent[];
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

async function openStream(baseUrl: string, credential: { header?: Record<string, string>; query?: string }): Promise<OpenStream> {
  const controller = new AbortController();
  const url = `${baseUrl}/api/v1/todos/events${credential.query ? `?access_token=${encodeURIComponent(credential.query)}` : ''}`;
  const res = await fetch(url, { headers: credential.header ?? {}, signal: controller.signal });
  if (res.status !== 200) throw new Error(`stream refused: ${res.status} ${await res.text()}`);
  const events: StreamEvent[] = [];
  let done = false;
  const ended = (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const field = (name: string) => {
            const line = block.split('\n').find((candidate) => candidate.startsWith(`${name}:`));
            return line?.slice(name.length + 1).replace(/^ /, '');
          };
          const type = field('event');
          if (type) events.push({ type, id: field('id') ?? '', data: JSON.parse(field('data') ?? 'null') });
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
    }
  })();
  return { events, ended, isEnded: () => done, close: () => controller.abort() };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const sessionIdOf = (jwt: string): string => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sid;

/** For the reliability summary: streams whose credential stopped working, and how many of them the server ended. */
const figures = { revokedStreams: 0, revokedStreamsClosed: 0 };

describe('realtime stream: ends with its credential, capped per account', () => {
  const smtp = new SmtpTestServer();
  const stripe = new StripeTestServer();
  let t: TestApp & { database: { url: string } };
  let events: TodoEventsService;
  const opened: OpenStream[] = [];

  beforeAll(async () => {
    await smtp.start();
    await stripe.start();
    t = await startWithDatabase('todo-api', {
      SMTP_URL: smtp.url,
      ADMIN_API_KEY: ADMIN_KEY,
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: 'price_streams',
      STRIPE_API_BASE: stripe.url,
    });
    events = t.app.get(TodoEventsService);
  });
  afterEach(async () => {
    for (const stream of opened.splice(0)) stream.close();
    await until(() => events.subscriberCount() === 0, 5000, 'streams closed after the test');
  });
  afterAll(async () => {
    writeFigures('stream-revocation', { ...figures, revokedStreamsLeaked: figures.revokedStreams - figures.revokedStreamsClosed });
    await t?.close();
    await stripe.stop();
    await smtp.stop();
  });

  /** A user with beta access, the API key the stream uses, a second key that survives, and a JWT. */
  async function account(): Promise<TestUser & { streamKey: { id: string; key: string }; otherKey: string; jwt: string }> {
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    const streamKey = await insertApiKey(t.dataSource, user.id);
    const otherKey = (await insertApiKey(t.dataSource, user.id)).key;
    return { ...user, streamKey, otherKey, jwt: await t.accessTokenFor(user.id) };
  }

  /** Tries to open one more stream: a refusal's status, body and headers; an accepted stream is kept (and closed after the test). */
  async function tryOpen(credential: Parameters<typeof openStream>[1], app: TestApp = t): Promise<{ status: number; body?: any; headers?: Headers }> {
    const url = `${app.baseUrl}/api/v1/todos/events${credential.query ? `?access_token=${encodeURIComponent(credential.query)}` : ''}`;
    const controller = new AbortController();
    const res = await fetch(url, { headers: credential.header ?? {}, signal: controller.signal });
    if (res.status === 200) {
      opened.push({ events: [], ended: Promise.resolve(), isEnded: () => false, close: () => controller.abort() });
      return { status: 200 };
    }
    return { status: res.status, body: await res.json(), headers: res.headers };
  }

  const leasesOf = async (userId: string): Promise<number> =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM todo_stream_leases WHERE user_id = $1`, [userId]))[0].n;

  async function open(credential: Parameters<typeof openStream>[1], app: TestApp = t): Promise<OpenStream> {
    const stream = await openStream(app.baseUrl, credential);
    opened.push(stream);
    return stream;
  }

  async function createTodo(key: string, text: string, app: TestApp = t): Promise<number> {
    const res = await app.http.post('/api/v1/todos').set('X-API-Key', key).send({ text, priority: 2, category: 'streams' }).expect(201);
    return res.body.data.todo.id;
  }

  /** The stream is live: a change reaches it. */
  async function expectLive(stream: OpenStream, key: string, app: TestApp = t): Promise<void> {
    const id = await createTodo(key, 'while the credential works', app);
    await until(() => stream.events.some((event) => event.data?.id === id), 3000, 'event on the live stream');
  }

  /** The stream ends, and a change made afterwards (when the account can still make one) reaches it no more. */
  async function expectEndedForGood(stream: OpenStream, survivingKey?: string): Promise<void> {
    figures.revokedStreams++;
    await until(stream.isEnded, NOTICE_WAIT_MS, 'stream ended by the server');
    figures.revokedStreamsClosed++;
    const seen = stream.events.length;
    if (survivingKey) await createTodo(survivingKey, 'after the credential stopped working');
    await until(() => events.subscriberCount() === 0, 2000, 'server forgot the stream');
    expect(stream.events).toHaveLength(seen);
    expect(stream.events.map((event) => event.type)).toEqual(['todo.created']);
  }

  describe('every way a credential stops working ends the streams opened with it', () => {
    it('API key revoked', async () => {
      const user = await account();
      const stream = await open({ header: { 'X-API-Key': user.streamKey.key } });
      await expectLive(stream, user.otherKey);
      await t.http.delete(`/api/v1/auth/api-keys/${user.streamKey.id}`).set(bearer(user.jwt)).expect(200);
      await expectEndedForGood(stream, user.otherKey);
    });

    it('API key rotated (same record, new secret): the stream of the old secret ends, a stream of the new one opens', async () => {
      const user = await account();
      const stream = await open({ query: user.streamKey.key });
      await expectLive(stream, user.otherKey);
      const rotated = await t.http.post(`/api/v1/auth/api-keys/${user.streamKey.id}/rotate`).set(bearer(user.jwt)).send({}).expect(200);
      await expectEndedForGood(stream, user.otherKey);
      const renewed = await open({ header: bearer(rotated.body.data.apiKey) });
      await expectLive(renewed, user.otherKey);
    });

    it('password changed (every session signed out)', async () => {
      const user = await account();
      const stream = await open({ query: user.jwt });
      await expectLive(stream, user.otherKey);
      const newPassword = `${user.password}-changed`;
      await t.http
        .post('/api/v1/auth/change-password')
        .set(bearer(await t.accessTokenFor(user.id)))
        .send({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword })
        .expect(200);
      await expectEndedForGood(stream, user.otherKey);
    });

    it('logout with allSessions from another session', async () => {
      const user = await account();
      const stream = await open({ header: bearer(user.jwt) });
      await expectLive(stream, user.otherKey);
      await t.http.post('/api/v1/auth/logout').set(bearer(await t.accessTokenFor(user.id))).send({ allSessions: true }).expect(200);
      await expectEndedForGood(stream, user.otherKey);
    });

    it("logout of the stream's own session, and a session revoked from the session list", async () => {
      const user = await account();
      const byLogout = await open({ query: user.jwt });
      const otherJwt = await t.accessTokenFor(user.id);
      const byRevoke = await open({ query: otherJwt });
      const bystanderJwt = await t.accessTokenFor(user.id);
      const bystander = await open({ query: bystanderJwt });
      await expectLive(byLogout, user.otherKey);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.jwt)).send({}).expect(200);
      await until(byLogout.isEnded, NOTICE_WAIT_MS, 'stream of the signed-out session ended');
      await t.http.delete(`/api/v1/auth/sessions/${sessionIdOf(otherJwt)}`).set(bearer(bystanderJwt)).expect(200);
      await until(byRevoke.isEnded, NOTICE_WAIT_MS, 'stream of the revoked session ended');
      // The re-check is per stream: the stream of a session still live goes on.
      const id = await createTodo(user.otherKey, 'only the live session sees this');
      await until(() => bystander.events.some((event) => event.data?.id === id), 3000, 'event on the surviving stream');
      expect(bystander.isEnded()).toBe(false);
      expect([byLogout, byRevoke].map((stream) => stream.events.some((event) => event.data?.id === id))).toEqual([false, false]);
    });

    it('password reset by e-mailed code', async () => {
      const user = await account();
      const stream = await open({ header: bearer(user.jwt) });
      await expectLive(stream, user.otherKey);
      const before = smtp.to(user.email, ACCOUNT_MAILS.resetCode).length;
      await t.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
      const code = /reset code is (\d{6})/.exec((await smtp.waitFor(user.email, before, ACCOUNT_MAILS.resetCode)).raw)![1];
      const { token } = (await t.http.post('/api/v1/auth/verify-reset-code').send({ email: user.email, code }).expect(200)).body.data;
      const password = `${user.password}-reset`;
      await t.http.post('/api/v1/auth/reset-password').send({ token, password, passwordConfirm: password }).expect(200);
      await expectEndedForGood(stream, user.otherKey);
    });

    it('lifetime beta access revoked by an administrator (API key and JWT streams); reconnecting is 402', async () => {
      const user = await account();
      const keyStream = await open({ header: { 'X-API-Key': user.streamKey.key } });
      const jwtStream = await open({ query: user.jwt });
      await expectLive(keyStream, user.otherKey);
      await t.http.post('/api/v1/billing/beta/revoke').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.id }).expect(200);
      await expectEndedForGood(keyStream);
      await until(jwtStream.isEnded, NOTICE_WAIT_MS, 'JWT stream ended');
      expect((await t.http.get('/api/v1/todos/events').set('X-API-Key', user.streamKey.key).expect(402)).body.error.code).toBe('SUBSCRIPTION_REQUIRED');
    });

    it('paid subscription lapsed (Stripe webhook)', async () => {
      const user = await insertUser(t.dataSource);
      const jwt = await t.accessTokenFor(user.id);
      const checkout = await t.http.post('/api/v1/billing/checkout-session').set(bearer(jwt)).expect(200);
      const { session, subscription } = stripe.completeCheckout(checkout.body.data.sessionId);
      const deliver = (event: Record<string, any>) => {
        const { payload, signature } = stripe.signedDelivery(event, WEBHOOK_SECRET);
        return t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(payload);
      };
      await deliver(stripe.event('checkout.session.completed', session)).expect(200);
      const { key } = await insertApiKey(t.dataSource, user.id);
      const stream = await open({ header: { 'X-API-Key': key } });
      await expectLive(stream, key);
      await deliver(stripe.event('customer.subscription.deleted', stripe.updateSubscription(subscription.id, { status: 'canceled' }))).expect(200);
      await expectEndedForGood(stream);
    });

    it('account deleted', async () => {
      const user = await account();
      const stream = await open({ header: { 'X-API-Key': user.streamKey.key } });
      await expectLive(stream, user.otherKey);
      await t.http.delete('/api/v1/account').set(bearer(user.jwt)).send({ password: user.password, confirmText: 'DELETE' }).expect(200);
      await expectEndedForGood(stream);
    });

    it("the access token's own expiry (a token with a short lifetime)", async () => {
      const user = await account();
      const shortLived = t.app.get(JwtService).sign({ sub: user.id, sid: sessionIdOf(user.jwt), typ: 'access' }, { expiresIn: 3 });
      const stream = await open({ query: shortLived });
      await expectLive(stream, user.otherKey);
      // Nothing is revoked: the token simply runs out (its session stays live).
      await expectEndedForGood(stream, user.otherKey);
      await t.http.get('/api/v1/auth/verify').set(bearer(user.jwt)).expect(200);
    });

    it("the API key's own expiry", async () => {
      const user = await account();
      const expiring = await insertApiKey(t.dataSource, user.id, { expiresAt: new Date(Date.now() + 3000) });
      const stream = await open({ header: { 'X-API-Key': expiring.key } });
      await expectLive(stream, user.otherKey);
      await expectEndedForGood(stream, user.otherKey);
    });

    it('a revocation whose notice never came is still caught by the periodic re-check', async () => {
      const user = await account();
      const previous = t.app.get(TodoStreamCredentialChecks).intervalMs;
      t.app.get(TodoStreamCredentialChecks).intervalMs = 200;
      try {
        const stream = await open({ header: { 'X-API-Key': user.streamKey.key } });
        await expectLive(stream, user.otherKey);
        // Straight in the database: no service announces it.
        await t.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND id = $2`, [user.id, user.streamKey.id]);
        await expectEndedForGood(stream, user.otherKey);
      } finally {
        t.app.get(TodoStreamCredentialChecks).intervalMs = previous;
      }
    });

    it('a stream whose credential still works is left alone by the re-checks', async () => {
      const user = await account();
      const previous = t.app.get(TodoStreamCredentialChecks).intervalMs;
      t.app.get(TodoStreamCredentialChecks).intervalMs = 100;
      try {
        const stream = await open({ header: { 'X-API-Key': user.streamKey.key } });
        // Another key of the same account revoked: a notice for this user, a re-check, no verdict against this key.
        await t.http.delete(`/api/v1/auth/api-keys/${(await insertApiKey(t.dataSource, user.id)).id}`).set(bearer(user.jwt)).expect(200);
        await sleep(500); // several periodic re-checks
        await expectLive(stream, user.otherKey);
        expect(stream.isEnded()).toBe(false);
      } finally {
        t.app.get(TodoStreamCredentialChecks).intervalMs = previous;
      }
    });

    it('EventSource: after the server ends the stream, its reconnect is refused (401) and it stays closed', async () => {
      const user = await account();
      const source = new EventSource(`${t.baseUrl}/api/v1/todos/events?access_token=${user.streamKey.key}`);
      const errors: Array<number | undefined> = [];
      try {
        await new Promise<void>((resolve, reject) => {
          source.onopen = () => resolve();
          source.onerror = () => reject(new Error('stream failed'));
        });
        source.onerror = (error) => errors.push((error as { code?: number }).code);
        await t.http.delete(`/api/v1/auth/api-keys/${user.streamKey.id}`).set(bearer(user.jwt)).expect(200);
        await until(() => source.readyState === EventSource.CLOSED, NOTICE_WAIT_MS + 3000, 'EventSource closed');
        expect(errors.at(-1)).toBe(401);
      } finally {
        source.close();
      }
    });
  });

  describe(`at most ${TODO_STREAMS_PER_ACCOUNT} streams per account`, () => {

    it('one more is 429 RATE_LIMITED in the envelope with Retry-After; closing one, or one ending with its credential, frees a slot', async () => {
      const user = await account();
      const credentials = [{ header: { 'X-API-Key': user.streamKey.key } }, { query: user.jwt }, { header: bearer(user.otherKey) }];
      const streams: OpenStream[] = [];
      for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) streams.push(await open(credentials[i % credentials.length]));

      const refused = await tryOpen({ header: { 'X-API-Key': user.otherKey } });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.stringContaining(String(TODO_STREAMS_PER_ACCOUNT)) } });
      expect(Number(refused.headers!.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers!.get('ratelimit-limit')).toBe(String(TODO_STREAMS_PER_ACCOUNT));
      expect(refused.headers!.get('ratelimit-remaining')).toBe('0');
      expect(await tryOpen({ query: user.jwt })).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMITED' } } });
      expect(await leasesOf(user.id)).toBe(TODO_STREAMS_PER_ACCOUNT);

      // Another account is not affected.
      const other = await account();
      await open({ header: { 'X-API-Key': other.streamKey.key } });

      streams[0].close();
      await until(async () => (await leasesOf(user.id)) === TODO_STREAMS_PER_ACCOUNT - 1, 3000, 'lease released on close');
      await open({ header: { 'X-API-Key': user.otherKey } });
      expect((await tryOpen({ header: { 'X-API-Key': user.otherKey } })).status).toBe(429);

      // The three JWT streams end with their session: their slots come back.
      await t.http.post('/api/v1/auth/logout').set(bearer(user.jwt)).send({}).expect(200);
      await until(async () => (await leasesOf(user.id)) === TODO_STREAMS_PER_ACCOUNT - 3, NOTICE_WAIT_MS, 'leases of ended streams released');
      await open({ header: { 'X-API-Key': user.otherKey } });
    });
  });

  (usingRealPostgres() ? describe : describe.skip)('two replicas on one database (real PostgreSQL: LISTEN/NOTIFY)', () => {
    let replicaB: TestApp;
    beforeAll(async () => {
      replicaB = await startApp('todo-api', t.database.url);
    });
    afterAll(async () => {
      await replicaB?.close();
    });
    afterEach(async () => {
      // Inner hooks run before the outer one: close this test's streams here.
      for (const stream of opened.splice(0)) stream.close();
      await until(() => replicaB.app.get(TodoEventsService).subscriberCount() === 0, 5000, 'replica B streams closed');
    });

    it('an API key revoked on replica A ends its stream on replica B; a logout on A ends a JWT stream on B', async () => {
      const user = await account();
      const keyStream = await open({ header: { 'X-API-Key': user.streamKey.key } }, replicaB);
      const jwtStream = await open({ query: user.jwt }, replicaB);
      await expectLive(keyStream, user.otherKey, t);
      await t.http.delete(`/api/v1/auth/api-keys/${user.streamKey.id}`).set(bearer(user.jwt)).expect(200);
      await until(keyStream.isEnded, NOTICE_WAIT_MS, 'key stream on B ended');
      expect(jwtStream.isEnded()).toBe(false);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.jwt)).send({}).expect(200);
      await until(jwtStream.isEnded, NOTICE_WAIT_MS, 'JWT stream on B ended');
      const seen = keyStream.events.length + jwtStream.events.length;
      await createTodo(user.otherKey, 'after both ended', t);
      await until(() => replicaB.app.get(TodoEventsService).subscriberCount() === 0, 2000, 'replica B forgot the streams');
      expect(keyStream.events.length + jwtStream.events.length).toBe(seen);
    });

    it('the cap holds over both replicas', async () => {
      const user = await account();
      for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) await open({ header: { 'X-API-Key': user.streamKey.key } }, i % 2 === 0 ? t : replicaB);
      for (const app of [t, replicaB]) expect(await tryOpen({ header: { 'X-API-Key': user.otherKey } }, app)).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMITED' } } });
      // Concurrent opens on both replicas cannot slip past it either.
      opened.splice(0).forEach((stream) => stream.close());
      await until(async () => (await leasesOf(user.id)) === 0, 5000, 'leases released');
      const attempts = await Promise.all(
        Array.from({ length: TODO_STREAMS_PER_ACCOUNT + 6 }, (_, i) => openStream((i % 2 === 0 ? t : replicaB).baseUrl, { header: { 'X-API-Key': user.otherKey } }).then(
          (stream) => (opened.push(stream), 200),
          (error: Error) => Number(/stream refused: (\d+)/.exec(error.message)?.[1]),
        )),
      );
      expect(attempts.filter((status) => status === 200)).toHaveLength(TODO_STREAMS_PER_ACCOUNT);
      expect(attempts.filter((status) => status === 429)).toHaveLength(6);
    });
  });
});
