// Where todo-api's heap allocations per request come from: runs the service (a build of dist/, as
// in ab.mjs) with the inspector on, seeds users with keys and todos, loads GET /api/v1/todos (or
// BENCH_ALLOC_SCENARIO=mcp) and samples every allocation, the garbage included, with V8's
// sampling heap profiler. Prints KB per request by package and by function (self).
//
//   DATABASE_URL=… node bench/allocations.mjs [build dir, default dist]
//
// With a small young generation (--max-semi-space-size=4, as shipped) allocation is what the
// garbage collector costs: fewer KB per request, fewer scavenges and fewer objects promoted.
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDatabase, freePort, startProcess, waitForOk } from './lib.mjs';

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  console.error('usage: DATABASE_URL=… node bench/allocations.mjs [build dir]');
  process.exit(1);
}
const dir = resolve(process.argv[2] ?? 'dist');
const SCENARIO = process.env.BENCH_ALLOC_SCENARIO ?? 'get';
const INSPECTOR_PORT = 9333;
// Node 22+ has a WebSocket client built in.
const { WebSocket } = globalThis;
const { generateApiKey } = await import(`${dir}/apps/todo-api/src/api-access/api-key.format.js`);

async function seed(url, users) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const keys = [];
  for (let i = 0; i < users; i++) {
    const { rows } = await client.query(`INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $3, 'x') RETURNING id`, [`usr_alloc_${i}`, `alloc_${i}`, `alloc-${i}@example.test`]);
    await client.query(`INSERT INTO subscriptions (user_id, is_beta_lifetime) VALUES ($1, true)`, [rows[0].id]);
    const key = generateApiKey();
    await client.query(`INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'alloc', $2, $3)`, [rows[0].id, key.prefix, key.hash]);
    await client.query(`INSERT INTO todos (user_id, text, priority, category, created_at) SELECT $1, 'todo number ' || g, 1 + g % 4, 'cat' || g % 5, now() - (g || ' seconds')::interval FROM generate_series(1, 50) g`, [rows[0].id]);
    keys.push(key.key);
  }
  await client.end();
  return keys;
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector() {
  const [target] = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ready) => socket.addEventListener('open', ready));
  let lastId = 0;
  const pending = new Map();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  return {
    call: (method, params = {}) => new Promise((answer) => { pending.set(++lastId, answer); socket.send(JSON.stringify({ id: lastId, method, params })); }),
    close: () => socket.close(),
  };
}

function report(profile, requests) {
  const packageOf = (url) => {
    if (!url) return '(native)';
    const dependency = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
    if (dependency) return dependency[1];
    if (url.startsWith('node:')) return 'node';
    return /((apps|libs)\/[^/]+\/src\/[^/]+)/.exec(url)?.[1] ?? url;
  };
  const byPackage = new Map();
  const byFunction = new Map();
  let total = 0;
  (function walk(node) {
    const { functionName, url, lineNumber } = node.callFrame;
    total += node.selfSize;
    byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + node.selfSize);
    const name = `${functionName || '(anonymous)'} ${packageOf(url)}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  })(profile.head);
  const kb = (bytes) => (bytes / requests / 1024).toFixed(2).padStart(7);
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, bytes]) => `${kb(bytes)} KB  ${name}`).join('\n');
  console.log(`${requests} requests, ${(total / requests / 1024).toFixed(1)} KB allocated per request\n\nby package:\n${top(byPackage, 20)}\n\nby function (self):\n${top(byFunction, 30)}`);
}

const database = await createDatabase(adminUrl, `bench_alloc_${process.pid}`);
const port = await freePort();
const env = { NODE_ENV: 'production', DATABASE_URL: database.url, JWT_SECRET: 'bench-jwt-secret-0123456789-0123456789-0123456789', LOG_LEVEL: 'warn', DB_POOL_SIZE: '10', REDIS_URL: '', TODO_API_PORT: String(port), HOST: '127.0.0.1' };
const child = startProcess('todo-api', ['--max-semi-space-size=4', `--inspect=127.0.0.1:${INSPECTOR_PORT}`, `${dir}/apps/todo-api/src/main.js`], env);
try {
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/api/v1/status`);
  const keys = await seed(database.url, 100);
  let next = 0;
  const withKey = (request) => ({ ...request, headers: { ...request.headers, 'x-api-key': keys[next++ % keys.length] } });
  const request =
    SCENARIO === 'mcp'
      ? { method: 'POST', path: '/api/v1/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_todos', arguments: {} } }), setupRequest: withKey }
      : { method: 'GET', path: '/api/v1/todos', setupRequest: withKey };
  await autocannon({ url, connections: 20, duration: 3, requests: [request] }); // warm-up
  const devtools = await inspector();
  await devtools.call('HeapProfiler.enable');
  await devtools.call('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const load = await autocannon({ url, connections: 20, duration: 4, requests: [request] });
  const { profile } = await devtools.call('HeapProfiler.stopSampling');
  devtools.close();
  if (load.non2xx > 0) throw new Error(`${load.non2xx} answers were not 2xx`);
  report(profile, load.requests.total);
} finally {
  await child.stop();
  await database.drop().catch(() => undefined);
}
