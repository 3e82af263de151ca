/**
 * Issue 33, item 7: a replica killed with -9 while an account holds its cap of realtime streams
 * through it must not keep that account at its cap. Replica A (the built todo-api, a real child
 * process) holds the account's 10 streams; after `kill -9` a stream opened on replica B must be
 * granted within seconds (before: 429 for up to the 60 s lease lifetime, ~45 s measured). A live
 * replica must keep its leases meanwhile: replica C, behind a proxy, holds another account's
 * streams through a 21 s database freeze (one renewal falls inside it and fails) and through a
 * cut connection (it writes its leases back once reconnected).
 *
 * Real PostgreSQL only: a lease belongs to its replica's database session, and PostgreSQL ends a
 * killed client's session at once. Replicas of one embedded database share its one PGlite session,
 * which only a restart of the database (its owning process) ends.
 * Figures: `replica-kill.postgres.json` (scripts/reliability-summary.mjs).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { createTestDatabase, insertUser, ToggleProxy, until, usingRealPostgres, type TestDatabase } from '#libs/testing';
import { TODO_STREAMS_HELD_RETRY_SECONDS, TODO_STREAMS_PER_ACCOUNT } from '../../apps/todo-api/src/todos/todo-stream-leases.service.js';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { buildServices, startBuiltTodoApi, type BuiltServices, type BuiltTodoApi } from '../support/built-services.js';
import { startApp, TEST_JWT_SECRET, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

/** What the issue allows ("within a few seconds"), generously: only proves the slots do not wait for the old lease lifetime. */
const GRANT_BOUND_MS = 10_000;
/** Past the old 60 s lease lifetime, so a failing run reports how long the old code took. */
const GIVE_UP_MS = 65_000;
/** Longer than a renewal interval (20 s), so one renewal runs into the frozen database and fails. */
const FREEZE_MS = 21_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An open stream on a replica (node:http, so a refusal's status shows and the socket is ours to close). */
function openStream(base: string, key: string): Promise<{ status: number; retryAfter: string | undefined; close: () => void; ended: () => boolean }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}/api/v1/todos/events`, { headers: { 'X-API-Key': key } }, (response) => {
      let ended = false;
      response.on('close', () => (ended = true));
      response.resume();
      if (response.statusCode !== 200) response.on('end', () => undefined);
      resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined, close: () => request.destroy(), ended: () => ended });
    });
    request.on('error', reject);
  });
}

(usingRealPostgres() ? describe : describe.skip)('kill -9 of a replica with an account at its stream cap (real PostgreSQL: leases tied to database sessions)', () => {
  let database: TestDatabase;
  let built: BuiltServices;
  let replicaB: TestApp;
  let replicaA: BuiltTodoApi;
  let replicaC: BuiltTodoApi;
  let proxy: ToggleProxy;
  const streams: { close: () => void }[] = [];
  const figures: Record<string, unknown> = {};

  const callerKey = async (): Promise<{ userId: string; key: string }> => {
    const user = await insertUser(replicaB.dataSource);
    await grantBetaAccess(replicaB.dataSource, user.id);
    return { userId: user.id, key: (await insertApiKey(replicaB.dataSource, user.id)).key };
  };
  const leasesOf = async (userId: string): Promise<number> =>
    (await replicaB.dataSource.query(`SELECT count(*)::int AS n FROM todo_stream_leases WHERE user_id = $1`, [userId]))[0].n;
  const open = async (base: string, key: string) => {
    const stream = await openStream(base, key);
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase();
    replicaB = await startApp('todo-api', database.url);
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    const env = { JWT_SECRET: TEST_JWT_SECRET, DB_POOL_SIZE: '4', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' };
    replicaA = await startBuiltTodoApi(built, { ...env, DATABASE_URL: database.url }, '/readyz');
    replicaC = await startBuiltTodoApi(built, { ...env, DATABASE_URL: proxy.wrap(database.url) }, '/readyz');
  }, 120_000);

  afterAll(async () => {
    if (Object.keys(figures).length > 0) writeFigures('replica-kill', figures);
    for (const stream of streams) stream.close();
    replicaA?.stop();
    replicaC?.stop();
    await proxy?.stop();
    await replicaB?.close();
    await database?.drop();
    if (built) rmSync(built.root, { recursive: true, force: true });
  }, 30_000);

  it(`grants a stream on another replica within ${GRANT_BOUND_MS / 1000} s of kill -9 of the replica holding the account's ${TODO_STREAMS_PER_ACCOUNT} streams`, async () => {
    const { userId, key } = await callerKey();
    for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) expect((await open(replicaA.base, key)).status).toBe(200);
    // The cap holds over both replicas, and Retry-After no longer names the lease lifetime.
    const refused = await open(replicaB.baseUrl, key);
    expect({ status: refused.status, retryAfter: Number(refused.retryAfter) }).toEqual({ status: 429, retryAfter: TODO_STREAMS_HELD_RETRY_SECONDS });

    replicaA.child.kill('SIGKILL');
    await replicaA.exited;
    const killedAt = Date.now();
    let grantedAfterMs: number | undefined;
    let refusals = 0;
    while (Date.now() - killedAt < GIVE_UP_MS) {
      const attempt = await open(replicaB.baseUrl, key);
      if (attempt.status === 200) {
        grantedAfterMs = Date.now() - killedAt;
        break;
      }
      expect(attempt.status).toBe(429);
      refusals++;
      await sleep(200);
    }
    figures.streamGrantedAfterKillMs = grantedAfterMs ?? null;
    figures.streamGrantBoundMs = GRANT_BOUND_MS;
    figures.refusalsAfterKill = refusals;
    // Milliseconds from kill -9 to a granted stream (Infinity: still refused after GIVE_UP_MS).
    expect(grantedAfterMs ?? Infinity).toBeLessThanOrEqual(GRANT_BOUND_MS);
    // The dead replica's leases are gone; the new stream's is the only one.
    expect(await leasesOf(userId)).toBe(1);
  }, GIVE_UP_MS + 30_000);

  it('keeps a live replica at the cap through a 21 s database freeze and a failed renewal, and writes its leases back after a cut connection', async () => {
    const { userId, key } = await callerKey();
    const held = [];
    for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) {
      const stream = await open(replicaC.base, key);
      expect(stream.status).toBe(200);
      held.push(stream);
    }
    expect((await open(replicaB.baseUrl, key)).status).toBe(429);

    // Frozen: replica C's sessions stay open (only silent), so its leases keep counting, during and after.
    proxy.freeze();
    await sleep(FREEZE_MS);
    const duringFreeze = (await open(replicaB.baseUrl, key)).status;
    proxy.restore();
    await sleep(500);
    const afterFreeze = (await open(replicaB.baseUrl, key)).status;
    expect({ duringFreeze, afterFreeze, leases: await leasesOf(userId) }).toEqual({ duringFreeze: 429, afterFreeze: 429, leases: TODO_STREAMS_PER_ACCOUNT });

    // Cut: C's session is gone, which the database cannot tell from a death, so B may grant meanwhile;
    // once C reconnects it writes its leases back under its new session and the cap holds again.
    proxy.cut();
    await sleep(1000);
    const duringCut = await open(replicaB.baseUrl, key);
    proxy.restore();
    const extra = duringCut.status === 200 ? 1 : 0;
    await until(async () => (await leasesOf(userId)) === TODO_STREAMS_PER_ACCOUNT + extra, 20_000, "replica C's leases written back after it reconnected");
    expect((await open(replicaB.baseUrl, key)).status).toBe(429);
    expect(held.filter((stream) => stream.ended())).toHaveLength(0);
    figures.liveReplicaLeasesKeptThroughFreezeMs = FREEZE_MS;
    figures.grantedDuringCut = extra;
  }, FREEZE_MS + 60_000);
});
