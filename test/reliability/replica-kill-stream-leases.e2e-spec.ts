/**
 * Issue 33, item 7: a replica killed with -9 while an account holds its cap of realtime streams
 * through it must not keep that account at its cap. Replica A (the built todo-api, a real child
 * process) holds the account's 10 streams; after `kill -9` a stream opened on replica B must be
 * granted within seconds (before: 429 for up to the 60 s lease lifetime, ~45 s measured). A live
 * replica must keep its leases meanwhile: replica C, behind a proxy, holds another account's
 * streams through a 21 s database freeze (one renewal falls inside it and fails) and through a
 * cut connection (it writes its leases back once reconnected).
 *
 * Replicas on real PostgreSQL: a lease belongs to its replica's database session, and PostgreSQL
 * ends a killed client's session at once. Processes sharing one embedded database share its one
 * PGlite session, so that case is PostgreSQL's alone; on the embedded database the process owns
 * its database, and the case is its own restart after kill -9: the new run's session is not the
 * old one, so the old run's leases no longer count.
 * Figures: `replica-kill.<database>.json` (scripts/reliability-summary.mjs).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { dataSourceOptions, EmbeddedPostgres } from '#libs/database';
import { createTestDatabase, insertUser, ToggleProxy, until, usingRealPostgres, type TestDatabase } from '#libs/testing';
import { TODO_STREAMS_HELD_RETRY_SECONDS, TODO_STREAMS_PER_ACCOUNT } from '../../apps/todo-api/src/todos/todo-stream-leases.service.js';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { buildServices, startBuiltTodoApi, type BuiltServices, type BuiltApp } from '../support/built-services.js';
import { startApp, TEST_JWT_SECRET, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

/** What the issue allows ("within a few seconds"), generously: only proves the slots do not wait for the old lease lifetime. */
const GRANT_BOUND_MS = 10_000;
/** Past the old 60 s lease lifetime, so a failing run reports how long the old code took. */
const GIVE_UP_MS = 65_000;
/** Longer than a renewal interval (20 s), so one renewal runs into the frozen database and fails. */
const FREEZE_MS = 21_000;

/** An open stream on a replica (node:http, so a refusal's status shows and the socket is ours to close). */
function openStream(
  base: string,
  key: string,
): Promise<{ status: number; retryAfter: string | undefined; close: () => void; ended: () => boolean; received: () => string }> {
  return new Promise((resolve, reject) => {
    // No keep-alive agent: every socket is this stream's, closed with it.
    const request = http.get(`${base}/api/v1/todos/events`, { headers: { 'X-API-Key': key }, agent: false }, (response) => {
      let ended = false;
      let text = '';
      response.on('close', () => (ended = true));
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      resolve({
        status: response.statusCode ?? 0,
        retryAfter: response.headers['retry-after'] as string | undefined,
        close: () => request.destroy(),
        ended: () => ended,
        received: () => text,
      });
    });
    request.on('error', reject);
  });
}

(usingRealPostgres() ? describe : describe.skip)('kill -9 of a replica with an account at its stream cap (real PostgreSQL: leases tied to database sessions)', () => {
  let database: TestDatabase;
  let built: BuiltServices;
  let replicaB: TestApp;
  let replicaA: BuiltApp;
  let replicaC: BuiltApp;
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
    // C's queries give up after 2 s, so the renewal that falls inside the freeze fails rather than waits it out.
    replicaC = await startBuiltTodoApi(built, { ...env, DATABASE_URL: proxy.wrap(database.url), DB_QUERY_TIMEOUT_MS: '2000' }, '/readyz');
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
    const held: Awaited<ReturnType<typeof openStream>>[] = [];
    for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) {
      const stream = await open(replicaC.base, key);
      expect(stream.status).toBe(200);
      held.push(stream);
    }
    expect((await open(replicaB.baseUrl, key)).status).toBe(429);
    // Every stream has delivered a change: C's reads for them are done, so the freeze meets no read of the
    // event log (one that fails ends the user's streams, for EventSource to reconnect: not what is tested here).
    await replicaB.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'before the freeze', priority: 1, category: 'leases' }).expect(201);
    await until(() => held.every((stream) => stream.received().includes('todo.created')), 10_000, 'the change on every stream of replica C');

    // Frozen: replica C's sessions stay open (only silent), so its leases keep counting, during and after.
    proxy.freeze();
    await sleep(FREEZE_MS);
    const duringFreeze = (await open(replicaB.baseUrl, key)).status;
    proxy.restore();
    await sleep(500);
    const afterFreeze = (await open(replicaB.baseUrl, key)).status;
    const endedStreams = held.filter((stream) => stream.ended()).length;
    expect({ duringFreeze, afterFreeze, leases: await leasesOf(userId), endedStreams }).toEqual({ duringFreeze: 429, afterFreeze: 429, leases: TODO_STREAMS_PER_ACCOUNT, endedStreams: 0 });

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

(usingRealPostgres() ? describe.skip : describe)('kill -9 of the process that owns the embedded database, with an account at its stream cap', () => {
  let built: BuiltServices;
  let dataDir: string;
  let first: BuiltApp | undefined;
  let second: BuiltApp | undefined;
  const streams: { close: () => void }[] = [];
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    built = buildServices();
    dataDir = mkdtempSync(join(tmpdir(), 'todo-api-owned-'));
  }, 60_000);

  afterAll(() => {
    if (Object.keys(figures).length > 0) writeFigures('replica-kill', figures);
    for (const stream of streams) stream.close();
    first?.stop();
    second?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (built) rmSync(built.root, { recursive: true, force: true });
  });

  it('grants a stream as soon as the restarted process answers: the killed run\'s leases are not counted', async () => {
    // The account, written into the data directory before the app owns it.
    const embedded = await EmbeddedPostgres.start({ dataDir: join(dataDir, 'pg'), maxConnections: 4 });
    const dataSource = new DataSource(dataSourceOptions({ url: embedded.url, poolSize: 2, applicationName: 'replica-kill-test' }));
    let key: string;
    try {
      await dataSource.initialize();
      await dataSource.runMigrations();
      const user = await insertUser(dataSource);
      await grantBetaAccess(dataSource, user.id);
      key = (await insertApiKey(dataSource, user.id)).key;
    } finally {
      await dataSource.destroy();
      await embedded.stop();
    }
    const env = { JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: dataDir, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' };
    first = await startBuiltTodoApi(built, env, '/readyz');
    for (let i = 0; i < TODO_STREAMS_PER_ACCOUNT; i++) {
      const stream = await openStream(first.base, key);
      streams.push(stream);
      expect(stream.status).toBe(200);
    }
    const refused = await openStream(first.base, key);
    streams.push(refused);
    expect({ status: refused.status, retryAfter: Number(refused.retryAfter) }).toEqual({ status: 429, retryAfter: TODO_STREAMS_HELD_RETRY_SECONDS });

    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    second = await startBuiltTodoApi(built, env, '/readyz');
    const restartMs = Date.now() - killedAt;
    const stream = await openStream(second.base, key);
    streams.push(stream);
    figures.restartAfterKillMs = restartMs;
    figures.streamGrantedAfterKillMs = stream.status === 200 ? Date.now() - killedAt : null;
    figures.refusalsAfterRestart = stream.status === 200 ? 0 : 1;
    expect({ status: stream.status, retryAfter: stream.retryAfter }).toEqual({ status: 200, retryAfter: undefined });
  }, 120_000);
});
