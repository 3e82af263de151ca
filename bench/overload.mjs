// The overload scenario (issue 34): GET /api/v1/todos under an open-loop load (a fixed arrival
// rate, whatever the answers' latency) at 1x, 2x and 3x the capacity measured just before, closed-loop.
// Prints, per multiple, the p99 of the admitted requests (2xx) over the idle p99, the p99 of the refusals
// (503 SERVICE_OVERLOADED), and, at 3x, whether /livez kept answering and how long the service took to
// serve normally again once the load stopped.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { load } from './lib.mjs';

/** Connections per request per second offered: a client opens more while answers are slow, up to this many. */
const CONNECTIONS_PER_RPS = 0.5;
const MAX_CONNECTIONS = 1500;
/** Arrivals are released on a timer this often, each tick the ones due by then: at 6,000/s, about 6 per tick. */
const TICK_MS = 1;

function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

function request(agent, url, path, headers) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request(url + path, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

/** Connections opened at a time before a load starts: more at once overflowed the server's listen backlog. */
const CONNECT_BATCH = 50;

/**
 * `size` keep-alive connections, all opened before the clock starts (a batch at a time, each with a
 * GET /livez, which admission control never refuses), lent to one request at a time; a request that
 * finds none free waits for the next (that wait counts in its latency). undici's Pool opened
 * connections during the load instead, as answers slowed: a thousand arrived at once, overflowed
 * the listen backlog (TcpExtListenOverflows), and the kernel's SYN retries 1 s and 3 s later were
 * what those requests measured.
 */
async function openConnections(url, size) {
  const clients = Array.from({ length: size }, () => new Client(url, { pipelining: 1, keepAliveTimeout: 30_000 }));
  for (let opened = 0; opened < size; opened += CONNECT_BATCH) {
    await Promise.all(clients.slice(opened, opened + CONNECT_BATCH).map((client) => client.request({ method: 'GET', path: '/livez' }).then(({ body }) => body.dump())));
  }
  const idle = [...clients];
  const waiting = [];
  return {
    async request(options) {
      const client = idle.pop() ?? (await new Promise((resolve) => waiting.push(resolve)));
      try {
        const { statusCode, body } = await client.request(options);
        await body.dump();
        return statusCode;
      } finally {
        const next = waiting.shift();
        if (next) next(client);
        else idle.push(client);
      }
    },
    close: () => Promise.all(clients.map((client) => client.close())),
  };
}

/**
 * `rate` GETs of `path` per second for `seconds`, open loop: arrival i is due at i / rate s from the
 * start, whatever the answers so far, and its latency runs from that moment to the end of its answer
 * (a request that waits for a free connection, or for the generator itself, counts that wait: no
 * coordinated omission). Arrivals go out evenly, TICK_MS apart at most, over CONNECTIONS_PER_RPS ×
 * rate connections opened beforehand (openConnections). (autocannon's overallRate lets every
 * connection send its share at the start of each second: at 2,000/s a hello-world server in its own
 * process answered with a p99 of 279 ms, the bursts' queue, not the server's.) `headersOf(i)` gives
 * arrival i its headers; `onTick` runs every 20 ms. Answers' latencies are split by status; `lateMs`
 * is how far behind its schedule the generator fell at worst (a saturated generator shows here).
 */
export async function openLoop({ url, path, headersOf, rate, seconds, onTick }) {
  const connections = Math.min(MAX_CONNECTIONS, Math.max(10, Math.ceil(rate * CONNECTIONS_PER_RPS)));
  const pool = await openConnections(url, connections);
  const latencies = new Map();
  const total = Math.round(rate * seconds);
  const pending = new Set();
  let errors = 0;
  let lateMs = 0;
  let next = 0;
  const ticker = onTick ? setInterval(onTick, 20) : undefined;
  const started = performance.now();
  const send = (i, dueAt) => {
    const answered = pool
      .request({ method: 'GET', path, headers: headersOf(i) })
      .catch(() => {
        errors++;
        return 0;
      })
      .then((status) => {
        let list = latencies.get(status);
        if (!list) latencies.set(status, (list = []));
        list.push(performance.now() - dueAt);
        pending.delete(answered);
      });
    pending.add(answered);
  };
  await new Promise((resolve) => {
    const release = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - started) / 1000) * rate) + 1);
      if (due > next) lateMs = Math.max(lateMs, now - (started + (next / rate) * 1000));
      for (; next < due; next++) send(next, started + (next / rate) * 1000);
      if (next < total) setTimeout(release, TICK_MS);
      else resolve();
    };
    release();
  });
  // The load drops here: no more arrivals (the recovery clock starts now); the answers still due are awaited.
  const loadEndedAt = performance.now();
  await Promise.all(pending);
  clearInterval(ticker);
  await pool.close();
  const sorted = (status) => (latencies.get(status) ?? []).slice().sort((a, b) => a - b);
  const admitted = [...latencies.entries()].filter(([status]) => status >= 200 && status < 300).flatMap(([, list]) => list).sort((a, b) => a - b);
  const refused = sorted(503);
  return {
    offeredRps: Math.round(rate),
    sentRps: Math.round(total / Math.max(seconds, (loadEndedAt - started) / 1000)),
    admittedRps: Math.round(admitted.length / seconds),
    admittedP50: percentile(admitted, 50),
    admittedP99: percentile(admitted, 99),
    refusedP99: percentile(refused, 99),
    refused: refused.length,
    byStatus: Object.fromEntries([...latencies.entries()].map(([status, list]) => [status, list.length])),
    errors,
    lateMs: Math.round(lateMs),
    loadEndedAt,
  };
}

/** GETs `path` one after another until an answer is 200 within `okMs`; the milliseconds from `since` to it. */
async function recoveredAfter({ url, path, headersOf, since, okMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; ; i++) {
      const answer = await request(agent, url, path, headersOf(i));
      if (answer.status === 200 && answer.ms <= okMs) return Math.round(performance.now() - since);
      if (performance.now() - since > 30_000) return undefined;
      await sleep(10);
    }
  } finally {
    agent.destroy();
  }
}

/** The sum of a counter's samples in the service's /metrics. */
async function counterValue(url, metricsToken, name) {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * The rows of the overload scenario against todo-api at `url` (started with METRICS_TOKEN=`metricsToken`).
 * `headersOf(i)` and `setupRequest` (closed loop) give requests their API key; `seconds` of load per multiple.
 */
export async function overloadScenario({ url, path, headersOf, setupRequest, seconds, ratio, metricsToken }) {
  const rows = [];
  // Capacity: closed-loop, 20 connections, as the throughput rows measure it.
  const capacity = await load({ url, requests: [{ method: 'GET', path, setupRequest }], duration: seconds });
  rows.push({ scenario: 'overload: GET /todos capacity (closed loop, 20 conn.)', ...capacity });
  // Idle: the same open-loop generator at a tenth of capacity.
  const idle = await openLoop({ url, path, headersOf, rate: Math.max(20, Math.round(capacity.rps / 10)), seconds: Math.min(seconds, 5) });
  rows.push({ scenario: `overload: idle, open loop at ${idle.offeredRps}/s`, rps: idle.admittedRps, p50: idle.admittedP50, p99: idle.admittedP99 });
  const idleP99 = Math.max(1, idle.admittedP99 ?? 1);

  for (const multiple of [1, 2, 3]) {
    await sleep(2000);
    const livez = [];
    let livezInFlight = false;
    const probeLivez = () => {
      if (multiple !== 3 || livezInFlight) return;
      livezInFlight = true;
      fetch(`${url}/livez`, { signal: AbortSignal.timeout(5000) })
        .then((res) => livez.push(res.status))
        .catch(() => livez.push(0))
        .finally(() => (livezInFlight = false));
    };
    const rejectedBefore = await counterValue(url, metricsToken, 'overload_rejections_total');
    const result = await openLoop({ url, path, headersOf, rate: capacity.rps * multiple, seconds, onTick: probeLivez });
    const recoveryMs = multiple === 3 ? await recoveredAfter({ url, path, headersOf, since: result.loadEndedAt, okMs: 5 * idleP99 }) : undefined;
    const overloaded = (await counterValue(url, metricsToken, 'overload_rejections_total')) - rejectedBefore;
    const p99Ratio = result.admittedP99 === undefined ? undefined : ratio(result.admittedP99, idleP99);
    rows.push({
      scenario: `overload: ${multiple}x (${result.offeredRps}/s, sent ${result.sentRps}/s) admitted p99/idle`,
      rps: result.admittedRps,
      p50: result.admittedP50,
      p99: result.admittedP99,
      ratio: p99Ratio,
      target: '<= 5',
      pass: p99Ratio !== undefined && p99Ratio <= 5,
    });
    rows.push({
      scenario: `overload: ${multiple}x refused (503) p99 ms`,
      rps: Math.round(result.refused / seconds),
      p99: result.refusedP99,
      ratio: result.refusedP99,
      ...(result.refused > 0 ? { target: '<= 10', pass: result.refusedP99 <= 10 } : {}),
      statusCodes: result.byStatus,
    });
    console.log(`${''.padEnd(44)} answers by status: ${JSON.stringify(result.byStatus)}, errors ${result.errors}, generator at worst ${result.lateMs} ms behind; overload_rejections_total +${overloaded}`);
    if (multiple === 3) {
      const livezOk = livez.filter((status) => status === 200).length;
      rows.push({ scenario: `overload: 3x /livez answered 200 (of ${livez.length})`, ratio: livezOk, target: 'all', pass: livez.length > 0 && livezOk === livez.length });
      rows.push({ scenario: 'overload: 3x back to normal after the load (ms)', ratio: recoveryMs, target: '<= 1000', pass: recoveryMs !== undefined && recoveryMs <= 1000 });
    }
  }
  return rows;
}
