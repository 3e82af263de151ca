/**
 * The database's circuit breaker and its recovery subscribers (issue 33, items 5 and 2), with
 * todo-api talking to the database through a ToggleProxy:
 * - frozen database: once the outage is known (the first 503), every request that needs the
 *   database answers 503 (envelope, Retry-After) at once, not after a wait for a pool slot;
 *   liveness (/livez) does not depend on it; the first background probe that passes after the database
 *   resumes brings it back;
 * - database stopped (every connection cut, new ones refused) for 8 s: after it is back, a new
 *   todo reaches an open EventSource within 1 s of the database accepting writes (the LISTEN
 *   client reconnects when the breaker's probe passes, not at the end of its own back-off).
 *   On the embedded database fan-out is in-process (no LISTEN client): the same figure is measured.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { createTestDatabase, ToggleProxy, until, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

/** The bound on a refused request once the outage is known. */
const FAST_503_MS = 50;
/** The bound on realtime delivery after the database accepts writes again. */
const SSE_RECOVERY_MS = 1000;

interface Answer {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: unknown;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe('database circuit breaker and recovery subscribers (ToggleProxy)', () => {
  let database: TestDatabase;
  let proxy: ToggleProxy;
  let t: TestApp;
  let key: string;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    t = await startApp('todo-api', proxy.wrap(database.url), { DB_QUERY_TIMEOUT_MS: '1000' });
    key = (await insertApiCaller(t.dataSource)).key;
  }, 60_000);

  afterAll(async () => {
    writeFigures('database-breaker', figures);
    proxy?.restore();
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  async function listTodos(): Promise<Answer> {
    const started = performance.now();
    const response = await fetch(`${t.baseUrl}/api/v1/todos`, { headers: { 'X-API-Key': key } });
    const body = await response.json().catch(() => undefined);
    return { status: response.status, ms: performance.now() - started, retryAfter: response.headers.get('retry-after'), body };
  }

  async function createTodo(text: string): Promise<number> {
    const response = await fetch(`${t.baseUrl}/api/v1/todos`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text, priority: 2, category: 'ops' }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function backUp(): Promise<void> {
    proxy.restore();
    await until(async () => (await fetch(`${t.baseUrl}/readyz`)).status === 200, 20_000, 'the database to be back');
  }

  it('answers 503 at once to every request once a frozen database is known down, and comes back on the first probe that passes', async () => {
    expect((await listTodos()).status).toBe(200);
    proxy.freeze();
    const frozenAt = performance.now();
    let first: Answer | undefined;
    while (!first) {
      const answer = await listTodos();
      if (answer.status === 503) first = answer;
      else if (performance.now() - frozenAt > 15_000) throw new Error('no 503 within 15 s of the freeze');
    }
    figures.timeToFirst503Ms = Math.round(performance.now() - frozenAt);

    // From now on: one at a time, then a burst of concurrent requests.
    const sequential: Answer[] = [];
    for (let i = 0; i < 10; i++) sequential.push(await listTodos());
    const burst = await Promise.all(Array.from({ length: 20 }, () => listTodos()));
    const all = [...sequential, ...burst];
    figures.after503Sequential = { requests: sequential.length, p50Ms: Math.round(percentile(sequential.map((a) => a.ms), 50)), maxMs: Math.round(Math.max(...sequential.map((a) => a.ms))) };
    figures.after503Burst20 = { requests: burst.length, p50Ms: Math.round(percentile(burst.map((a) => a.ms), 50)), maxMs: Math.round(Math.max(...burst.map((a) => a.ms))) };
    for (const answer of all) {
      expect({ status: answer.status, retryAfter: answer.retryAfter, body: answer.body }).toEqual({
        status: 503,
        retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
        body: { success: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) },
      });
    }
    expect(Math.max(...sequential.map((a) => a.ms))).toBeLessThan(FAST_503_MS);
    // Twenty at once in the test's own process: each still far below a pool wait (3 s).
    expect(Math.max(...burst.map((a) => a.ms))).toBeLessThan(FAST_503_MS * 5);

    // Liveness never asks the database; readiness answers at once that it is not ready.
    const live = performance.now();
    expect((await fetch(`${t.baseUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(performance.now() - live).toBeLessThan(1000);

    proxy.restore();
    const resumedAt = performance.now();
    await until(async () => (await listTodos()).status === 200, 5000, 'a 200 after the resume');
    figures.httpBackAfterResumeMs = Math.round(performance.now() - resumedAt);
    expect(figures.httpBackAfterResumeMs).toBeLessThan(2000);
  }, 60_000);

  it('delivers a new todo on an open stream within 1 s of the database accepting writes after a stop', async () => {
    await backUp();
    const source = new EventSource(`${t.baseUrl}/api/v1/todos/events?access_token=${encodeURIComponent(key)}`);
    const received: { text: string; at: number }[] = [];
    let opened = 0;
    source.addEventListener('open', () => opened++);
    source.addEventListener('todo.created', (event) => received.push({ text: (JSON.parse((event as MessageEvent).data as string) as { text: string }).text, at: performance.now() }));
    try {
      await until(() => opened >= 1, 10_000, 'the stream to open');
      expect(await createTodo('before the stop')).toBe(201);
      await until(() => received.some((e) => e.text === 'before the stop'), 5000, 'the event before the stop');

      proxy.cut();
      // Long enough for the LISTEN client's own back-off to reach several seconds between attempts.
      await sleep(8000);
      proxy.restore();
      const restoredAt = performance.now();
      let acceptedAt = 0;
      while (!acceptedAt) {
        if ((await createTodo('after the stop')) === 201) acceptedAt = performance.now();
        else if (performance.now() - restoredAt > 15_000) throw new Error('no write accepted within 15 s of the restore');
        else await sleep(20);
      }
      figures.writesBackAfterRestoreMs = Math.round(acceptedAt - restoredAt);
      await until(() => received.some((e) => e.text === 'after the stop'), 20_000, 'the event after the stop');
      const deliveredAt = received.find((e) => e.text === 'after the stop')!.at;
      figures.sseRecoveryAfterWritesMs = Math.round(deliveredAt - acceptedAt);
      expect(source.readyState).toBe(EventSource.OPEN);
      expect(deliveredAt - acceptedAt).toBeLessThanOrEqual(SSE_RECOVERY_MS);
    } finally {
      source.close();
      await backUp();
    }
  }, 60_000);
});
