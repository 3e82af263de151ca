import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertApiCaller } from '../support/api-keys.js';
import { scrape } from '../support/metrics-scrape.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import type { TestDatabase } from '#libs/testing';

const METRICS_TOKEN = 'overload-gate-metrics-token-0123456789';
/** This file's replica takes two requests at once: the test holds them open and so drives it into overload without timing. */
const MAX_IN_FLIGHT = 2;

/**
 * A request that stays in flight until released: a POST whose body never finishes arriving
 * (the body parser waits for it), sent on a raw socket.
 */
function holdRequestOpen(baseUrl: string, apiKey: string): net.Socket {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v1/todos HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":`,
  );
  return socket;
}

/** Polls until `accept` holds (generous upper bound: only proves "does not hang"). */
async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

describe('admission control: an overloaded replica refuses new work with 503 SERVICE_OVERLOADED', () => {
  let t: TestApp & { database: TestDatabase };
  let apiKey: string;
  const held: net.Socket[] = [];

  const metric = async (name: string, labels: Record<string, string> = {}) => (await scrape(t.baseUrl, METRICS_TOKEN)).value(name, labels);
  const inFlight = () => metric('overload_in_flight_requests');
  const listTodos = () => fetch(`${t.baseUrl}/api/v1/todos`, { headers: { 'X-API-Key': apiKey } });

  async function overload(): Promise<void> {
    for (let i = 0; i < MAX_IN_FLIGHT; i++) held.push(holdRequestOpen(t.baseUrl, apiKey));
    await until(inFlight, (count) => count === MAX_IN_FLIGHT, 'requests held in flight');
  }

  async function release(): Promise<void> {
    for (const socket of held.splice(0)) socket.destroy();
    await until(inFlight, (count) => count === 0, 'requests in flight after release');
  }

  beforeAll(async () => {
    // This file drives the gate by requests in flight only, so the delay rule is put out of reach: with its default
    // (50 ms) the first window after a fast start (a migrated test database) can hold the boot's own delay, and the
    // second held request was refused for it instead of being counted.
    t = await startWithDatabase('todo-api', { METRICS_TOKEN, OVERLOAD_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT), OVERLOAD_MIN_IN_FLIGHT: '1', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '60000' });
    apiKey = (await insertApiCaller(t.dataSource)).key;
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await t?.close();
  });

  it('refuses in the envelope with Retry-After, before auth and body parsing, counts it, keeps the probes up, and serves again once the load is gone', async () => {
    expect((await listTodos()).status).toBe(200);
    const refusedBefore = await metric('overload_rejections_total', { reason: 'in_flight' });

    await overload();

    const refused = await listTodos();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    expect(await refused.json()).toEqual({
      success: false,
      error: { code: 'SERVICE_OVERLOADED', message: 'The service is overloaded; retry in 1 s', details: { retryAfterSeconds: 1 } },
    });
    // Refused ahead of the router, it still carries what every answer carries: security headers, CORS a browser can
    // read it through (Retry-After exposed), and its access line with the error code.
    const fromPage = await fetch(`${t.baseUrl}/api/v1/todos`, { headers: { 'X-API-Key': apiKey, Origin: 'https://app.example.test' } });
    expect(fromPage.status).toBe(503);
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('https://app.example.test');
    expect(fromPage.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(fromPage.headers.get('x-content-type-options')).toBe('nosniff');
    const requestId = fromPage.headers.get('x-request-id');
    await until(
      async () => t.logs.lines.map((line) => JSON.parse(line) as { msg?: string; errorCode?: string; req?: { id?: string } }).find((line) => line.req?.id === requestId),
      (line) => line !== undefined,
      'the refusal’s access line',
    ).then((line) => expect(line).toMatchObject({ msg: 'request refused', errorCode: 'SERVICE_OVERLOADED', res: { statusCode: 503 } }));
    // A CORS preflight is the CORS middleware's to answer, overloaded or not.
    const preflight = await fetch(`${t.baseUrl}/api/v1/todos`, { method: 'OPTIONS', headers: { Origin: 'https://app.example.test', 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBe(204);
    // Neither the credential (none here) nor the body (not JSON) is looked at.
    const unauthenticated = await fetch(`${t.baseUrl}/api/v1/todos`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{not json' });
    expect(unauthenticated.status).toBe(503);
    expect(((await unauthenticated.json()) as { error: { code: string } }).error.code).toBe('SERVICE_OVERLOADED');

    // The probes, the status route and the scrape are never refused.
    for (const path of ['/livez', '/readyz', '/api/v1/status', '/livez/']) expect({ path, status: (await fetch(`${t.baseUrl}${path}`)).status }).toEqual({ path, status: 200 });
    expect(await metric('overload_rejections_total', { reason: 'in_flight' })).toBe(refusedBefore + 3);

    await release();
    expect((await listTodos()).status).toBe(200);
  }, 60_000);

  it('judges an event stream once, when it opens: open streams do not count as requests in flight', async () => {
    const streams = Array.from({ length: MAX_IN_FLIGHT + 1 }, () => new AbortController());
    try {
      for (const stream of streams) {
        const opened = await fetch(`${t.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': apiKey }, signal: stream.signal });
        expect(opened.status).toBe(200);
      }
      expect(await inFlight()).toBe(0);
      expect((await listTodos()).status).toBe(200);

      await overload();
      const refusedStream = await fetch(`${t.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': apiKey } });
      expect(refusedStream.status).toBe(503);
      expect(((await refusedStream.json()) as { error: { code: string } }).error.code).toBe('SERVICE_OVERLOADED');
      await release();
    } finally {
      for (const stream of streams) stream.abort();
    }
  }, 60_000);
});
