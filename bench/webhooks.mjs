// Webhook scenarios of `npm run bench` (issue 30): a local receiver, endpoints pointing at it, a backlog of
// deliveries built in SQL, and its drain measured from the database (deliveries/s) with or without a /status load.
import { createServer } from 'node:http';
import pg from 'pg';
import { generateFeedbackToken, generateSiteKey } from '../dist/apps/feedback-export/src/token-auth/feedback-token.format.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMeter, load } from './lib.mjs';

/** A node:http receiver on 127.0.0.1 answering 204 to every POST; counts what it received (duplicates too). */
export async function startWebhookReceiver() {
  let received = 0;
  const ids = new Set();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      ids.add(request.headers['webhook-id']);
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stats: () => ({ received, distinct: ids.size }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One endpoint per key (subscribed to every todo event) at `receiverUrl/<n>`; answers the endpoint ids. */
export async function createWebhookEndpoints(serviceUrl, keys, receiverUrl) {
  const ids = [];
  for (const [n, key] of keys.entries()) {
    const response = await fetch(`${serviceUrl}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ url: `${receiverUrl}/${n}`, description: 'bench receiver' }),
    });
    if (response.status !== 201) throw new Error(`creating a webhook endpoint answered ${response.status}: ${await response.text()}`);
    ids.push((await response.json()).data.webhook.id);
  }
  return ids;
}

/**
 * One site for each of the first `count` accounts (feedback-export's widget row): the first half with an endpoint at
 * `receiverUrl/site-<n>` subscribed to every site event (created with the site's write token through the REST route),
 * the second half with none. Answers the site keys of each half.
 */
export async function seedWidgetSites(databaseUrl, serviceUrl, receiverUrl, count) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const on = [];
  const off = [];
  try {
    const { rows: owners } = await client.query(`SELECT id FROM users ORDER BY id LIMIT $1`, [count]);
    for (const [n, owner] of owners.entries()) {
      const siteKey = generateSiteKey();
      const { rows } = await client.query(`INSERT INTO sites (owner_id, name, slug, site_key) VALUES ($1, $2, $2, $3) RETURNING id`, [owner.id, `bench-widget-${n}`, siteKey]);
      if (n >= owners.length / 2) {
        off.push(siteKey);
        continue;
      }
      const write = generateFeedbackToken('write');
      await client.query(`INSERT INTO feedback_tokens (owner_id, site_id, kind, token_hash) VALUES ($1, $2, 'write', $3)`, [owner.id, rows[0].id, write.hash]);
      const response = await fetch(`${serviceUrl}/api/v1/sites/${rows[0].id}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${write.token}` },
        body: JSON.stringify({ url: `${receiverUrl}/site-${n}`, description: 'bench receiver' }),
      });
      if (response.status !== 201) throw new Error(`creating a site webhook endpoint answered ${response.status}: ${await response.text()}`);
      on.push(siteKey);
    }
  } finally {
    await client.end();
  }
  return { on, off };
}

/** Waits (up to `timeoutMs`) until no delivery of `ownerKind`'s endpoints is pending: a service's rounds sent before it stops. */
export async function waitForDeliveries(databaseUrl, ownerKind, timeoutMs = 60_000) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let waited = 0; waited < timeoutMs; waited += 200) {
      if ((await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE owner_kind = $1 AND status = 'pending'`, [ownerKind])).rows[0].n === 0) return;
      await sleep(200);
    }
  } finally {
    await client.end();
  }
}

/**
 * Inserts `count` deliveries spread evenly over `endpointIds` (a todo.created payload each), due an hour from now:
 * nothing claims them until `release()` makes them all due at once.
 */
async function buildBacklog(client, endpointIds, count) {
  await client.query(
    `INSERT INTO webhook_deliveries (endpoint_id, owner_kind, owner_id, event_id, event_type, occurred_at, payload, next_attempt_at)
     SELECT endpoint.id, endpoint.owner_kind, endpoint.owner_id, 'evt_bench_' || g, 'todo.created', now(),
       jsonb_build_object('id', g, 'text', 'bench todo ' || g, 'priority', 2, 'category', 'bench', 'estimatedDurationMinutes', null, 'createdAt', extract(epoch FROM now())::bigint),
       now() + interval '1 hour'
     FROM generate_series(0, $2 - 1) g JOIN unnest($1::uuid[]) WITH ORDINALITY AS endpoint_list (id, n) ON endpoint_list.n = g % array_length($1::uuid[], 1) + 1
     JOIN webhook_endpoints endpoint ON endpoint.id = endpoint_list.id`,
    [endpointIds, count],
  );
}

/**
 * A backlog of `count` deliveries to `endpointIds`, released at once; waits until none is pending. Answers the
 * drain's deliveries/s (time from the release until the last one is marked delivered, read from the database) and,
 * when `during` is given, its result (a load started right after the release and awaited).
 */
export async function drainBacklog({ databaseUrl, servicePid, endpointIds, count, receiver, during, timeoutMs = 180_000 }) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // What earlier scenarios queued is sent first (up to a minute), then cleared.
    for (let waited = 0; waited < 60_000; waited += 200) {
      if ((await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`)).rows[0].n === 0) break;
      await sleep(200);
    }
    await client.query(`DELETE FROM webhook_deliveries`);
    await buildBacklog(client, endpointIds, count);
    const before = receiver.stats();
    const cpu = cpuMeter(servicePid);
    const released = Date.now();
    await client.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending'`);
    const pressure = during?.();
    let pending = count;
    let drainedAt;
    while (pending > 0) {
      await sleep(100);
      pending = (await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`)).rows[0].n;
      if (Date.now() - released > timeoutMs) break;
    }
    drainedAt = Date.now();
    const used = cpu();
    const { rows } = await client.query(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE status <> 'delivered')::int AS other,
         extract(epoch FROM max(completed_at) - min(completed_at))::float8 AS span FROM webhook_deliveries`,
    );
    const pressureResult = await pressure;
    const seconds = (drainedAt - released) / 1000;
    const after = receiver.stats();
    return {
      seconds: Math.round(seconds * 10) / 10,
      perSecond: Math.round(rows[0].delivered / seconds),
      delivered: rows[0].delivered,
      notDelivered: rows[0].other + pending,
      received: after.received - before.received,
      // CPU per delivery (µs): the service and PostgreSQL, over the drain (with `during`, its load's share is in it).
      cpuUs: { service: Math.round((used.service * 1e6) / count), postgres: Math.round((used.postgres * 1e6) / count), generator: 0 },
      during: pressureResult,
    };
  } finally {
    await client.end();
  }
}

/** p99 of GET /api/v1/status (5 connections) for `seconds`, without warm-up; the idle reference and the load during a drain. */
export function statusLoad(serviceUrl, seconds) {
  return load({ url: `${serviceUrl}/api/v1/status`, connections: 5, duration: seconds, warmup: 0 });
}
