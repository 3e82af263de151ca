// Paired comparison of two builds of todo-api on a shared, noisy machine: both builds run at the
// same time on one database, and short loads alternate between them (A B B A …), so a change in the
// machine's load hits both sides alike. Prints the service CPU per request of each side per round
// and the medians; CPU per request is the figure to trust, throughput moves with the neighbours.
//
//   cp -r dist /tmp/before   (build A)   …change, npm run build…   cp -r dist /tmp/after
//   DATABASE_URL=… BENCH_AB=/tmp/before,/tmp/after BENCH_AB_SCENARIO=get node bench/ab.mjs
//
// A build directory gets a package.json mapping `#libs/*` into itself, so two builds can run side by side.
//
// BENCH_AB_PROFILE=1 also writes a CPU profile of each side to bench/results/profiles/ (side-a-<pid>.cpuprofile, side-b-…).
//
// BENCH_AB_OTLP=B (or A, or AB) runs that side with OpenTelemetry traces on, exported to a sink on 127.0.0.1
// (a node:http server in this process answering every POST /v1/traces): the cost of tracing on, e.g.
// BENCH_AB=/tmp/after,/tmp/after BENCH_AB_OTLP=B compares one build with tracing off and on.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, freePort, loadWithCpu, rssMb, startProcess, waitForOk } from './lib.mjs';

const adminUrl = process.env.DATABASE_URL;
const builds = (process.env.BENCH_AB ?? '').split(',').filter(Boolean).map((dir) => resolve(dir));
if (!adminUrl || builds.length !== 2) {
  console.error('usage: DATABASE_URL=… BENCH_AB=<build A>,<build B> [BENCH_AB_SCENARIO=get|mcp] [BENCH_AB_ROUNDS=8] [BENCH_AB_SECONDS=4] node bench/ab.mjs');
  process.exit(1);
}
const SCENARIO = process.env.BENCH_AB_SCENARIO ?? 'get';
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 4);
const USERS = 400;
const TODOS_PER_USER = 50;

for (const dir of builds) {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ type: 'module', imports: { '#libs/*': './libs/*/src/index.js' } }));
}
// The key format moved from libs/accounts to todo-api; either build may be the older one.
const keyFormat = ['apps/todo-api/src/api-access/api-key.format.js', 'libs/accounts/src/api-key.format.js'].map((path) => join(builds[0], path)).find((path) => existsSync(path));
const { generateApiKey } = await import(pathToFileURL(keyFormat).href);

async function seed(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const keys = [];
  await client.query('BEGIN');
  for (let i = 0; i < USERS; i++) {
    const { rows } = await client.query(
      `INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $3, 'x') RETURNING id`,
      [`usr_ab_${i}`, `ab_${i}`, `ab-${i}@example.test`],
    );
    await client.query(`INSERT INTO subscriptions (user_id, is_beta_lifetime) VALUES ($1, true)`, [rows[0].id]);
    const key = generateApiKey();
    await client.query(`INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'ab', $2, $3)`, [rows[0].id, key.prefix, key.hash]);
    await client.query(
      `INSERT INTO todos (user_id, text, priority, category, created_at)
       SELECT $1, 'todo number ' || g, 1 + g % 4, 'cat' || g % 5, now() - (g || ' seconds')::interval FROM generate_series(1, $2) g`,
      [rows[0].id, TODOS_PER_USER],
    );
    keys.push(key.key);
  }
  await client.query('COMMIT');
  await client.query('ANALYZE');
  await client.end();
  return keys;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const TRACED = process.env.BENCH_AB_OTLP ?? '';
let otlpSink;
let otlpEndpoint;
if (TRACED) {
  otlpSink = createServer((request, response) => request.resume().on('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')));
  const sinkPort = await freePort();
  await new Promise((resolve) => otlpSink.listen(sinkPort, '127.0.0.1', resolve));
  otlpEndpoint = `http://127.0.0.1:${sinkPort}`;
}

const database = await createDatabase(adminUrl, `bench_ab_${process.pid}`);
const children = [];
try {
  const env = { NODE_ENV: 'production', DATABASE_URL: database.url, JWT_SECRET: 'bench-jwt-secret-0123456789-0123456789-0123456789', LOG_LEVEL: 'warn', DB_POOL_SIZE: '10', REDIS_URL: '', PUBLIC_BASE_URL: 'http://127.0.0.1', FEEDBACK_PUBLIC_BASE_URL: 'http://127.0.0.1' };
  const services = [];
  for (const [index, dir] of builds.entries()) {
    const port = await freePort();
    const tracing = TRACED.includes('AB'[index]) ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint } : {};
    // BENCH_AB_PROFILE=1: a CPU profile of each side, written when it stops (side-a-….cpuprofile, side-b-…).
    const profile = process.env.BENCH_AB_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve('bench/results/profiles')}`, `--cpu-prof-name=side-${'ab'[index]}-${process.pid}.cpuprofile`] : [];
    const child = startProcess(dir, [...profile, '--max-semi-space-size=4', join(dir, 'apps/todo-api/src/main.js')], { ...env, ...tracing, TODO_API_PORT: String(port), HOST: '127.0.0.1' });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/api/v1/status`);
    await sleep(2000);
    services.push({ dir, child, url, idleRss: rssMb(child.pid), cpu: [], rps: [] });
  }
  const keys = await seed(database.url);
  let next = 0;
  const withKey = (req) => ({ ...req, headers: { ...req.headers, 'x-api-key': keys[next++ % keys.length] } });
  const request =
    SCENARIO === 'mcp'
      ? {
          method: 'POST',
          path: '/api/v1/mcp',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_todos', arguments: {} } }),
          setupRequest: withKey,
        }
      : { method: 'GET', path: '/api/v1/todos', setupRequest: withKey };
  console.log(`ab: ${SCENARIO}, ${ROUNDS} rounds of ${SECONDS} s per side (1 s warm-up each), A = ${builds[0]}, B = ${builds[1]}${TRACED ? `, traced: ${TRACED}` : ''}`);
  for (const service of services) console.log(`  idle RSS ${service.dir}: ${service.idleRss} MB`);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? services : [...services].reverse();
    for (const service of order) {
      const result = await loadWithCpu(service.child.pid, { url: service.url, requests: [request], duration: SECONDS, warmup: 1 });
      if (result.non2xx > 0) throw new Error(`${service.dir}: ${result.non2xx} answers were not 2xx (${JSON.stringify(result.statusCodes)})`);
      service.cpu.push(result.cpuUs.service);
      service.rps.push(result.rps);
    }
    console.log(`  round ${round + 1}: service µs/req A ${services[0].cpu.at(-1)} B ${services[1].cpu.at(-1)}   req/s A ${services[0].rps.at(-1)} B ${services[1].rps.at(-1)}`);
  }
  const [a, b] = services;
  const wins = a.cpu.filter((value, i) => b.cpu[i] < value).length;
  console.log(`median service µs/req: A ${median(a.cpu)}  B ${median(b.cpu)}  (B/A ${(median(b.cpu) / median(a.cpu)).toFixed(3)}; B cheaper in ${wins} of ${ROUNDS} rounds)`);
  // Each round's B/A, A and B loaded back to back: the paired figure, steadier than the two medians apart on a busy machine.
  const paired = a.cpu.map((value, i) => b.cpu[i] / value);
  console.log(`median of the rounds' B/A: ${median(paired).toFixed(3)} (lowest ${Math.min(...paired).toFixed(3)}, highest ${Math.max(...paired).toFixed(3)})`);
  console.log(`median req/s:          A ${median(a.rps)}  B ${median(b.rps)}`);
} finally {
  for (const child of children) await child.stop();
  await database.drop().catch(() => undefined);
  otlpSink?.close();
}
