// `npm run bench`: measures the services against the limit of their own stack, in one run,
// on real PostgreSQL. Prints one table (req/s, p50, p99, ratio against a baseline measured
// in the same run, target) and writes bench/results/<timestamp>.json.
//
// Needs DATABASE_URL naming a role that may create databases (the bench makes its own).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcrypt';
import { Redis } from 'ioredis';
import pg from 'pg';
import { generateApiKey } from '../dist/apps/todo-api/src/api-access/api-key.format.js';
import { prehashPassword } from '../dist/libs/identity/src/accounts/password-hasher.service.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, freePort, heapAfterGcMb, load, loadWithCpu, machineLoad, medianAndSpread, rssMb, startProcess, stealPercent, waitForOk } from './lib.mjs';
import { feedbackInsertScenario } from './feedback-insert.mjs';
import { feedbackScenarios } from './feedback-scenarios.mjs';
import { overloadScenario } from './overload.mjs';
import { createWebhookEndpoints, drainBacklog, seedWidgetSites, startWebhookReceiver, statusLoad, waitForDeliveries } from './webhooks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  console.error('npm run bench needs DATABASE_URL (a PostgreSQL role that may CREATE DATABASE).');
  process.exit(1);
}
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
// REDIS_URL: the services keep their rate-limit counters in Redis (under a key prefix of this run) instead of PostgreSQL.
const REDIS_URL = process.env.REDIS_URL || undefined;
const REDIS_KEY_PREFIX = `bench:${process.pid}:`;
const USERS = 400;
const TODOS_PER_USER = 50;
const JWT_SECRET = 'bench-jwt-secret-0123456789-0123456789-0123456789';
const LOGIN_PASSWORD = 'bench-login-password';
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
// Warm starts of the embedded services whose median is the warm-start row.
const WARM_STARTS = Number(process.env.BENCH_WARM_STARTS ?? 5);
// The webhook drain: this many deliveries spread over this many endpoints (all at the bench's receiver).
const WEBHOOK_BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 10_000);
const WEBHOOK_DRAIN_ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 10);

// BENCH_ONLY=reference,todos,todos-get,overload,mcp,login,webhooks,feedback,feedback-insert,startup runs a subset (for profiling one path).
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const want = (group) => !only || only.has(group);
// Throughput pairs run as alternating rounds (A B A B …) of BENCH_ROUND_SECONDS each; the median ratio counts.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? Math.max(3, Math.round(DURATION / 2)));
// A machine whose 1-minute load average is above this before the run is busy: targets are not judged
// (neither met nor missed) unless BENCH_ALLOW_BUSY=1.
const BUSY_LOADAVG = Number(process.env.BENCH_BUSY_LOADAVG ?? 1);
const ALLOW_BUSY = process.env.BENCH_ALLOW_BUSY === '1';
const loadBefore = machineLoad();
const busy = loadBefore.loadavg[0] > BUSY_LOADAVG;
const judging = !busy || ALLOW_BUSY;
const results = [];
const processes = [];
function record(row) {
  if (!judging && row.pass !== undefined) {
    row.unjudged = row.pass;
    delete row.pass;
  }
  results.push(row);
  const fmt = (v) => (v === undefined ? '' : String(v));
  const cpu = row.cpuUs ? `${row.cpuUs.service}/${row.cpuUs.postgres}/${row.cpuUs.generator}` : '';
  const verdict = row.pass !== undefined ? (row.pass ? 'PASS' : 'MISS') : row.unjudged !== undefined ? 'busy' : '';
  const spread = row.spread ? `  spread ${row.spread.min}–${row.spread.max}` : '';
  const cpuRatio = row.cpuRatio ? `  cpu ratio ${row.cpuRatio.median} (${row.cpuRatio.min}–${row.cpuRatio.max})` : '';
  console.log(
    `${row.scenario.padEnd(44)} ${fmt(row.rps).padStart(7)} ${fmt(row.p50).padStart(6)} ${fmt(row.p99).padStart(6)}  ${fmt(row.ratio).padStart(6)}  ${fmt(row.target).padEnd(8)} ${verdict.padEnd(4)}  ${cpu}${spread}${cpuRatio}`,
  );
}

/**
 * Runs `a` and `b` (each returns a loadWithCpu result) in ROUNDS alternating rounds; warm-up only
 * before the first round of each. Returns every round's results and the median rows.
 */
async function alternating(a, b) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const warmup = round === 0 ? undefined : 0;
    const first = await a(warmup);
    const second = await b(warmup);
    rounds.push({ a: first, b: second });
  }
  const medianRow = (side) => {
    const pick = (field) => medianAndSpread(rounds.map((round) => round[side][field])).median;
    const cpu = (field) => Math.round(medianAndSpread(rounds.map((round) => round[side].cpuUs?.[field] ?? NaN)).median ?? 0);
    return { rps: Math.round(pick('rps')), p50: pick('p50'), p99: pick('p99'), non2xx: rounds.reduce((sum, round) => sum + round[side].non2xx, 0), cpuUs: { service: cpu('service'), postgres: cpu('postgres'), generator: cpu('generator') } };
  };
  const ratios = medianAndSpread(rounds.map((round) => round.b.rps / round.a.rps));
  const cpuRatio = medianAndSpread(rounds.map((round) => round.b.cpuUs.service / round.a.cpuUs.service));
  return { a: medianRow('a'), b: medianRow('b'), ratios, cpuRatio, perRound: rounds.map((round) => Math.round((round.b.rps / round.a.rps) * 100) / 100) };
}
const ratio = (a, b) => Math.round((a / b) * 100) / 100;

async function seedTodoData(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const keys = [];
  await client.query('BEGIN');
  const loginHash = await bcrypt.hash(prehashPassword(LOGIN_PASSWORD), 12);
  for (let i = 0; i < USERS; i++) {
    const { rows } = await client.query(
      `INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $3, $4) RETURNING id`,
      [`usr_bench_${i}`, `bench_${i}`, `bench-${i}@example.test`, loginHash],
    );
    const userId = rows[0].id;
    await client.query(`INSERT INTO subscriptions (user_id, is_beta_lifetime) VALUES ($1, true)`, [userId]);
    const key = generateApiKey();
    await client.query(`INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'bench', $2, $3)`, [userId, key.prefix, key.hash]);
    await client.query(
      `INSERT INTO todos (user_id, text, priority, category, created_at)
       SELECT $1, 'todo number ' || g, 1 + g % 4, 'cat' || g % 5, now() - (g || ' seconds')::interval FROM generate_series(1, $2) g`,
      [userId, TODOS_PER_USER],
    );
    keys.push(key.key);
  }
  await client.query('COMMIT');
  await client.query('ANALYZE');
  await client.end();
  return keys;
}

/** Rotates through the key pool so per-key rate limits (600/min) never bind during a run. */
function rotatingKeys(keys) {
  let i = 0;
  return (req) => {
    req.headers = { ...req.headers, 'x-api-key': keys[i++ % keys.length] };
    return req;
  };
}

/**
 * Our services start as the image starts them: through docker/node-entry.sh (its V8 flags, and the old space sized
 * from the container's memory limit), under the Kubernetes manifests' limit (BENCH_MEMORY_LIMIT_MIB, 512) given to it
 * as a cgroup file would. Without a limit V8 sizes the heap from the machine's memory (4 GB on this 24 GB machine) and
 * grows it before collecting: todo-api then held 375 MB of RSS after the load, 210 MB of it garbage a full GC frees.
 */
const MEMORY_LIMIT_MIB = Number(process.env.BENCH_MEMORY_LIMIT_MIB ?? 512);

async function startService(name, script, env) {
  const port = await freePort();
  const portVar = name.startsWith('feedback-export') ? 'FEEDBACK_API_PORT' : name.startsWith('todo-api') ? 'TODO_API_PORT' : 'PORT';
  const ours = script.startsWith('dist/');
  const ports = { [portVar]: String(port), PORT: String(port), HOST: '127.0.0.1' };
  if (!ours) {
    const child = startProcess(name, [join(root, script)], { ...env, ...ports });
    processes.push(child);
    return { child, port, url: `http://127.0.0.1:${port}` };
  }
  // BENCH_PROFILE=1 writes a CPU profile of each of our services to bench/results/profiles/ (open in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(root, 'bench/results/profiles')}`] : [];
  // The inspector (idle until the end) lets the bench force a full GC to read the heap after the load.
  // BENCH_NODE_FLAGS adds V8 flags for an experiment (node-entry.sh keeps a --max-old-space-size given there).
  const nodeOptions = ['--inspect=127.0.0.1:0', ...profile, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)].join(' ');
  // node-entry.sh runs `node` from PATH: this process's (the shipped runtime), not the machine's.
  const path = `${dirname(process.execPath)}:${process.env.PATH}`;
  const child = startProcess(name, [join(root, 'docker/node-entry.sh'), join(root, script)], { ...env, ...ports, PATH: path, NODE_OPTIONS: nodeOptions, MEMORY_LIMIT_FILES: memoryLimitFile }, 'sh');
  processes.push(child);
  return { child, port, url: `http://127.0.0.1:${port}` };
}
// The cgroup-style file node-entry.sh reads the limit from (MEMORY_LIMIT_FILES), written once for every service.
const memoryLimitDir = mkdtempSync(join(tmpdir(), 'bench-memory-limit-'));
const memoryLimitFile = join(memoryLimitDir, 'memory.max');
writeFileSync(memoryLimitFile, String(MEMORY_LIMIT_MIB * 1048576));
process.on('exit', () => rmSync(memoryLimitDir, { recursive: true, force: true }));

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const database = await createDatabase(adminUrl, `bench_${process.pid}`);
  const appEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    DB_POOL_SIZE: '10',
    BCRYPT_COST: '12',
    // Required in production; the bench reaches each service at its own listener, these only name it in links.
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    FEEDBACK_PUBLIC_BASE_URL: 'http://127.0.0.1',
    // The overload scenario reads overload_rejections_total.
    METRICS_TOKEN,
    ...(REDIS_URL ? { REDIS_URL, REDIS_KEY_PREFIX } : { REDIS_URL: '' }),
  };
  const redis = REDIS_URL ? new Redis(REDIS_URL) : undefined;
  const resetRateLimits = async () => {
    if (!redis) return;
    for await (const keys of redis.scanStream({ match: `${REDIS_KEY_PREFIX}*`, count: 1000 })) if (keys.length > 0) await redis.del(...keys);
  };
  const [one, five, fifteen] = loadBefore.loadavg;
  console.log(
    `machine before the run: load average ${one} / ${five} / ${fifteen} (1 / 5 / 15 min); ${busy ? `BUSY (above ${BUSY_LOADAVG}): ${judging ? 'targets judged anyway (BENCH_ALLOW_BUSY=1)' : 'targets are not judged (BENCH_ALLOW_BUSY=1 to judge)'}` : 'idle'}`,
  );
  console.log(`throughput pairs: ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s (BENCH_ROUNDS, BENCH_ROUND_SECONDS); ratio = median, spread = lowest–highest round, cpu ratio = service µs / baseline µs per request`);
  console.log(`bench: ${DURATION} s per scenario, 20 connections, ${USERS} users x ${TODOS_PER_USER} todos, PostgreSQL at ${new URL(adminUrl).host}, rate-limit counters in ${REDIS_URL ? `Redis at ${new URL(REDIS_URL).host}` : 'PostgreSQL'}\n`);
  console.log(`${'scenario'.padEnd(44)} ${'req/s'.padStart(7)} ${'p50'.padStart(6)} ${'p99'.padStart(6)}  ${'ratio'.padStart(6)}  target         cpu µs/req service/postgres/loadgen`);
  try {
    // The bench is the gateway in front of todo-api (the signup flood needs client addresses; see the login group).
    const todo = await startService('todo-api', 'dist/apps/todo-api/src/main.js', { ...appEnv, TRUST_PROXY: '127.0.0.1' });
    await waitForOk(`${todo.url}/api/v1/status`);
    await sleep(2000);
    const todoIdleRss = rssMb(todo.child.pid);
    const keys = await seedTodoData(database.url);
    const baseline = await startService('baseline', 'bench/baseline-server.mjs', { DATABASE_URL: database.url, DB_POOL_SIZE: '10' });
    await waitForOk(`${baseline.url}/status`);

    // Reference points.
    if (want('reference')) {
    const expressRef = await startHello('express');
    const nestRef = await startHello('nest');
    const expressLoad = await load({ url: `${expressRef}/hello`, duration: DURATION });
    record({ scenario: 'reference: bare Express hello', ...expressLoad });
    const nestLoad = await load({ url: `${nestRef}/hello`, duration: DURATION });
    record({ scenario: 'reference: bare Nest hello', ...nestLoad, ratio: ratio(nestLoad.rps, expressLoad.rps) });
    }

    /** One request shape against the hand-written baseline in this run: the throughput ratio against its floor. */
    async function versusBaseline(request, { baseLabel, ourLabel, floor }) {
      const pair = await alternating(
        (warmup) => loadWithCpu(baseline.child.pid, { url: baseline.url, requests: [request], duration: ROUND_SECONDS, warmup }),
        (warmup) => loadWithCpu(todo.child.pid, { url: todo.url, requests: [request], duration: ROUND_SECONDS, warmup }),
      );
      record({ scenario: baseLabel, ...pair.a });
      const measured = pair.ratios.median;
      record({ scenario: ourLabel, ...pair.b, ratio: measured, spread: pair.ratios, cpuRatio: pair.cpuRatio, perRound: pair.perRound, target: `>= ${floor}`, pass: measured >= floor && pair.b.non2xx === 0 });
    }

    const listRequest = { method: 'GET', path: '/api/v1/todos', setupRequest: rotatingKeys(keys) };
    if (want('todos') || want('todos-get')) {
      await versusBaseline(listRequest, { baseLabel: 'baseline: GET /todos (node:http + pg)', ourLabel: 'todo-api: GET /api/v1/todos', floor: 0.65 });
    }

    if (want('overload')) {
      // Open-loop GET /todos at 1x, 2x and 3x the capacity measured closed-loop (bench/overload.mjs).
      const rows = await overloadScenario({
        url: todo.url,
        path: '/api/v1/todos',
        headersOf: (i) => ({ 'x-api-key': keys[i % keys.length] }),
        setupRequest: rotatingKeys(keys),
        seconds: DURATION,
        ratio,
        metricsToken: METRICS_TOKEN,
      });
      for (const row of rows) record(row);
    }

    if (want('todos')) {

    // POST /api/v1/todos.
    const createRequest = {
      method: 'POST',
      path: '/api/v1/todos',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'bench todo', priority: 2, category: 'bench' }),
      setupRequest: rotatingKeys(keys),
    };
    await versusBaseline(createRequest, { baseLabel: 'baseline: POST /todos (node:http + pg)', ourLabel: 'todo-api: POST /api/v1/todos', floor: 0.5 });
    }

    if (want('mcp')) {
    // MCP tools/call list_todos against REST GET (both measured now, after the POST run grew the data).
    const mcpRequest = {
      method: 'POST',
      path: '/api/v1/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_todos', arguments: {} } }),
      setupRequest: rotatingKeys(keys),
    };
    const pair = await alternating(
      (warmup) => loadWithCpu(todo.child.pid, { url: todo.url, requests: [listRequest], duration: ROUND_SECONDS, warmup }),
      (warmup) => loadWithCpu(todo.child.pid, { url: todo.url, requests: [mcpRequest], duration: ROUND_SECONDS, warmup }),
    );
    record({ scenario: 'todo-api: GET /api/v1/todos (again)', ...pair.a });
    const mcpRatio = pair.ratios.median;
    record({ scenario: 'todo-api: MCP tools/call list_todos', ...pair.b, ratio: mcpRatio, spread: pair.ratios, cpuRatio: pair.cpuRatio, perRound: pair.perRound, target: '>= 0.75', pass: mcpRatio >= 0.75 && pair.b.non2xx === 0 });
    }

    if (want('login')) {
    // Login storm: status latency during many concurrent bcrypt logins.
    const idle = await load({ url: `${todo.url}/api/v1/status`, connections: 5, duration: 5 });
    record({ scenario: 'todo-api: GET /status idle', ...idle });
    /** p99 of GET /status while `request` (bcrypt-bound) loads todo-api from 20 connections for 10 s, over its idle p99. */
    async function statusUnder(request, { loadLabel, ratioLabel }) {
      const pressure = load({ url: todo.url, connections: 20, duration: 10, warmup: 0, requests: [request] });
      await sleep(1000);
      const during = await load({ url: `${todo.url}/api/v1/status`, connections: 5, duration: 7, warmup: 0 });
      const pressureResult = await pressure;
      record({ scenario: loadLabel, ...pressureResult });
      const measured = ratio(during.p99, Math.max(1, idle.p99));
      record({ scenario: ratioLabel, ...during, ratio: measured, target: '<= 3', pass: measured <= 3 });
      return pressureResult;
    }
    await statusUnder(
      {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: `bench-${Math.floor(Math.random() * USERS)}@example.test`, password: LOGIN_PASSWORD }) }),
      },
      { loadLabel: 'todo-api: POST /auth/login storm (bcrypt 12)', ratioLabel: 'todo-api: GET /status p99 during storm / idle' },
    );

    // Signup flood: 20 connections creating accounts (a bcrypt 12 hash each, queued behind sign-ins; 503 with
    // Retry-After when too many wait). Sign-ups are limited to 30 per hour per client IP, and the bench plays the
    // gateway the service is configured to trust (TRUST_PROXY=127.0.0.1 above, as README's deployment section
    // says): every sign-up comes from a client address of its own in X-Forwarded-For, each well within its budget.
    // The storm's last logins are still queued for a hash when autocannon stops: let them finish first.
    await sleep(10_000);
    let signup = 0;
    const floodResult = await statusUnder(
      {
        method: 'POST',
        path: '/api/v1/auth/signup',
        setupRequest: (req) => {
          const n = signup++;
          return {
            ...req,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
            body: JSON.stringify({ email: `flood-${process.pid}-${n}@example.test`, password: `${LOGIN_PASSWORD}-${n}` }),
          };
        },
      },
      { loadLabel: 'todo-api: POST /auth/signup flood (bcrypt 12)', ratioLabel: 'todo-api: GET /status p99 during signups / idle' },
    );
    console.log(`${''.padEnd(44)} signup answers by status: ${JSON.stringify(floodResult.statusCodes)}`);
    }

    if (want('webhooks')) await webhookScenarios();

    /**
     * Issue 30's targets on a todo-api of their own (its own database, so no other replica's dispatcher claims its
     * deliveries) with NODE_ENV=test: the loopback switch that lets endpoints point at the bench's receiver is
     * refused in production, and so is http. Everything else is as above (bcrypt 12, pool 10, LOG_LEVEL=warn).
     */
    async function webhookScenarios() {
      const whDatabase = await createDatabase(adminUrl, `bench_${process.pid}_webhooks`);
      const receiver = await startWebhookReceiver();
      let service;
      let feedbackService;
      try {
        service = await startService('todo-api-webhooks', 'dist/apps/todo-api/src/main.js', { ...appEnv, DATABASE_URL: whDatabase.url, NODE_ENV: 'test', WEBHOOKS_LOOPBACK: 'true' });
        await waitForOk(`${service.url}/api/v1/status`);
        const whKeys = await seedTodoData(whDatabase.url);
        // Half the accounts have an enabled endpoint subscribed to every todo event; the other half none.
        const onKeys = whKeys.slice(0, USERS / 2);
        const offKeys = whKeys.slice(USERS / 2);
        const endpointIds = await createWebhookEndpoints(service.url, onKeys, receiver.url);
        const post = (keyPool) => ({
          method: 'POST',
          path: '/api/v1/todos',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'bench todo', priority: 2, category: 'bench' }),
          setupRequest: rotatingKeys(keyPool),
        });
        await webhookWriteCost({ label: 'todo-api: POST /api/v1/todos', service, on: post(onKeys), off: post(offKeys) });
        console.log(`${''.padEnd(44)} receiver got ${receiver.stats().received} deliveries from the write rounds`);

        // Widget feedback on a feedback-export of its own (same database; its dispatcher claims only site endpoints):
        // sites with an endpoint subscribed to every site event over sites without one. The bench is the gateway
        // (TRUST_PROXY), each submission from an address of its own, so the 20/min widget budget per IP never refuses.
        feedbackService = await startService('feedback-export-webhooks', 'dist/apps/feedback-export/src/main.js', { ...appEnv, DATABASE_URL: whDatabase.url, NODE_ENV: 'test', WEBHOOKS_LOOPBACK: 'true', TRUST_PROXY: '127.0.0.1' });
        await waitForOk(`${feedbackService.url}/api/v1/status`);
        const sites = await seedWidgetSites(whDatabase.url, feedbackService.url, receiver.url, USERS / 2);
        let submission = 0;
        const widget = (siteKeys) => ({
          method: 'POST',
          path: '/api/v1/widget/feedback',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const n = submission++;
            return {
              ...req,
              headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
              body: JSON.stringify({ siteKey: siteKeys[n % siteKeys.length], type: 'bug', message: 'bench feedback', pageUrl: 'https://bench.example/' }),
            };
          },
        });
        const receivedBefore = receiver.stats().received;
        await webhookWriteCost({ label: 'feedback-export: POST /api/v1/widget/feedback', service: feedbackService, on: widget(sites.on), off: widget(sites.off) });
        await waitForDeliveries(whDatabase.url, 'site');
        console.log(`${''.padEnd(44)} receiver got ${receiver.stats().received - receivedBefore} deliveries from the widget rounds`);
        await feedbackService.child.stop();
        feedbackService = undefined;

        // Delivery throughput: a backlog released at once, drained with nothing else running.
        const drainEndpoints = endpointIds.slice(0, WEBHOOK_DRAIN_ENDPOINTS);
        const drain = await drainBacklog({ databaseUrl: whDatabase.url, servicePid: service.child.pid, endpointIds: drainEndpoints, count: WEBHOOK_BACKLOG, receiver });
        record({
          scenario: `webhooks: drain ${WEBHOOK_BACKLOG} to ${drainEndpoints.length} endpoints (deliveries/s)`,
          rps: drain.perSecond,
          ratio: drain.perSecond,
          cpuUs: drain.cpuUs,
          target: '>= 500',
          pass: drain.perSecond >= 500 && drain.notDelivered === 0,
        });
        console.log(`${''.padEnd(44)} drained in ${drain.seconds} s: ${drain.delivered} delivered, ${drain.notDelivered} not, receiver got ${drain.received}`);

        // The same drain while 5 connections poll /api/v1/status: its p99 over the idle p99.
        const idle = await load({ url: `${service.url}/api/v1/status`, connections: 5, duration: 5 });
        record({ scenario: 'todo-api-webhooks: GET /status idle', ...idle });
        const seconds = Math.max(2, Math.floor(drain.seconds * 0.8));
        const busyDrain = await drainBacklog({ databaseUrl: whDatabase.url, servicePid: service.child.pid, endpointIds: drainEndpoints, count: WEBHOOK_BACKLOG, receiver, during: () => statusLoad(service.url, seconds) });
        const measured = ratio(busyDrain.during.p99, Math.max(1, idle.p99));
        record({ scenario: 'webhooks: /status p99 during the drain / idle', ...busyDrain.during, ratio: measured, target: '<= 3', pass: measured <= 3 && busyDrain.notDelivered === 0 });
        console.log(`${''.padEnd(44)} that drain: ${busyDrain.perSecond} deliveries/s, ${busyDrain.seconds} s (status load ${seconds} s), ${busyDrain.notDelivered} not delivered`);
      } finally {
        await feedbackService?.child.stop();
        await service?.child.stop();
        await receiver.close();
        await whDatabase.drop().catch(() => undefined);
      }
    }

    /**
     * What webhooks cost a write path: the same request by owners with an enabled endpoint subscribed to its events
     * (`on`) and by owners without one (`off`), in alternating rounds against one service; the ratio on / off. The
     * deliveries the `on` rounds queue are sent meanwhile by the same process (to the bench's receiver), so their cost
     * counts too. Another event log is one more call: e.g. widget feedback with feedback-export, sites with and
     * without an endpoint.
     */
    async function webhookWriteCost({ label, service, on, off, floor = 0.9 }) {
      const pair = await alternating(
        (warmup) => loadWithCpu(service.child.pid, { url: service.url, requests: [off], duration: ROUND_SECONDS, warmup }),
        (warmup) => loadWithCpu(service.child.pid, { url: service.url, requests: [on], duration: ROUND_SECONDS, warmup }),
      );
      record({ scenario: `${label}, webhooks off`, ...pair.a });
      const measured = pair.ratios.median;
      record({ scenario: `${label}, webhooks on / off`, ...pair.b, ratio: measured, spread: pair.ratios, cpuRatio: pair.cpuRatio, perRound: pair.perRound, target: `>= ${floor}`, pass: measured >= floor && pair.b.non2xx === 0 });
    }

    // Feedback export scenarios (their own data).
    const feedback = await startService('feedback-export', 'dist/apps/feedback-export/src/main.js', appEnv);
    await waitForOk(`${feedback.url}/api/v1/status`);
    await sleep(2000);
    const feedbackIdleRss = rssMb(feedback.child.pid);
    if (want('feedback')) {
      const feedbackBaseline = await startService('feedback-baseline', 'bench/feedback-baseline-server.mjs', { DATABASE_URL: database.url, DB_POOL_SIZE: '10', JWT_SECRET });
      await waitForOk(`${feedbackBaseline.url}/status`);
      const scenarios = await feedbackScenarios({
        databaseUrl: database.url,
        feedbackUrl: feedback.url,
        feedbackPid: feedback.child.pid,
        baselineUrl: feedbackBaseline.url,
        baselinePid: feedbackBaseline.child.pid,
        ratio,
        resetRateLimits,
      });
      for (const row of scenarios) record(row);
    }
    if (want('feedback-insert')) for (const row of await feedbackInsertScenario({ databaseUrl: database.url, seconds: DURATION, ratio })) record(row);

    // Memory per app: idle after start (the target), and after the load above (for reference).
    for (const [name, idleMb, service] of [['todo-api', todoIdleRss, todo], ['feedback-export', feedbackIdleRss, feedback]]) {
      record({ scenario: `${name}: idle RSS after start (MB)`, ratio: idleMb, target: '<= 150', pass: idleMb <= 150 });
      const afterMb = rssMb(service.child.pid);
      const heapMb = await heapAfterGcMb(service.child).catch(() => undefined);
      record({ scenario: `${name}: RSS after the load (MB)`, ratio: afterMb, target: '<= 256', pass: afterMb <= 256 });
      record({ scenario: `${name}: heap used after a forced GC (MB)`, ratio: heapMb });
    }
  } finally {
    for (const child of processes) await child.stop();
    await database.drop().catch(() => undefined);
    await resetRateLimits().catch(() => undefined);
    redis?.disconnect();
  }

  // Start to ready on a new, then a warm embedded data directory (both apps, one process). One start
  // varies by half a second here, so the warm row is the median of WARM_STARTS, with their spread.
  if (want('startup')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
  try {
    const embeddedEnv = { DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn', DATABASE_URL: '' };
    const secondsToReady = async () => {
      const todoPort = await freePort();
      const feedbackPort = await freePort();
      const started = Date.now();
      const child = startProcess('embedded', ['--max-semi-space-size=4', join(root, 'dist/apps/main.js')], { ...embeddedEnv, TODO_API_PORT: String(todoPort), FEEDBACK_API_PORT: String(feedbackPort), HOST: '127.0.0.1' });
      await waitForOk(`http://127.0.0.1:${todoPort}/api/v1/status`, 60_000);
      await waitForOk(`http://127.0.0.1:${feedbackPort}/api/v1/status`, 60_000);
      const seconds = (Date.now() - started) / 1000;
      await child.stop();
      return seconds;
    };
    const first = Math.round((await secondsToReady()) * 10) / 10;
    record({ scenario: 'embedded start to ready, first start (s)', ratio: first, target: '<= 10', pass: first <= 10 });
    const warm = [];
    for (let start = 0; start < WARM_STARTS; start++) warm.push(await secondsToReady());
    const { median, min, max } = medianAndSpread(warm);
    record({ scenario: `embedded start to ready, warm data dir (s, median of ${WARM_STARTS})`, ratio: median, spread: { min, max }, target: '<= 3', pass: median <= 3 });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  }

  const outDir = join(root, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${stamp}.json`);
  const loadAfter = machineLoad();
  const machine = { loadavgBefore: loadBefore.loadavg, loadavgAfter: loadAfter.loadavg, stealPercent: stealPercent(loadBefore, loadAfter), busy, judged: judging };
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), durationSeconds: DURATION, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, rateLimitStorage: REDIS_URL ? "redis" : "postgres", machine, results }, null, 2));
  const missed = results.filter((r) => r.pass === false).length;
  console.log(`\nmachine: load average before ${loadBefore.loadavg.join(' / ')}, after ${loadAfter.loadavg.join(' / ')}; CPU steal during the run ${machine.stealPercent}%`);
  const unjudged = results.filter((r) => r.unjudged !== undefined).length;
  if (unjudged > 0) console.log(`bench: the machine was busy (1-min load average ${one} > ${BUSY_LOADAVG}): ${unjudged} targets not judged; BENCH_ALLOW_BUSY=1 judges them anyway`);
  console.log(`bench: ${results.filter((r) => r.pass === true).length} targets met, ${missed} missed; results in ${file}`);
}

async function startHello(kind) {
  const port = await freePort();
  const child = startProcess(`hello-${kind}`, [join(root, 'bench/hello-servers.mjs'), kind], { PORT: String(port) });
  processes.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/hello`);
  return url;
}

main().catch((error) => {
  console.error(error);
  for (const child of processes) child.kill('SIGKILL');
  process.exit(1);
});
