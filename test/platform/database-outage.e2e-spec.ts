import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, ToggleProxy, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { EXTRA_READINESS_CHECKS, startApp, type TestApp } from '../support/test-apps.js';

/** The query budget of this file's app (DB_QUERY_TIMEOUT_MS): short, so the frozen-database case is quick. */
const QUERY_TIMEOUT_MS = 1500;
/** Opening a connection (or waiting for one from the pool) gives up after this (CONNECT_TIMEOUT_MS). */
const CONNECT_TIMEOUT_MS = 3000;

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  let value = await probe();
  while (!accept(value)) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await sleep(100);
    value = await probe();
  }
  return { value, elapsedMs: Date.now() - started };
}

interface LogLine {
  level: number;
  msg: string;
  context?: string;
  [field: string]: unknown;
}

describe('status, probes and logs when the database goes away and comes back', () => {
  let database: TestDatabase;
  let proxy: ToggleProxy;
  let t: TestApp;
  let apiKey: string;
  let accessToken: string;

  const logLines = (from: number): LogLine[] => t.logs.lines.slice(from).map((line) => JSON.parse(line) as LogLine);
  const listTodos = () => fetch(`${t.baseUrl}/api/v1/todos`, { headers: { 'X-API-Key': apiKey } });

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    t = await startApp('todo-api', proxy.wrap(database.url), { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) });
    const caller = await insertApiCaller(t.dataSource);
    apiKey = caller.key;
    accessToken = await t.accessTokenFor(caller.userId);
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  /** Back to a working database, and the outage (if any) logged as over. */
  async function recover(): Promise<void> {
    proxy.restore();
    await waitFor(async () => (await listTodos()).status, (status) => status === 200, 15_000);
    await waitFor(
      async () => logLines(0).filter((line) => line.context === 'Dependencies').length % 2,
      (open) => open === 0,
      10_000,
    );
  }

  it('reports 503 SERVICE_DEGRADED within 2 s of losing the database, then recovers by itself', async () => {
    await t.http.get('/api/v1/status').expect(200);

    proxy.cut();
    const started = Date.now();
    const degraded = await t.http.get('/api/v1/status');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(degraded.status).toBe(503);
    expect(degraded.headers['retry-after']).toBe('5');
    expect(degraded.body).toMatchObject({
      success: false,
      error: { code: 'SERVICE_DEGRADED', details: { status: 'degraded', service: 'todo-api', checks: { db: 'error' } } },
    });

    proxy.restore();
    const recovered = await waitFor(
      async () => (await t.http.get('/api/v1/status')).status,
      (status) => status === 200,
      10_000,
    );
    expect(recovered.value).toBe(200);
    await recover();
  });

  it('keeps /livez at 200 while /readyz answers 503 (with the failed check) during a cut, and ready again after', async () => {
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body).toEqual({ success: true, data: { status: 'ready', draining: false, checks: { database: 'ok', migrations: 'ok', ...EXTRA_READINESS_CHECKS } } });

    proxy.cut();
    const live = await t.http.get('/livez').expect(200);
    expect(live.body).toEqual({ success: true, data: { status: 'alive', uptimeSeconds: expect.any(Number) } });
    const started = Date.now();
    const notReady = await t.http.get('/readyz');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(notReady.status).toBe(503);
    expect(notReady.headers['retry-after']).toBe('5');
    expect(notReady.headers['cache-control']).toBe('no-store');
    expect(notReady.body).toEqual({
      success: false,
      error: { code: 'SERVICE_DEGRADED', message: expect.any(String), details: { status: 'not_ready', draining: false, checks: { database: 'error', migrations: 'ok', ...EXTRA_READINESS_CHECKS } } },
    });

    await recover();
    await waitFor(async () => (await t.http.get('/readyz')).status, (status) => status === 200, 10_000);
  });

  it('answers every request of a cut with 503 and Retry-After, and logs the cut as one warning pair, not a line per request', async () => {
    await listTodos();
    const from = t.logs.lines.length;
    proxy.cut();
    const refused = 20;
    const answers = await Promise.all(
      Array.from({ length: refused }, async () => {
        const res = await listTodos();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(refused).fill(503));
    for (const answer of answers) {
      expect(answer.retryAfter).toBe('5');
      expect(answer.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable' } });
    }
    await recover();

    const lines = logLines(from);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({ context: 'Dependencies', dependency: 'database', msg: 'database unavailable: answering 503 until it is back' }),
      expect.objectContaining({ context: 'Dependencies', dependency: 'database', msg: 'database available again', refusedRequests: expect.any(Number), downForMs: expect.any(Number) }),
    ]);
    // The 20 above, and recover()'s polls refused at once until the breaker's probe saw the database back.
    expect(warnings[1].refusedRequests).toBeGreaterThanOrEqual(refused);
  });

  it('answers 503 within the configured timeouts when the database freezes (connections accept, then hang)', async () => {
    // Warm both pools, so the freeze catches open connections as well as new ones.
    await Promise.all(Array.from({ length: 4 }, () => listTodos()));
    proxy.freeze();
    const bound = CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS + 500;
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const started = Date.now();
          const res = await listTodos();
          return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), code: ((await res.json()) as any).error?.code };
        }),
      );
      for (const answer of answers) {
        expect(answer).toEqual({ status: 503, ms: expect.any(Number), retryAfter: '5', code: 'SERVICE_UNAVAILABLE' });
        expect(answer.ms).toBeLessThan(bound);
      }
    }
    const started = Date.now();
    expect((await t.http.get('/readyz')).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2000);
    await t.http.get('/livez').expect(200);

    await recover();
  });

  it('answers a JWT route 503 during a cut, not 401: a session check that cannot run is no verdict on the token (the client keeps its sign-in)', async () => {
    const listSessions = () => fetch(`${t.baseUrl}/api/v1/auth/sessions`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect((await listSessions()).status).toBe(200);
    proxy.cut();
    const during = await listSessions();
    expect({ status: during.status, code: ((await during.json()) as any).error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    await recover();
    expect((await listSessions()).status).toBe(200);
  });
});
