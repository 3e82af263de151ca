// Shared pieces of the benchmark harness: processes, ports, load, database.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}


/** Polls `url` until it answers 200, or fails after `timeoutMs`. Returns the milliseconds waited. */
export async function waitForOk(url, timeoutMs = 30_000) {
  const started = Date.now();
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return Date.now() - started;
    } catch {
      // not up yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${url} not ready within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Starts a Node process (or `command`, which execs one); its output is kept (and printed if it dies early). */
export function startProcess(name, args, env, command = process.execPath) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.output = output;
  child.stdout.on('data', (d) => output.push(d.toString()));
  child.stderr.on('data', (d) => output.push(d.toString()));
  child.on('exit', (code, signal) => {
    if (!child.stopping) console.error(`[bench] ${name} exited (${code ?? signal}):\n${output.join('').slice(-4000)}`);
  });
  child.stop = async () => {
    child.stopping = true;
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return child;
}

/** Resident set size of a process in MB, from /proc. */
export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Seconds of unrecorded load before each measured one, so both sides of a ratio are measured warm (JIT, pools, caches). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 2);

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by each PostgreSQL process of the machine (the bench's server is local), by pid. */
export function postgresCpuByPid() {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(entry, cpuSeconds(entry));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/** PostgreSQL CPU between two samples: backends that ended in between are left out, new ones count whole. */
export function postgresCpuBetween(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Starts counting the CPU of process `pid` and of PostgreSQL; the returned function gives the seconds used since. */
export function cpuMeter(pid) {
  const before = { service: cpuSeconds(pid), postgres: postgresCpuByPid() };
  return () => ({ service: cpuSeconds(pid) - before.service, postgres: postgresCpuBetween(before.postgres, postgresCpuByPid()) });
}

/**
 * Runs a load against the service with process id `pid` and adds where the CPU went, in
 * microseconds per request: the service, PostgreSQL, and the load generator (this process).
 * On a machine where all three share the cores, this shows which one a ratio is bound by.
 */
export async function loadWithCpu(pid, options) {
  let before;
  const result = await load({ ...options, onMeasureStart: () => (before = { service: cpuSeconds(pid), postgres: postgresCpuByPid(), generator: cpuSeconds(process.pid) }) });
  const perRequest = (seconds) => Math.round((seconds * 1e6) / Math.max(1, result.total));
  return {
    ...result,
    cpuUs: {
      service: perRequest(cpuSeconds(pid) - before.service),
      postgres: perRequest(postgresCpuBetween(before.postgres, postgresCpuByPid())),
      generator: perRequest(cpuSeconds(process.pid) - before.generator),
    },
  };
}

/** Runs autocannon (after a warm-up, unless `warmup: 0`) and reduces the result to what the report needs. */
export async function load({ warmup = WARMUP_SECONDS, onMeasureStart, ...options }) {
  if (warmup > 0) await autocannon({ connections: 20, ...options, duration: warmup });
  onMeasureStart?.();
  const result = await autocannon({ connections: 20, duration: 8, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    errors: result.errors + result.timeouts,
  };
}

/** A fresh database on the server named by `adminUrl`, dropped by `drop()`. */
export async function createDatabase(adminUrl, name) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Median and spread (lowest, highest) of per-round figures, rounded to two decimals. */
export function medianAndSpread(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const round = (value) => Math.round(value * 100) / 100;
  if (sorted.length === 0) return { median: undefined, min: undefined, max: undefined };
  const middle = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return { median: round(middle), min: round(sorted[0]), max: round(sorted[sorted.length - 1]) };
}

/** The machine's load: /proc/loadavg (1, 5, 15 min) and the CPU jiffies so far (total and steal, from /proc/stat). */
export function machineLoad() {
  const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return { loadavg: [one, five, fifteen], totalJiffies: cpu.slice(0, 8).reduce((sum, value) => sum + value, 0), stealJiffies: cpu[7] ?? 0 };
}

/** Percentage of CPU time stolen by the hypervisor between two machineLoad() samples. */
export function stealPercent(before, after) {
  const total = after.totalJiffies - before.totalJiffies;
  return total > 0 ? Math.round(((after.stealJiffies - before.stealJiffies) / total) * 1000) / 10 : 0;
}

/**
 * Heap in use (MB) of a process started with `--inspect=127.0.0.1:0`, after a full garbage collection
 * forced through its inspector (what the heap holds, as against RSS, which keeps what the heap once used).
 */
export async function heapAfterGcMb(child) {
  const url = /ws:\/\/\S+/.exec(child.output.join(''))?.[0];
  if (!url) return undefined;
  // Node 24's global WebSocket (the machine's node 20 has none: run the bench through npm).
  const socket = new globalThis.WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  const waiting = new Map();
  let lastId = 0;
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    waiting.get(message.id)?.(message);
  };
  const call = (method, params) =>
    new Promise((resolve) => {
      const id = ++lastId;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const answer = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
    return Math.round((answer.result.result.value / 1024 / 1024) * 10) / 10;
  } finally {
    socket.close();
  }
}
