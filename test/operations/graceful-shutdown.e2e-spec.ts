/**
 * SIGTERM to a real child process (the built todo-api, as `node dist/apps/todo-api/src/main.js` runs it,
 * on this file's database) under load: readiness turns 503 at once, responses carry
 * `Connection: close`, the event stream gets a `retry` hint and ends, requests in flight
 * (password hashes queued behind one hashing slot) all finish, no response is cut off
 * mid-answer, and the process exits 0 within SHUTDOWN_GRACE_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#libs/database';
import { createTestDatabase, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { buildServices, startBuiltTodoApi, type BuiltServices, type BuiltApp } from '../support/built-services.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';

/** Room for twelve cost-10 hashes on a loaded two-worker run; a drain that finishes exits at once, so it costs nothing when idle. */
const GRACE_MS = 15_000;
/** Cost of the password hashes in flight at SIGTERM: tens of milliseconds each, queued behind the hashing slots. */
const BCRYPT_COST = '10';

type Outcome =
  | { kind: 'complete'; status: number; connection?: string; body: string; sentAfterSigterm: boolean }
  /** Nothing was answered: the connection was refused or closed before any byte of a response. */
  | { kind: 'not-answered'; code?: string; sentAfterSigterm: boolean }
  /** A response started and did not finish: what a graceful drain must never do. */
  | { kind: 'cut'; status: number; sentAfterSigterm: boolean };

describe('SIGTERM under load (a real child process)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let built: BuiltServices;
  let todoApi: BuiltApp;

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase({ migrated: true });
    todoApi = await startBuiltTodoApi(built, {
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_JWT_SECRET,
      BCRYPT_COST,
      DB_POOL_SIZE: '5',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, applicationName: 'drain-test' }));
    await dataSource.initialize();
  }, 90_000);

  afterAll(async () => {
    todoApi?.stop();
    await dataSource?.destroy();
    await database?.drop();
    if (built) rmSync(built.root, { recursive: true, force: true });
  });

  it('fails readiness at once, finishes every request in flight, cuts no answer and exits 0 within the grace period', async () => {
    const { base, child, exited } = todoApi;
    const { key } = await insertApiCaller(dataSource);
    // Room for the 8 readers and the 12 sign-ups at once: no sign-up waits for a socket (and so
    // goes out only after SIGTERM) when a loaded machine answers the reads slowly.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
    let sigtermAt = 0;

    function send(method: string, path: string, headers: Record<string, string>, body?: unknown, onSent?: () => void): Promise<Outcome> {
      const sentAfterSigterm = sigtermAt > 0;
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      return new Promise((resolve) => {
        const request = http.request(
          `${base}${path}`,
          { method, agent, headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}) } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              if (!response.complete) resolve({ kind: 'cut', status, sentAfterSigterm });
              else resolve({ kind: 'complete', status, connection: response.headers.connection, body: text, sentAfterSigterm });
            });
            response.on('aborted', () => resolve({ kind: 'cut', status: response.statusCode ?? 0, sentAfterSigterm }));
            response.on('error', () => resolve({ kind: 'cut', status: response.statusCode ?? 0, sentAfterSigterm }));
          },
        );
        request.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'not-answered', code: error.code, sentAfterSigterm }));
        // A request the server never finishes must fail the test, not hang it.
        request.setTimeout(20_000, () => request.destroy(Object.assign(new Error('no answer within 20 s'), { code: 'TIMEOUT' })));
        if (onSent) request.once('finish', onSent);
        request.end(payload);
      });
    }

    // An open event stream, read until the server ends it.
    const streamText: Promise<{ text: string; ended: boolean }> = new Promise((resolve) => {
      http.get(`${base}/api/v1/todos/events`, { headers: { 'X-API-Key': key } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ text, ended: true }));
        response.on('error', () => resolve({ text, ended: false }));
        response.on('close', () => resolve({ text, ended: response.complete }));
      });
    });

    // Steady reads from 8 workers until told to stop.
    let loading = true;
    const reads: Outcome[] = [];
    const workers = Array.from({ length: 8 }, async () => {
      while (loading) {
        const outcome = await send('GET', '/api/v1/todos', { 'X-API-Key': key });
        reads.push(outcome);
        if (outcome.kind === 'not-answered') await sleep(20);
      }
    });
    const loadDeadline = Date.now() + 15_000;
    while (!reads.some((outcome) => outcome.kind === 'complete' && outcome.status === 200)) {
      if (Date.now() > loadDeadline) throw new Error(`no read answered before SIGTERM: ${JSON.stringify(reads.slice(0, 3))}`);
      await sleep(50);
    }

    // Sign-ups queue behind the hashing slots: still in flight when SIGTERM arrives.
    let sent = 0;
    const signups = Array.from({ length: 12 }, (_, n) =>
      send('POST', '/api/v1/auth/signup', {}, { email: `drain-${n}-${Date.now()}@example.test`, password: 'a-long-enough-password', passwordConfirm: 'a-long-enough-password' }, () => (sent += 1)),
    );
    // SIGTERM once every sign-up is written to its connection (not after a fixed pause, which a
    // loaded machine may not honour), and a moment later, so the service is working on them.
    const sentDeadline = Date.now() + 15_000;
    while (sent < signups.length) {
      if (Date.now() > sentDeadline) throw new Error(`only ${sent} of ${signups.length} sign-ups were sent before SIGTERM`);
      await sleep(10);
    }
    await sleep(100);
    sigtermAt = Date.now();
    child.kill('SIGTERM');
    await sleep(50);
    const readiness = await send('GET', '/readyz', {});
    // The load goes on until the process is gone: through the drain, and against a closed port.
    const exit = await Promise.race([exited, sleep(GRACE_MS + 15_000).then(() => ({ code: null, signal: null, at: Number.NaN }))]);
    loading = false;
    await Promise.all(workers);
    const signupOutcomes = await Promise.all(signups);
    const stream = await streamText;
    agent.destroy();

    // Readiness failed at once, with the drain named, on a connection the server then closed.
    expect(readiness).toMatchObject({ kind: 'complete', status: 503, connection: 'close' });
    expect(JSON.parse((readiness as { body: string }).body).error.details).toEqual({ status: 'not_ready', draining: true, checks: {} });
    // Every sign-up in flight at SIGTERM finished (its hash and its insert ran before the pools closed).
    expect(signupOutcomes.map((outcome) => (outcome.kind === 'complete' ? outcome.status : outcome.kind))).toEqual(Array(12).fill(201));
    // No answer was cut off mid-way; answers given during the drain asked the client to reconnect.
    const all = [...reads, ...signupOutcomes];
    expect(all.filter((outcome) => outcome.kind === 'cut')).toEqual([]);
    const afterSigterm = reads.filter((outcome): outcome is Extract<Outcome, { kind: 'complete' }> => outcome.kind === 'complete' && outcome.sentAfterSigterm);
    expect(afterSigterm.length).toBeGreaterThan(0);
    for (const outcome of afterSigterm) expect(outcome.connection).toBe('close');
    // Complete answers only: the todo list, or (the load outruns the key's budget on a fast database) a 429.
    for (const outcome of reads.filter((read) => read.kind === 'complete')) expect([200, 429]).toContain((outcome as { status: number }).status);
    expect(afterSigterm.some((outcome) => outcome.status === 200)).toBe(true);
    // Once the server stopped accepting, new connections were refused before anything was sent, never half-answered
    // (a connection still in the kernel's accept queue when the listener closes is reset: it never reached the app).
    const notAnswered = reads.filter((read): read is Extract<Outcome, { kind: 'not-answered' }> => read.kind === 'not-answered');
    expect(notAnswered.length).toBeGreaterThan(0);
    for (const outcome of notAnswered) expect(outcome).toEqual({ kind: 'not-answered', code: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/), sentAfterSigterm: true });
    // The event stream was told when to reconnect, then ended by the server.
    expect(stream.ended).toBe(true);
    // The stream opened with retry 2000; the drain's hint is the last field it sent.
    const hints = [...stream.text.matchAll(/^retry: ?([0-9]+)$/gm)].map((match) => Number(match[1]));
    expect(hints).toHaveLength(2);
    expect(hints.at(-1)).toBeGreaterThanOrEqual(1000);
    expect(hints.at(-1)).toBeLessThanOrEqual(3000);
    // The process exited cleanly within the grace period, with nothing cut.
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - sigtermAt).toBeLessThan(GRACE_MS + 2000);
    const done = todoApi.output.split('\n').filter((line) => line.includes('"Shut down"'));
    expect(done).toHaveLength(1);
    expect(JSON.parse(done[0])).toMatchObject({ cutRequests: 0 });
  }, 60_000);
});
