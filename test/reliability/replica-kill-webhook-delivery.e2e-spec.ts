/**
 * Issue 30: a kill -9 of the replica that is delivering a webhook backlog loses no delivery. Two todo-api replicas
 * (the built service, real child processes) share one PostgreSQL database and both run the dispatcher; a backlog of
 * deliveries to one endpoint goes to a receiver this test starts, which answers each request a little late so that
 * the backlog takes a while; after a sixth of it, it holds its answers. The replica that sent the latest request (found
 * from the request's TCP connection) is killed with SIGKILL while that request waits for its answer: the rows it had claimed stay pending under its lease,
 * and once the lease passes the survivor claims and sends them. Every queued delivery must reach the receiver at
 * least once; duplicates are allowed (at-least-once) and counted.
 *
 * PostgreSQL only: processes sharing one embedded database would share its one PGlite session, and an embedded
 * deployment is one process (nothing to hand over to).
 * The claim lease is 50 × WEBHOOK_ATTEMPT_TIMEOUT_MS + 10 s: 35 s here (500 ms attempts).
 * Figures: `replica-kill-webhooks.postgres.json` (scripts/reliability-summary.mjs).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#libs/database';
import { createTestDatabase, insertUser, until, usingRealPostgres, type TestDatabase } from '#libs/testing';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { buildServices, startBuiltTodoApi, type BuiltServices, type BuiltApp } from '../support/built-services.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

const BACKLOG = 600;
const ATTEMPT_TIMEOUT_MS = 500;
/** The engine's claim lease with that timeout (CLAIM_BATCH × timeout + margin). */
const LEASE_MS = 50 * ATTEMPT_TIMEOUT_MS + 10_000;
/** Generous: the lease, then the survivor's sending of what is left; only proves the backlog does not stay stuck. */
const DRAIN_BOUND_MS = LEASE_MS + 60_000;
/** The receiver answers each request this late (the backlog takes a while); after this many it answers none until released. */
const ANSWER_DELAY_MS = 20;
const FREEZE_AFTER = BACKLOG / 6;

interface Hit {
  eventId: string;
  /** The sender's side of the TCP connection. */
  remotePort: number;
  at: number;
}

/** The process (among `pids`) owning the TCP connection from local port `port` to `remotePort` on 127.0.0.1. */
function ownerOfConnection(port: number, remotePort: number, pids: number[]): number | undefined {
  const hex = (value: number) => value.toString(16).toUpperCase().padStart(4, '0');
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((row) => row.trim().split(/\s+/))
    .find((fields) => fields[1]?.endsWith(`:${hex(port)}`) && fields[2]?.endsWith(`:${hex(remotePort)}`));
  if (!line) return undefined;
  const socket = `socket:[${line[9]}]`;
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === socket;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

(usingRealPostgres() ? describe : describe.skip)('kill -9 of the replica delivering a webhook backlog (real PostgreSQL, two replicas)', () => {
  let database: TestDatabase;
  let built: BuiltServices;
  let dataSource: DataSource;
  const replicas: BuiltApp[] = [];
  let server: Server;
  let receiverPort: number;
  const hits: Hit[] = [];
  /** Answers held back while the receiver is frozen. */
  let held: (() => void)[] | undefined;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_JWT_SECRET,
      DB_POOL_SIZE: '4',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      WEBHOOKS_LOOPBACK: 'true',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS),
    };
    // One at a time: the first applies the migrations.
    replicas.push(await startBuiltTodoApi(built, env, '/readyz'));
    replicas.push(await startBuiltTodoApi(built, env, '/readyz'));
    dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, applicationName: 'replica-kill-webhooks-test' }));
    await dataSource.initialize();
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        hits.push({ eventId: String(request.headers['webhook-id']), remotePort: request.socket.remotePort ?? 0, at: Date.now() });
        const answer = () => response.writeHead(204).end();
        if (hits.length === FREEZE_AFTER) held = [];
        if (held) held.push(answer);
        else setTimeout(answer, ANSWER_DELAY_MS);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverPort = (server.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    if (Object.keys(figures).length > 0) writeFigures('replica-kill-webhooks', figures);
    for (const replica of replicas) replica.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await dataSource?.destroy();
    await database?.drop();
    if (built) rmSync(built.root, { recursive: true, force: true });
  }, 30_000);

  it(`delivers every one of ${BACKLOG} queued deliveries at least once after kill -9 of the delivering replica; the survivor takes over its claimed rows when the lease passes`, async () => {
    const user = await insertUser(dataSource);
    await grantBetaAccess(dataSource, user.id);
    const { key } = await insertApiKey(dataSource, user.id);
    const created = await fetch(`${replicas[0].base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook` }),
    });
    expect(created.status).toBe(201);

    // The backlog: events written to the log in one transaction; its trigger queues one delivery each.
    await dataSource.query(
      `INSERT INTO todo_events (user_id, type, payload) SELECT $1, 'todo.created', jsonb_build_object('id', g, 'text', 'backlog ' || g) FROM generate_series(1, $2) g`,
      [user.id, BACKLOG],
    );
    const queued = new Set<string>((await dataSource.query(`SELECT event_id AS "eventId" FROM webhook_deliveries`)).map((row: { eventId: string }) => row.eventId));
    expect(queued.size).toBe(BACKLOG);

    // Mid-backlog: the replica that sent the latest request is delivering (its batch claimed, none of it written yet),
    // and that request waits for an answer the frozen receiver holds back.
    await until(() => held !== undefined, 60_000, 'the replicas to deliver a sixth of the backlog');
    const inFlight = hits[hits.length - 1];
    const pids = replicas.map((replica) => replica.child.pid!);
    const victimPid = ownerOfConnection(inFlight.remotePort, receiverPort, pids);
    expect(pids).toContain(victimPid);
    const victim = replicas.find((replica) => replica.child.pid === victimPid)!;
    victim.child.kill('SIGKILL');
    const exit = await victim.exited;
    expect(exit.signal).toBe('SIGKILL');
    const killedAt = Date.now();
    const receivedBeforeKill = new Set(hits.map((hit) => hit.eventId)).size;
    // Thawed: the survivor's held request is answered (the killed replica's connection is gone).
    for (const answer of held!.splice(0)) answer();
    held = undefined;

    await until(
      async () => (await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`))[0].n === BACKLOG,
      DRAIN_BOUND_MS,
      'every delivery to be marked delivered by the survivor',
    );
    const drainedAfterKillMs = Date.now() - killedAt;
    const received = new Set(hits.map((hit) => hit.eventId));
    const reclaimed = (await dataSource.query(`SELECT event_id AS "eventId" FROM webhook_deliveries WHERE attempts >= 2`)).map((row: { eventId: string }) => row.eventId);
    Object.assign(figures, {
      backlog: BACKLOG,
      receivedBeforeKill,
      requests: hits.length,
      duplicates: hits.length - received.size,
      reclaimedAfterLease: reclaimed.length,
      leaseMs: LEASE_MS,
      drainedAfterKillMs,
    });

    // None lost: every queued event id reached the receiver.
    expect([...queued].filter((eventId) => !received.has(eventId))).toEqual([]);
    // The request in flight at the kill was sent again, by the survivor (the only process left), after the lease.
    const resent = hits.filter((hit) => hit.eventId === inFlight.eventId && hit.at > killedAt);
    expect(resent.length).toBeGreaterThanOrEqual(1);
    expect(reclaimed).toContain(inFlight.eventId);
  }, DRAIN_BOUND_MS + 90_000);
});
