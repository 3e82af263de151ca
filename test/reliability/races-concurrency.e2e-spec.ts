/**
 * Races, each run across two replicas of the app on one database (requests alternate
 * between them), so row locks and unique constraints are what decides, not one process's
 * event loop:
 *  - 50 concurrent refreshes of one refresh token: one winner, no two live descendants;
 *  - 5 concurrent deliveries of one Stripe webhook event: one effect;
 *  - API-key rotation racing uses of the old key, and rotations racing each other;
 *  - concurrent answer saves (and submits) on one share page;
 *  - cursor pollers over HTTP while several writers add feedback concurrently.
 * The feature suites prove smaller versions of these (see test/auth, test/billing,
 * test/questions, test/feedback); the figures go to test-results/reliability/races.*.json.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inTransaction } from '#libs/database';
import { insertUser } from '#libs/testing';
import { FeedbackRepository, type NewFeedback } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';

const WEBHOOK_SECRET = `whsec_test_${randomBytes(16).toString('hex')}`;

interface Answer {
  status: number;
  body: any;
  headers: Headers;
  sentAt: number;
  doneAt: number;
}

async function send(baseUrl: string, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const sentAt = performance.now();
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers, sentAt, doneAt: performance.now() };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const statusCounts = (answers: Answer[]) =>
  answers.reduce<Record<string, number>>((counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {});

describe('races across two replicas', () => {
  const stripe = new StripeTestServer();
  let todoA: TestApp & { database: { url: string } };
  let todoB: TestApp;
  let feedbackC: TestApp;
  let feedbackD: TestApp;
  const figures: Record<string, unknown> = {};
  let racesRun = 0;
  let requests = 0;

  beforeAll(async () => {
    await stripe.start();
    const billing = {
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: 'price_test_api_monthly',
      STRIPE_API_BASE: stripe.url,
      STRIPE_TIMEOUT_MS: '2000',
    };
    todoA = await startWithDatabase('todo-api', billing);
    todoB = await startApp('todo-api', todoA.database.url, billing);
    // The widget counts per client IP: the writers name their own clients through X-Forwarded-For.
    feedbackC = await startApp('feedback-export', todoA.database.url, { TRUST_PROXY: 'loopback' });
    feedbackD = await startApp('feedback-export', todoA.database.url, { TRUST_PROXY: 'loopback' });
  }, 60_000);

  afterAll(async () => {
    writeFigures('races', { racesRun, requests, ...figures });
    await feedbackD?.close();
    await feedbackC?.close();
    await todoB?.close();
    await todoA?.close();
    await stripe.stop();
  }, 30_000);

  const todoReplica = (i: number) => (i % 2 === 0 ? todoA : todoB);
  const feedbackReplica = (i: number) => (i % 2 === 0 ? feedbackC : feedbackD);

  async function signUp(): Promise<{ userId: string; token: string; refreshToken: string }> {
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const res = await send(todoA.baseUrl, 'POST', '/api/v1/auth/signup', {
      body: { email: `race-${randomBytes(5).toString('hex')}@example.test`, password, passwordConfirm: password },
    });
    expect(res.status).toBe(201);
    return { userId: res.body.data.user.id, token: res.body.data.token, refreshToken: res.body.data.refreshToken };
  }

  async function sessionsOf(userId: string): Promise<Array<{ id: string; live: boolean }>> {
    return todoA.dataSource.query(`SELECT id, (revoked_at IS NULL AND expires_at > now()) AS live FROM sessions WHERE user_id = $1`, [userId]);
  }

  it('50 concurrent refreshes of one token: exactly one winner, the rest 401, no two live descendants', async () => {
    const user = await signUp();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(todoReplica(i).baseUrl, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: user.refreshToken } })),
    );
    requests += answers.length;
    racesRun++;
    const winners = answers.filter((a) => a.status === 200);
    const losers = answers.filter((a) => a.status !== 200);
    expect(winners).toHaveLength(1);
    for (const loser of losers) expect({ status: loser.status, code: loser.body?.error?.code }).toEqual({ status: 401, code: 'INVALID_TOKEN' });
    // One rotation happened; the stale presentations were reuse, so the session is revoked and nothing it issued lives on.
    const sessions = await sessionsOf(user.userId);
    expect(sessions).toHaveLength(1);
    const history = await todoA.dataSource.query(`SELECT count(*)::int AS n FROM refresh_token_history WHERE session_id = $1`, [sessions[0].id]);
    expect(history[0].n).toBe(1);
    expect(sessions.filter((s) => s.live)).toHaveLength(0);
    const winnerNext = await send(todoB.baseUrl, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: winners[0].body.data.refreshToken } });
    expect(winnerNext.status).toBe(401);
    const verify = await send(todoB.baseUrl, 'GET', '/api/v1/auth/verify', { headers: bearer(winners[0].body.data.token) });
    expect(verify.status).toBe(401);

    // The same race as a legitimate client's retries (one Idempotency-Key): one successor, handed to all 50, session alive.
    const retrying = await signUp();
    const retries = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(todoReplica(i).baseUrl, 'POST', '/api/v1/auth/refresh', { headers: { 'Idempotency-Key': 'retry-1' }, body: { refreshToken: retrying.refreshToken } }),
      ),
    );
    requests += retries.length;
    racesRun++;
    expect(statusCounts(retries)).toEqual({ 200: 50 });
    const successors = new Set(retries.map((a) => a.body.data.refreshToken));
    expect(successors.size).toBe(1);
    const retrySessions = await sessionsOf(retrying.userId);
    expect(retrySessions.filter((s) => s.live)).toHaveLength(1);
    const next = await send(todoA.baseUrl, 'POST', '/api/v1/auth/refresh', { body: { refreshToken: [...successors][0] } });
    expect(next.status).toBe(200);

    Object.assign(figures, {
      refreshConcurrent: answers.length,
      refreshWinners: winners.length,
      refreshLosers401: losers.filter((a) => a.status === 401).length,
      refreshLiveDescendants: sessions.filter((s) => s.live).length,
      refreshRetrySuccessors: successors.size,
      refresh5xx: [...answers, ...retries].filter((a) => a.status >= 500).length,
    });
  });

  it('5 concurrent deliveries of one webhook event have one effect (checkout completed, then a cancellation update)', async () => {
    const user = await signUp();
    const checkout = await send(todoA.baseUrl, 'POST', '/api/v1/billing/checkout-session', { headers: bearer(user.token) });
    expect(checkout.status).toBe(200);
    const { session, subscription } = stripe.completeCheckout(checkout.body.data.sessionId);
    const events = [
      stripe.event('checkout.session.completed', session),
      stripe.event('customer.subscription.updated', stripe.updateSubscription(subscription.id, { cancelAtPeriodEnd: true })),
    ];
    const rounds: Array<{ type: string; fresh: number; duplicates: number; rows: number }> = [];
    for (const event of events) {
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => {
          const { payload, signature } = stripe.signedDelivery(event, WEBHOOK_SECRET);
          return send(todoReplica(i).baseUrl, 'POST', '/api/v1/billing/webhook', { headers: { 'Stripe-Signature': signature }, body: payload });
        }),
      );
      requests += answers.length;
      racesRun++;
      expect(statusCounts(answers)).toEqual({ 200: 5 });
      const fresh = answers.filter((a) => a.body.data.duplicate === false).length;
      const rows = await todoA.dataSource.query(`SELECT count(*)::int AS n FROM billing_webhook_events WHERE event_id = $1`, [event.id]);
      rounds.push({ type: event.type, fresh, duplicates: 5 - fresh, rows: rows[0].n });
      expect(fresh).toBe(1);
      expect(rows[0].n).toBe(1);
    }
    const state = await todoA.dataSource.query(`SELECT status, provider_subscription_id, cancel_at_period_end FROM subscriptions WHERE user_id = $1`, [user.userId]);
    expect(state).toEqual([{ status: 'active', provider_subscription_id: subscription.id, cancel_at_period_end: true }]);
    Object.assign(figures, { webhookDeliveries: rounds.length * 5, webhookEvents: rounds.length, webhookEffects: rounds.reduce((sum, r) => sum + r.fresh, 0), webhookRounds: rounds });
  });

  it('rotation racing uses of the old key: before it 200, after it 401, never 5xx; concurrent rotations leave one live secret', async () => {
    const user = await signUp();
    await grantBetaAccess(todoA.dataSource, user.userId);
    const created = await send(todoA.baseUrl, 'POST', '/api/v1/auth/api-keys', { headers: bearer(user.token), body: { name: 'racing' } });
    expect(created.status).toBe(201);
    const oldKey: string = created.body.data.apiKey;
    const keyId: string = created.body.data.key.id;
    const use = (i: number, key: string) => send(todoReplica(i).baseUrl, 'GET', '/api/v1/todos', { headers: { 'X-API-Key': key } });

    // Settled uses before the rotation, then uses in flight on both replicas while the key is rotated on one of them.
    const settled = await Promise.all(Array.from({ length: 10 }, (_, i) => use(i, oldKey)));
    const early = Array.from({ length: 20 }, (_, i) => use(i, oldKey));
    await sleep(5);
    const rotation = send(todoA.baseUrl, 'POST', `/api/v1/auth/api-keys/${keyId}/rotate`, { headers: bearer(user.token) });
    const overlapping = Array.from({ length: 20 }, (_, i) => use(i + 1, oldKey));
    const rotated = await rotation;
    const late = Array.from({ length: 20 }, (_, i) => use(i, oldKey));
    const uses = [...settled, ...(await Promise.all([...early, ...overlapping, ...late]))];
    requests += uses.length + 1;
    racesRun++;
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.key.id).toBe(keyId);
    const newKey: string = rotated.body.data.apiKey;

    expect(uses.filter((a) => a.status !== 200 && a.status !== 401).map((a) => ({ status: a.status, body: a.body }))).toEqual([]);
    for (const refused of uses.filter((a) => a.status === 401)) expect(refused.body.error.code).toBe('INVALID_API_KEY');
    // Finished before the rotation was sent: must have worked. Sent after it answered: must be refused.
    const finishedBefore = uses.filter((a) => a.doneAt < rotated.sentAt);
    const sentAfter = uses.filter((a) => a.sentAt > rotated.doneAt);
    expect(finishedBefore.length).toBeGreaterThanOrEqual(10);
    expect(finishedBefore.every((a) => a.status === 200)).toBe(true);
    expect(sentAfter.length).toBeGreaterThanOrEqual(20);
    expect(sentAfter.every((a) => a.status === 401)).toBe(true);
    // Afterwards the old secret never works again, on either replica; the new one does.
    const afterwards = await Promise.all(Array.from({ length: 10 }, (_, i) => use(i, oldKey)));
    expect(statusCounts(afterwards)).toEqual({ 401: 10 });
    expect((await use(1, newKey)).status).toBe(200);

    // Five rotations at once: they serialise; exactly one of the five new secrets works.
    const rotations = await Promise.all(
      Array.from({ length: 5 }, (_, i) => send(todoReplica(i).baseUrl, 'POST', `/api/v1/auth/api-keys/${keyId}/rotate`, { headers: bearer(user.token) })),
    );
    requests += rotations.length + afterwards.length;
    racesRun++;
    expect(statusCounts(rotations)).toEqual({ 200: 5 });
    const secrets = [newKey, ...rotations.map((a) => a.body.data.apiKey as string)];
    expect(new Set(secrets).size).toBe(6);
    const working = [];
    for (const [i, secret] of secrets.entries()) if ((await use(i, secret)).status === 200) working.push(secret);
    expect(working).toHaveLength(1);
    const records = await todoA.dataSource.query(`SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1`, [user.userId]);
    expect(records[0].n).toBe(1);

    Object.assign(figures, {
      apiKeyUsesAroundRotation: uses.length,
      apiKeyUses200: uses.filter((a) => a.status === 200).length,
      apiKeyUses401: uses.filter((a) => a.status === 401).length,
      apiKeyStaleSecretFailures: sentAfter.filter((a) => a.status !== 401).length + afterwards.filter((a) => a.status !== 401).length,
      apiKeyRotation5xx: [...uses, ...rotations].filter((a) => a.status >= 500).length,
      apiKeyConcurrentRotations: rotations.length,
      apiKeyLiveSecretsAfterRotations: working.length,
    });
  });

  async function feedbackOwner(): Promise<{ userId: string; jwt: string; portfolioToken: string }> {
    const user = await insertUser(todoA.dataSource);
    const jwt = await feedbackC.accessTokenFor(user.id);
    const portfolio = await send(feedbackC.baseUrl, 'POST', '/api/v1/portfolio-token/rotate', { headers: bearer(jwt) });
    expect(portfolio.status).toBe(200);
    return { userId: user.id, jwt, portfolioToken: portfolio.body.data.token };
  }

  async function feedbackSite(jwt: string, name: string): Promise<{ id: string; siteKey: string; readToken: string; writeToken: string }> {
    const created = await send(feedbackC.baseUrl, 'POST', '/api/v1/sites', { headers: bearer(jwt), body: { name } });
    expect(created.status).toBe(201);
    const id = created.body.data.site.id;
    const read = await send(feedbackD.baseUrl, 'POST', `/api/v1/sites/${id}/tokens/read/rotate`, { headers: bearer(jwt) });
    const write = await send(feedbackC.baseUrl, 'POST', `/api/v1/sites/${id}/tokens/write/rotate`, { headers: bearer(jwt) });
    return { id, siteKey: created.body.data.siteKey, readToken: read.body.data.token, writeToken: write.body.data.token };
  }

  it('concurrent answer saves and submits on one share page: every save answers 200, one row per question, no foreign text', async () => {
    const owner = await feedbackOwner();
    const site = await feedbackSite(owner.jwt, 'Answers');
    const questions = Array.from({ length: 10 }, (_, i) => ({ n: i + 1, title: `Question ${i + 1}`, html: `<p>Q${i + 1}</p>` }));
    const sent = await send(feedbackC.baseUrl, 'POST', '/api/v1/export/questions', { headers: bearer(site.writeToken), body: { title: 'Racing answers', sendNow: true, questions } });
    expect(sent.status).toBe(201);
    const shareToken = String(sent.body.data.shareUrl).split('/q/')[1];
    const candidates = new Map<number, Set<string>>();
    const save = (i: number, n: number, text: string) => {
      if (!candidates.has(n)) candidates.set(n, new Set());
      candidates.get(n)!.add(text);
      return send(feedbackReplica(i).baseUrl, 'PUT', `/api/v1/share/${shareToken}/answers/${n}`, { body: { text } });
    };

    const firstWave = await Promise.all(Array.from({ length: 50 }, (_, i) => save(i, (i % 10) + 1, `q${(i % 10) + 1} draft ${Math.floor(i / 10)}`)));
    // Submits racing further edits (editing after submission is allowed).
    const secondWave = await Promise.all([
      ...Array.from({ length: 3 }, (_, i) => send(feedbackReplica(i).baseUrl, 'POST', `/api/v1/share/${shareToken}/submit`)),
      ...Array.from({ length: 10 }, (_, i) => save(i + 1, i + 1, `q${i + 1} final`)),
    ]);
    requests += firstWave.length + secondWave.length;
    racesRun += 2;
    expect(statusCounts([...firstWave, ...secondWave])).toEqual({ 200: 63 });
    for (const saved of [...firstWave, ...secondWave.slice(3)]) expect(saved.body.data.answer).toMatchObject({ n: expect.any(Number), text: expect.any(String), updatedAt: expect.any(String) });

    const detail = await send(feedbackD.baseUrl, 'GET', `/api/v1/export/questions/${sent.body.data.id}`, { headers: bearer(site.readToken) });
    expect(detail.status).toBe(200);
    const batch = detail.body.data.batch;
    expect(batch.status).toBe('answered');
    expect(batch.answerCount).toBe(10);
    for (const question of batch.questions) expect(candidates.get(question.n)!.has(question.answer.text)).toBe(true);
    const rows = await todoA.dataSource.query(`SELECT count(*)::int AS n FROM batch_answers WHERE batch_id = $1`, [sent.body.data.id]);
    expect(rows[0].n).toBe(10);
    Object.assign(figures, { answerSaves: 60, answerSubmits: 3, answerRows: rows[0].n, answer5xx: [...firstWave, ...secondWave].filter((a) => a.status >= 500).length });
  });

  it('pollers following nextCursor over HTTP see every concurrently written row exactly once', async () => {
    const owner = await feedbackOwner();
    const sites = [await feedbackSite(owner.jwt, 'Polled one'), await feedbackSite(owner.jwt, 'Polled two')];
    const WIDGET_WRITERS = 4;
    const ROWS_PER_WIDGET_WRITER = 40;
    const TX_BATCHES = 5;
    const TX_BATCH_SIZE = 20;
    const written: Array<Set<string>> = [new Set(), new Set()];
    let writing = true;
    let counterResets = 0;

    async function widgetWriter(w: number): Promise<void> {
      const siteIndex = w % 2;
      for (let seq = 0; seq < ROWS_PER_WIDGET_WRITER; seq++) {
        const res = await send(feedbackReplica(seq).baseUrl, 'POST', '/api/v1/widget/feedback', {
          headers: { 'X-Forwarded-For': `10.20.${w}.${seq}` },
          body: { siteKey: sites[siteIndex].siteKey, type: 'bug', message: `widget w${w} #${seq}`, rating: null, pageUrl: 'https://example.test/poll' },
        });
        expect(res.status).toBe(201);
        written[siteIndex].add(res.body.data.id);
      }
    }

    /** Overlapping transactions: each reads, yields, then inserts, so an earlier transaction often commits later. */
    async function transactionalWriter(): Promise<void> {
      const repository = feedbackC.app.get(FeedbackRepository);
      for (let batch = 0; batch < TX_BATCHES; batch++) {
        const rows: NewFeedback[] = Array.from({ length: TX_BATCH_SIZE }, (_, i) => ({
          siteId: sites[0].id,
          type: 'feedback',
          message: `tx ${batch}-${i}`,
          rating: null,
          pageUrl: 'https://example.test/tx',
        }));
        const ids = await inTransaction(feedbackC.dataSource, async (tx) => {
          await tx.query('SELECT count(*) FROM sites WHERE owner_id = $1', [owner.userId]);
          await sleep(15);
          return repository.insertMany(tx, owner.userId, rows);
        });
        for (const id of ids) written[0].add(id);
      }
    }

    async function poll(app: TestApp, path: string, token: string): Promise<{ seen: string[]; polls: number }> {
      const seen: string[] = [];
      let since: string | undefined;
      for (let polls = 1; polls < 2_000; polls++) {
        const finished = !writing;
        const query = `?limit=25${since ? `&since=${encodeURIComponent(since)}` : ''}`;
        const page = await send(app.baseUrl, 'GET', `${path}${query}`, { headers: bearer(token) });
        if (page.status === 429 || Number(page.headers.get('ratelimit-remaining') ?? 60) < 5) {
          // A token's 60/minute budget is far below what this test polls: forget the counters and go on.
          await todoA.rateLimits.clear('feedback-export-token:');
          counterResets++;
          if (page.status === 429) continue;
        }
        expect(page.status).toBe(200);
        seen.push(...page.body.data.feedback.map((f: { id: string }) => f.id));
        since = page.body.data.nextCursor;
        if (!page.body.data.hasMore) {
          if (finished) return { seen, polls };
          await sleep(20);
        }
      }
      throw new Error(`poller on ${path} did not finish`);
    }

    const pollers = Promise.all([
      poll(feedbackC, '/api/v1/export/feedback', sites[0].readToken),
      poll(feedbackD, '/api/v1/export/feedback', sites[1].writeToken),
      poll(feedbackD, '/api/v1/export/portfolio/feedback', owner.portfolioToken),
    ]);
    await Promise.all([...Array.from({ length: WIDGET_WRITERS }, (_, w) => widgetWriter(w)), transactionalWriter()]);
    writing = false;
    const [one, two, portfolio] = await pollers;
    racesRun++;

    const all = new Set([...written[0], ...written[1]]);
    const expectedTotal = WIDGET_WRITERS * ROWS_PER_WIDGET_WRITER + TX_BATCHES * TX_BATCH_SIZE;
    expect(all.size).toBe(expectedTotal);
    const check = (seen: string[], expected: Set<string>) => ({
      seen: seen.length,
      duplicates: seen.length - new Set(seen).size,
      missing: [...expected].filter((id) => !seen.includes(id)).length,
      foreign: seen.filter((id) => !expected.has(id)).length,
    });
    const results = { siteOne: check(one.seen, written[0]), siteTwo: check(two.seen, written[1]), portfolio: check(portfolio.seen, all) };
    requests += WIDGET_WRITERS * ROWS_PER_WIDGET_WRITER + one.polls + two.polls + portfolio.polls;
    Object.assign(figures, {
      pollerWriters: WIDGET_WRITERS + 1,
      pollerRowsWritten: all.size,
      pollerCounterResets: counterResets,
      pollers: 3,
      pollerPolls: one.polls + two.polls + portfolio.polls,
      pollerRowsSeen: one.seen.length + two.seen.length + portfolio.seen.length,
      pollerRowsMissingOrDuplicated: Object.values(results).reduce((sum, r) => sum + r.duplicates + r.missing + r.foreign, 0),
      pollerResults: results,
    });
    expect(results).toEqual({
      siteOne: { seen: written[0].size, duplicates: 0, missing: 0, foreign: 0 },
      siteTwo: { seen: written[1].size, duplicates: 0, missing: 0, foreign: 0 },
      portfolio: { seen: expectedTotal, duplicates: 0, missing: 0, foreign: 0 },
    });
  }, 120_000);
});
