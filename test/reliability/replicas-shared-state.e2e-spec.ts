/**
 * Two instances of each app on one database (todo-api A and B, feedback-export C and D):
 * every limit and every revocation is shared state in PostgreSQL, so what happens on one
 * instance holds on the other at once, and realtime events cross between the todo replicas
 * (LISTEN/NOTIFY: real PostgreSQL only; the embedded database fans out in-process).
 * Figures go to test-results/reliability/replicas.*.json.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { insertUser, usingRealPostgres } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { grantBetaAccess } from '../support/api-access.js';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('two replicas of each app on one database', () => {
  let todoA: TestApp & { database: { url: string } };
  let todoB: TestApp;
  let feedbackC: TestApp;
  let feedbackD: TestApp;
  const figures: Record<string, unknown> = {};
  let crossReplicaChecks = 0;

  beforeAll(async () => {
    todoA = await startWithDatabase('todo-api');
    todoB = await startApp('todo-api', todoA.database.url);
    feedbackC = await startApp('feedback-export', todoA.database.url);
    feedbackD = await startApp('feedback-export', todoA.database.url);
  }, 60_000);

  afterAll(async () => {
    writeFigures('replicas', { instances: 4, crossReplicaChecks, ...figures });
    await feedbackD?.close();
    await feedbackC?.close();
    await todoB?.close();
    await todoA?.close();
  }, 30_000);

  /** Asserts status (and error code) of a response, counting it as one cross-replica check. */
  function check(res: { status: number; body: any }, status: number, code?: string): void {
    crossReplicaChecks++;
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  }

  const login = (app: TestApp, email: string, password: string) => app.http.post('/api/v1/auth/login').send({ email, password });

  it('login limit: 10 failures per (IP, e-mail) and 100 per IP are counted over both replicas', async () => {
    const victim = await insertUser(todoA.dataSource);
    for (let i = 0; i < 10; i++) check(await login(i % 2 === 0 ? todoA : todoB, victim.email, `wrong-${i}-password`), 401, 'INVALID_CREDENTIALS');
    const blockedA = await login(todoA, victim.email, victim.password);
    const blockedB = await login(todoB, victim.email, victim.password);
    check(blockedA, 429, 'RATE_LIMITED');
    check(blockedB, 429, 'RATE_LIMITED');
    expect(Number(blockedB.headers['retry-after'])).toBeGreaterThan(0);

    // Per IP: 98 failures already counted (preloaded in the shared counter), one on each replica reaches 100.
    await todoA.rateLimits.set('login-fail-ip:ip:127.0.0.1', 98);
    const other = await insertUser(todoA.dataSource);
    const third = await insertUser(todoA.dataSource);
    check(await login(todoA, other.email, 'wrong-password-1'), 401, 'INVALID_CREDENTIALS');
    check(await login(todoB, other.email, 'wrong-password-2'), 401, 'INVALID_CREDENTIALS');
    const perIp = await login(todoB, third.email, third.password);
    check(perIp, 429, 'RATE_LIMITED');
    expect(perIp.headers['ratelimit-limit']).toBe('100');
    check(await login(todoA, third.email, third.password), 429, 'RATE_LIMITED');
    await todoA.rateLimits.clear('login-fail');
    check(await login(todoA, third.email, third.password), 200);
    figures.loginLimitsHeld = 2;
  });

  it('todo limit: 600 requests a minute per API key over both replicas', async () => {
    const user = await insertUser(todoA.dataSource);
    await grantBetaAccess(todoA.dataSource, user.id);
    const { id, key } = await insertApiKey(todoA.dataSource, user.id);
    const first = await todoA.http.get('/api/v1/todos').set('X-API-Key', key).expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('599');
    // Spend 597 more in the shared counter instead of sending them.
    await todoA.rateLimits.add(`todos:api-key:${id}`, 597);
    const onB = await todoB.http.get('/api/v1/todos').set('X-API-Key', key);
    check(onB, 200);
    expect(onB.headers['ratelimit-remaining']).toBe('1');
    const last = await todoA.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'the 600th', priority: 1, category: 'limit' });
    check(last, 201);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    check(await todoB.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'the 601st', priority: 1, category: 'limit' }), 429, 'RATE_LIMITED');
    check(await todoA.http.get('/api/v1/todos').set('X-API-Key', key), 429, 'RATE_LIMITED');
    const rows = await todoA.dataSource.query(`SELECT text FROM todos WHERE user_id = $1`, [user.id]);
    expect(rows).toEqual([{ text: 'the 600th' }]);
    figures.todoLimitHeld = 1;
  });

  async function ownerWithSite(): Promise<{ userId: string; jwt: string; siteId: string; siteKey: string; readToken: string }> {
    const user = await insertUser(todoA.dataSource);
    const jwt = await feedbackC.accessTokenFor(user.id);
    const site = await feedbackC.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Replicated' }).expect(201);
    const read = await feedbackD.http.post(`/api/v1/sites/${site.body.data.site.id}/tokens/read/rotate`).set(bearer(jwt)).expect(200);
    return { userId: user.id, jwt, siteId: site.body.data.site.id, siteKey: site.body.data.siteKey, readToken: read.body.data.token };
  }

  it('export token limit (60 a minute) and widget per-IP limit (20 a minute) hold over both feedback replicas', async () => {
    const owner = await ownerWithSite();
    const keysBefore = new Set(await todoA.rateLimits.keys());
    const first = await feedbackC.http.get('/api/v1/export/feedback').set(bearer(owner.readToken)).expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('59');
    const tokenKeys = (await todoA.rateLimits.keys('feedback-export-token:')).filter((key) => !keysBefore.has(key));
    expect(tokenKeys).toHaveLength(1);
    await todoA.rateLimits.add(tokenKeys[0], 57);
    const onD = await feedbackD.http.get('/api/v1/export/feedback').set(bearer(owner.readToken));
    check(onD, 200);
    expect(onD.headers['ratelimit-remaining']).toBe('1');
    check(await feedbackC.http.get('/api/v1/export/questions').set(bearer(owner.readToken)), 200);
    check(await feedbackD.http.get('/api/v1/export/feedback').set(bearer(owner.readToken)), 429, 'RATE_LIMITED');
    check(await feedbackC.http.get('/api/v1/export/feedback').set(bearer(owner.readToken)), 429, 'RATE_LIMITED');

    const widget = (app: TestApp, i: number) =>
      app.http.post('/api/v1/widget/feedback').send({ siteKey: owner.siteKey, type: 'feedback', message: `replica widget ${i}`, rating: null, pageUrl: 'https://example.test/' });
    for (let i = 0; i < 20; i++) check(await widget(i % 2 === 0 ? feedbackC : feedbackD, i), 201);
    check(await widget(feedbackC, 20), 429, 'RATE_LIMITED');
    check(await widget(feedbackD, 21), 429, 'RATE_LIMITED');
    const stored = await todoA.dataSource.query(`SELECT count(*)::int AS n FROM feedback WHERE site_id = $1`, [owner.siteId]);
    expect(stored[0].n).toBe(20);
    Object.assign(figures, { tokenLimitHeld: 1, widgetLimitHeld: 1, rowsChecked: stored[0].n });
  });

  it('a session revoked on one replica is dead on the other replica and on the other service at once', async () => {
    const user = await insertUser(todoA.dataSource);
    const first = (await login(todoA, user.email, user.password).expect(200)).body.data;
    const second = (await login(todoB, user.email, user.password).expect(200)).body.data;
    check(await todoB.http.get('/api/v1/auth/verify').set(bearer(second.token)), 200);
    check(await feedbackD.http.get('/api/v1/sites').set(bearer(second.token)), 200);
    const sessions = (await todoA.http.get('/api/v1/auth/sessions').set(bearer(first.token)).expect(200)).body.data.sessions;
    const secondId = sessions.find((s: { id: string }) => s.id !== JSON.parse(Buffer.from(first.token.split('.')[1], 'base64url').toString()).sid).id;

    await todoA.http.delete(`/api/v1/auth/sessions/${secondId}`).set(bearer(first.token)).expect(200);
    // No waiting: the very next request on every other instance refuses it.
    check(await todoB.http.get('/api/v1/auth/verify').set(bearer(second.token)), 401, 'AUTH_REQUIRED');
    check(await feedbackC.http.get('/api/v1/sites').set(bearer(second.token)), 401, 'AUTH_REQUIRED');
    check(await feedbackD.http.get('/api/v1/sites').set(bearer(second.token)), 401, 'AUTH_REQUIRED');
    check(await todoB.http.post('/api/v1/auth/refresh').send({ refreshToken: second.refreshToken }), 401, 'INVALID_TOKEN');
    check(await todoA.http.get('/api/v1/auth/verify').set(bearer(first.token)), 200);

    // Logout of every session on B ends A's session too.
    await todoB.http.post('/api/v1/auth/logout').set(bearer(first.token)).send({ allSessions: true }).expect(200);
    check(await todoA.http.get('/api/v1/auth/verify').set(bearer(first.token)), 401, 'AUTH_REQUIRED');
    check(await feedbackC.http.get('/api/v1/sites').set(bearer(first.token)), 401, 'AUTH_REQUIRED');
    check(await todoA.http.post('/api/v1/auth/refresh').send({ refreshToken: first.refreshToken }), 401, 'INVALID_TOKEN');
    figures.sessionRevocationsChecked = 2;
  });

  it('an API key revoked on one replica, or a site token rotated on one replica, is dead on the other at once', async () => {
    const user = await insertUser(todoA.dataSource);
    await grantBetaAccess(todoA.dataSource, user.id);
    const jwt = await todoA.accessTokenFor(user.id);
    const created = (await todoA.http.post('/api/v1/auth/api-keys').set(bearer(jwt)).send({ name: 'replicated' }).expect(201)).body.data;
    check(await todoB.http.get('/api/v1/todos').set('X-API-Key', created.apiKey), 200);
    await todoA.http.delete(`/api/v1/auth/api-keys/${created.key.id}`).set(bearer(jwt)).expect(200);
    check(await todoB.http.get('/api/v1/todos').set('X-API-Key', created.apiKey), 401, 'INVALID_API_KEY');
    const mcp = await todoB.http.post('/api/v1/mcp').set('X-API-Key', created.apiKey).set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    crossReplicaChecks++;
    expect({ status: mcp.status, jsonrpc: mcp.body?.jsonrpc }).toEqual({ status: 401, jsonrpc: '2.0' });

    const owner = await ownerWithSite();
    check(await feedbackD.http.get('/api/v1/export/feedback').set(bearer(owner.readToken)), 200);
    const rotated = (await feedbackC.http.post(`/api/v1/sites/${owner.siteId}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    check(await feedbackD.http.get('/api/v1/export/feedback').set(bearer(owner.readToken)), 401, 'INVALID_TOKEN');
    check(await feedbackD.http.get('/api/v1/export/feedback').set(bearer(rotated)), 200);
    Object.assign(figures, { apiKeyRevocationsChecked: 1, siteTokenRotationsChecked: 1 });
  });

  (usingRealPostgres() ? it : it.skip)('realtime: a change made on either todo replica reaches a stream on the other (LISTEN/NOTIFY)', async () => {
    const user = await insertUser(todoA.dataSource);
    await grantBetaAccess(todoA.dataSource, user.id);
    const { key } = await insertApiKey(todoA.dataSource, user.id);
    const latencies: number[] = [];

    for (const [producer, consumer] of [
      [todoA, todoB],
      [todoB, todoA],
    ] as const) {
      const received: Array<{ type: string; text?: string; at: number }> = [];
      const source = new EventSource(`${consumer.baseUrl}/api/v1/todos/events`, {
        fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-API-Key': key } }),
      });
      for (const type of ['todo.created', 'todo.updated']) source.addEventListener(type, (event) => received.push({ type, text: JSON.parse(event.data).text, at: Date.now() }));
      try {
        await new Promise<void>((resolve, reject) => {
          source.onopen = () => resolve();
          source.onerror = () => reject(new Error('stream failed'));
        });
        const sentAt = Date.now();
        const created = await producer.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: `from ${producer === todoA ? 'A' : 'B'}`, priority: 3, category: 'rt' }).expect(201);
        await producer.http.put(`/api/v1/todos/${created.body.data.todo.id}`).set('X-API-Key', key).send({ priority: 1 }).expect(200);
        const deadline = Date.now() + 2_000;
        while (received.length < 2 && Date.now() < deadline) await sleep(10);
        crossReplicaChecks++;
        expect(received.map((event) => event.type)).toEqual(['todo.created', 'todo.updated']);
        latencies.push(received[0].at - sentAt);
      } finally {
        source.close();
      }
    }
    Object.assign(figures, { realtimeCrossReplicaEvents: 4, realtimeMaxLatencyMs: Math.max(...latencies) });
  });
});
