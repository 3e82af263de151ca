// Feedback export at scale: the same 200-row page at 10,000 and at 1,000,000 rows in the
// table (keyset paging should not care), and a full drain by cursor through the API against a
// hand-written node:http + pg server serving the same pages (feedback-baseline-server.mjs), with the
// raw keyset SQL in-process alongside as context.
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import pg from 'pg';
import { cpuMeter } from './lib.mjs';
import { generateFeedbackToken, generateSiteKey } from '../dist/apps/feedback-export/src/token-auth/feedback-token.format.js';

const PAGE = 200;
const LATENCY_PAGES = 40;

async function seedSite(client, ownerId, slug, rows) {
  const { rows: site } = await client.query(
    `INSERT INTO sites (owner_id, name, slug, site_key) VALUES ($1, $2, $2, $3) RETURNING id`,
    [ownerId, slug, generateSiteKey()],
  );
  const siteId = site[0].id;
  // Rows spread over the past, in batches so one statement stays reasonable.
  for (let done = 0; done < rows; done += 100_000) {
    const batch = Math.min(100_000, rows - done);
    await client.query(
      `INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, created_at)
       SELECT $1, $2, (ARRAY['feedback','feature_request','bug'])[1 + g % 3], 'message ' || g, 1 + g % 5,
              'https://example.test/page/' || g, now() - interval '30 days' + (g * interval '1 millisecond')
       FROM generate_series($3::int, $4::int) g`,
      [siteId, ownerId, done + 1, done + batch],
    );
  }
  const read = generateFeedbackToken('read');
  await client.query(`INSERT INTO feedback_tokens (owner_id, site_id, kind, token_hash) VALUES ($1, $2, 'read', $3)`, [ownerId, siteId, read.hash]);
  return { siteId, token: read.token };
}

async function getJson(url, token) {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return { body, ms: performance.now() - started };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

/** Walks `pages` pages from the start, timing each request. */
async function timedWalk(feedbackUrl, token, pages) {
  const times = [];
  let since;
  for (let i = 0; i < pages; i++) {
    const query = new URLSearchParams({ limit: String(PAGE), ...(since ? { since } : {}) });
    const { body, ms } = await getJson(`${feedbackUrl}/api/v1/export/feedback?${query}`, token);
    times.push(ms);
    since = body.data.nextCursor;
  }
  return times;
}

const DRAIN_ROUNDS = Number(process.env.BENCH_DRAIN_ROUNDS ?? 7);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Every row of the site, page by page, following nextCursor; with the CPU the server (process `pid`) and PostgreSQL used. */
async function drainThroughHttp(url, token, pid) {
  let since;
  let rows = 0;
  let pages = 0;
  const cpu = cpuMeter(pid);
  const started = performance.now();
  for (;;) {
    const query = new URLSearchParams({ limit: String(PAGE), ...(since ? { since } : {}) });
    const { body } = await getJson(`${url}/api/v1/export/feedback?${query}`, token);
    rows += body.data.feedback.length;
    pages++;
    since = body.data.nextCursor;
    if (!body.data.hasMore) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const used = cpu();
  return { rows, seconds, pages, serviceUsPerPage: (used.service * 1e6) / pages, postgresUsPerPage: (used.postgres * 1e6) / pages };
}

/** The baseline must answer what the service answers, byte for byte, or the ratio compares different work. */
async function assertSameFirstPage(feedbackUrl, baselineUrl, token) {
  const fetchText = async (url) => (await fetch(`${url}/api/v1/export/feedback?limit=${PAGE}`, { headers: { authorization: `Bearer ${token}` } })).text();
  const [ours, theirs] = [await fetchText(feedbackUrl), await fetchText(baselineUrl)];
  if (ours !== theirs) throw new Error(`the drain baseline answers differently from the service:\n${ours.slice(0, 300)}\n${theirs.slice(0, 300)}`);
}

/** The same rows with the service's own page query (FeedbackRepository.pageOfSite), columns and formatting included. */
async function drainRawSql(client, ownerId, siteId) {
  let after = null;
  let rows = 0;
  const started = performance.now();
  for (;;) {
    const params = [ownerId, siteId, PAGE + 1];
    const keyset = after ? `AND (f.created_at, f.id) > ($4::timestamp AT TIME ZONE 'UTC', $5::uuid)` : '';
    if (after) params.push(after.at, after.id);
    const { rows: fetched } = await client.query(
      `SELECT f.id, f.site_id AS "siteId", f.type, f.message, f.rating, f.page_url AS "pageUrl", f.status,
              to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS "createdAt",
              to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "position"
       FROM feedback f WHERE f.owner_id = $1 AND f.site_id = $2 ${keyset} ORDER BY f.created_at, f.id LIMIT $3`,
      params,
    );
    const page = fetched.slice(0, PAGE);
    rows += page.length;
    if (fetched.length <= PAGE) break;
    const last = page[page.length - 1];
    after = { at: last.position, id: last.id };
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}

export async function feedbackScenarios({ databaseUrl, feedbackUrl, feedbackPid, baselineUrl, baselinePid, ratio, resetRateLimits }) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows: owner } = await client.query(`SELECT id FROM users ORDER BY date_joined LIMIT 1`);
  const ownerId = owner[0].id;
  const small = await seedSite(client, ownerId, 'bench-10k', 10_000);
  const large = await seedSite(client, ownerId, 'bench-1m', 1_000_000);
  await client.query(
    `INSERT INTO feedback_owner_clock (owner_id, last_at) SELECT owner_id, max(created_at) FROM feedback GROUP BY owner_id
     ON CONFLICT (owner_id) DO UPDATE SET last_at = excluded.last_at`,
  );
  await client.query('ANALYZE feedback');
  // The bench owns this database (and its Redis key prefix): reset the per-token budget (60/min) between phases.
  const resetBudget = () => Promise.all([client.query('DELETE FROM rate_limit_counters'), resetRateLimits?.()]);

  const out = [];
  await resetBudget();
  const smallTimes = await timedWalk(feedbackUrl, small.token, LATENCY_PAGES);
  await resetBudget();
  const largeTimes = await timedWalk(feedbackUrl, large.token, LATENCY_PAGES);
  const smallP50 = percentile(smallTimes, 50);
  const largeP50 = percentile(largeTimes, 50);
  out.push({ scenario: 'feedback: export page of 200 at 10k rows (ms)', p50: smallP50, p99: percentile(smallTimes, 99) });
  const latencyRatio = ratio(largeP50, smallP50);
  out.push({ scenario: 'feedback: export page of 200 at 1M rows (ms)', p50: largeP50, p99: percentile(largeTimes, 99), ratio: latencyRatio, target: '<= 1.2', pass: latencyRatio <= 1.2 });

  // Full drain of the 10k-row site through the API, through the hand-written baseline serving the same pages, and
  // with the raw keyset SQL in-process (context: no HTTP at all); a drain takes a fraction of a second, so each runs
  // DRAIN_ROUNDS times, alternating, and the median counts. CPU is per page (200 rows), for the server and PostgreSQL.
  await resetBudget();
  await assertSameFirstPage(feedbackUrl, baselineUrl, small.token);
  const api = [];
  const base = [];
  const rawRates = [];
  let drained = 0;
  let baseDrained = 0;
  for (let round = 0; round < DRAIN_ROUNDS; round++) {
    await resetBudget();
    const ours = await drainThroughHttp(feedbackUrl, small.token, feedbackPid);
    drained = ours.rows;
    api.push(ours);
    const theirs = await drainThroughHttp(baselineUrl, small.token, baselinePid);
    baseDrained = theirs.rows;
    base.push(theirs);
    const raw = await drainRawSql(client, ownerId, small.siteId);
    rawRates.push(raw.rows / raw.seconds);
  }
  const rateOf = (drains) => Math.round(median(drains.map((d) => d.rows / d.seconds)));
  // /proc counts CPU in 10 ms ticks, too coarse for one drain: CPU per page is over all rounds together.
  const cpuOf = (drains) => {
    const pages = drains.reduce((sum, d) => sum + d.pages, 0);
    const total = (field) => drains.reduce((sum, d) => sum + d[field] * d.pages, 0);
    return { service: Math.round(total('serviceUsPerPage') / pages), postgres: Math.round(total('postgresUsPerPage') / pages), generator: 0 };
  };
  const apiRate = rateOf(api);
  const baseRate = rateOf(base);
  const rawRate = Math.round(median(rawRates));
  out.push({ scenario: 'feedback: raw keyset SQL drain (rows/s, context)', rps: rawRate });
  out.push({ scenario: 'feedback: baseline drain (rows/s; cpu per page)', rps: baseRate, cpuUs: cpuOf(base), pass: baseDrained === 10_000 ? undefined : false });
  const drainRatio = ratio(apiRate, baseRate);
  out.push({
    scenario: 'feedback: API drain (rows/s; cpu per page)',
    rps: apiRate,
    ratio: drainRatio,
    target: '>= 0.6',
    pass: drainRatio >= 0.6 && drained === 10_000,
    cpuUs: cpuOf(api),
    vsRawSql: ratio(apiRate, rawRate),
  });
  await client.end();
  return out;
}
