/**
 * A realtime stream opened while the database is unavailable (a ToggleProxy between the app and
 * the database cuts every connection, or freezes them) must not be refused with a non-200:
 * EventSource gives up for good after one. It answers 200 `text/event-stream` with a `retry:`
 * hint and ends at once; a real EventSource stays in CONNECTING, comes back by itself, and once
 * the database is back its stream opens and delivers. An invalid credential with the database up
 * stays 401.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventSource } from 'eventsource';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, ToggleProxy, until, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

interface RawAnswer {
  status: number;
  contentType?: string;
  body: string;
  /** The server ended the response (as opposed to the test giving up on it). */
  ended: boolean;
  ms: number;
}

/** GET the stream and read it until the server ends it, or `giveUpMs` passes. */
function readStream(baseUrl: string, key: string, giveUpMs: number): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const request = http.get(`${baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': key } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      const timer = setTimeout(() => {
        resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body, ended: false, ms: Date.now() - started });
        request.destroy();
      }, giveUpMs);
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body, ended: true, ms: Date.now() - started });
      });
    });
    request.on('error', () => resolve({ status: 0, body: '', ended: false, ms: Date.now() - started }));
  });
}

describe('realtime stream opened during a database outage', () => {
  let database: TestDatabase;
  let proxy: ToggleProxy;
  let t: TestApp;
  let key: string;
  const figures = { streamOpensDuringOutage: 0, outageStreamOpensAnswered5xxOr4xx: 0, retryAnswerCutMs: 0, retryAnswerFrozenMs: 0, eventSourceBackAfterDatabaseMs: 0 };

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    t = await startApp('todo-api', proxy.wrap(database.url), { DB_QUERY_TIMEOUT_MS: '2000' });
    key = (await insertApiCaller(t.dataSource)).key;
  }, 60_000);

  afterAll(async () => {
    writeFigures('stream-outage', figures);
    proxy?.restore();
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  async function backUp(): Promise<void> {
    proxy.restore();
    await until(async () => (await fetch(`${t.baseUrl}/readyz`)).status === 200, 20_000, 'the database to be back');
  }

  function expectRetryAndEnd(answer: RawAnswer): void {
    figures.streamOpensDuringOutage++;
    if (answer.status !== 200) figures.outageStreamOpensAnswered5xxOr4xx++;
    expect({ status: answer.status, contentType: answer.contentType, ended: answer.ended }).toEqual({
      status: 200,
      contentType: expect.stringMatching(/^text\/event-stream/),
      ended: true,
    });
    // Only a reconnection hint: no event, no id.
    const retry = /^retry: *(\d+)$/m.exec(answer.body);
    expect(retry).not.toBeNull();
    expect(Number(retry![1])).toBeGreaterThanOrEqual(1000);
    expect(answer.body).not.toMatch(/^(event|id|data):/m);
  }

  it('answers 200 with a retry hint and ends at once while the database refuses connections; opens normally once it is back', async () => {
    proxy.cut();
    const refused = await readStream(t.baseUrl, key, 10_000);
    figures.retryAnswerCutMs = refused.ms;
    expectRetryAndEnd(refused);

    await backUp();
    const live = await readStream(t.baseUrl, key, 1500);
    expect({ status: live.status, ended: live.ended }).toEqual({ status: 200, ended: false });
    // An invalid credential with the database up is still refused as published.
    expect((await fetch(`${t.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': 'tdk_not_a_key_0000000000000000000000000' } })).status).toBe(401);
  }, 40_000);

  it('answers the same when the database is frozen (after the query gives up, not a 503)', async () => {
    proxy.freeze();
    const refused = await readStream(t.baseUrl, key, 15_000);
    figures.retryAnswerFrozenMs = refused.ms;
    expectRetryAndEnd(refused);
    await backUp();
  }, 40_000);

  it('keeps a real EventSource reconnecting through the outage: it opens and delivers once the database is back', async () => {
    proxy.cut();
    const source = new EventSource(`${t.baseUrl}/api/v1/todos/events?access_token=${encodeURIComponent(key)}`);
    const received: string[] = [];
    let opened = 0;
    source.addEventListener('open', () => opened++);
    source.addEventListener('todo.created', (event) => received.push((event as MessageEvent).data as string));
    try {
      // It got its answer (200 + retry, ended) and is waiting to reconnect, not closed for good.
      await until(() => opened >= 1, 10_000, 'the first (outage) answer');
      await sleep(300);
      expect(source.readyState).not.toBe(EventSource.CLOSED);
      await backUp();
      const backAt = Date.now();
      // Reconnects after its retry hint (5–7 s) and stays open.
      const before = opened;
      await until(() => opened > before, 15_000, 'the reconnection after the outage');
      figures.eventSourceBackAfterDatabaseMs = Date.now() - backAt;
      const stateWhenBack = source.readyState;
      expect(stateWhenBack).toBe(EventSource.OPEN);
      await sleep(300);
      expect(source.readyState).toBe(stateWhenBack);
      const created = await fetch(`${t.baseUrl}/api/v1/todos`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'after the outage', priority: 2, category: 'ops' }),
      });
      expect(created.status).toBe(201);
      await until(() => received.length > 0, 5000, 'the event after the outage');
      expect(JSON.parse(received[0])).toEqual(expect.objectContaining({ text: 'after the outage' }));
    } finally {
      source.close();
    }
  }, 60_000);
});
