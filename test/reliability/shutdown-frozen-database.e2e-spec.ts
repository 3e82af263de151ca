/**
 * SIGTERM to the built todo-api (a real child process, as `node dist/apps/todo-api/src/main.js`
 * runs it) while its database is frozen: a ToggleProxy between the app and the database stops
 * forwarding in both directions and keeps every connection open, as a SIGSTOPped server or a
 * silent network would (the portable way, on PostgreSQL and on the embedded database alike).
 * No close step may wait for the database: the process logs one warning per abandoned step and
 * exits 0 within SHUTDOWN_GRACE_MS + 2 s. (Before: it waited on the LISTEN connection's `end()`
 * and the pools until the database came back.) Figures: `shutdown-freeze.<database>.json`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#libs/database';
import { createTestDatabase, ToggleProxy, usingRealPostgres, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { buildServices, startBuiltTodoApi, type BuiltServices, type BuiltApp } from '../support/built-services.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

const GRACE_MS = 3000;
/** What the issue allows past the grace period. */
const BOUND_MS = GRACE_MS + 2000;
/** How long the test waits for an exit before it gives up (and lets the database resume, as the old code needed). */
const GIVE_UP_MS = 15_000;

describe(`SIGTERM with a frozen database (${usingRealPostgres() ? 'PostgreSQL' : 'embedded'} behind a frozen proxy)`, () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let proxy: ToggleProxy;
  let built: BuiltServices;
  let todoApi: BuiltApp;

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase();
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    todoApi = await startBuiltTodoApi(
      built,
      {
        DATABASE_URL: proxy.wrap(database.url),
        JWT_SECRET: TEST_JWT_SECRET,
        DB_POOL_SIZE: '4',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
      '/readyz',
    );
    dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, applicationName: 'shutdown-freeze-test' }));
    await dataSource.initialize();
  }, 90_000);

  afterAll(async () => {
    todoApi?.stop();
    await proxy?.stop();
    await dataSource?.destroy();
    await database?.drop();
    if (built) rmSync(built.root, { recursive: true, force: true });
  });

  it('exits 0 within SHUTDOWN_GRACE_MS + 2 s, abandoning (with a warning) the close steps the database never answers', async () => {
    const { base, child, exited } = todoApi;
    // Connections in every pool the app holds: the request pool, the rate-limit counters, a stream's lease.
    const { key } = await insertApiCaller(dataSource);
    for (let i = 0; i < 4; i++) expect((await fetch(`${base}/api/v1/todos`, { headers: { 'X-API-Key': key } })).status).toBe(200);
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${base}/api/v1/todos/events`, { headers: { 'X-API-Key': key } }, resolve).on('error', reject),
    );
    expect(stream.statusCode).toBe(200);
    stream.resume();

    proxy.freeze();
    // A request that is stuck on the frozen database when the signal comes.
    const stuck = fetch(`${base}/api/v1/todos`, { headers: { 'X-API-Key': key } }).then((res) => res.status, () => 0);
    await sleep(200);
    const sigtermAt = Date.now();
    child.kill('SIGTERM');
    const outcome = await Promise.race([exited, sleep(GIVE_UP_MS).then(() => undefined)]);
    const elapsedMs = (outcome?.at ?? Date.now()) - sigtermAt;
    proxy.restore();
    stream.destroy();
    await stuck;
    await exited;

    const lines = todoApi.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level?: number | string; msg?: string; step?: string });
    const abandoned = lines.filter((line) => /abandoned/.test(line.msg ?? ''));
    writeFigures('shutdown-freeze', {
      graceMs: GRACE_MS,
      shutdownUnderFreezeMs: elapsedMs,
      shutdownBoundMs: BOUND_MS,
      shutdownOverBoundViolations: elapsedMs <= BOUND_MS ? 0 : 1,
      abandonedCloseSteps: abandoned.length,
      abandonedStepNames: abandoned.map((line) => line.step),
    });

    expect({ elapsedMs, withinBound: elapsedMs <= BOUND_MS, exit: outcome && { code: outcome.code, signal: outcome.signal } }).toEqual({
      elapsedMs: expect.any(Number),
      withinBound: true,
      exit: { code: 0, signal: null },
    });
    // Each abandoned step says so once, as a warning naming the step.
    expect(abandoned.length).toBeGreaterThan(0);
    for (const line of abandoned) expect(line).toEqual(expect.objectContaining({ step: expect.any(String) }));
    expect(new Set(abandoned.map((line) => line.step)).size).toBe(abandoned.length);
    expect(lines.some((line) => line.msg === 'Shut down')).toBe(true);
  }, 60_000);
});
