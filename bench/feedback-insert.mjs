// Feedback inserts from many owners at once: the service's insert path (FeedbackRepository.insertMany,
// which takes the owner's commit-clock row) against the same single-row insert with created_at = now()
// and no clock, 16 writers over 16 owners, alternating rounds, median of each. Every feedback insert also
// writes its feedback.created row to the event log (issue 30's outbox, whose cost on the write path has
// its own target in the webhook rows), so the baseline writes that row too, with the service's own SQL:
// the ratio is the clock's cost. The bare insert without the event row and the old platform-wide one-row
// clock (what every writer queued on before) are measured alongside as context.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { FeedbackRepository } from '../dist/apps/feedback-export/src/feedback/feedback.repository.js';
import { PreparedQueries } from '../dist/libs/database/src/prepared-queries.js';
import { generateSiteKey } from '../dist/apps/feedback-export/src/token-auth/feedback-token.format.js';
import { feedbackCreatedDataSql, insertEventsSql } from '../dist/apps/feedback-export/src/webhooks/feedback-event-log.js';
import { cpuSeconds, medianAndSpread, postgresCpuBetween, postgresCpuByPid } from './lib.mjs';

const WRITERS = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const ROW = { type: 'feedback', message: 'bench insert', rating: 4, pageUrl: 'https://example.test/insert' };

/** The feedback.created event row of the rows `inserted` returns, as the service's insert writes it. */
const CREATED_EVENT = `created AS (${insertEventsSql('feedback.created', 'f.site_id', feedbackCreatedDataSql('f'), 'inserted f')})`;

const BARE_INSERT = `INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING id`;

const PLAIN_INSERT = `WITH inserted AS (
    INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING *
  ),
  ${CREATED_EVENT}
  SELECT id FROM inserted`;

const GLOBAL_CLOCK_INSERT = `WITH clock AS (
    UPDATE bench_global_clock SET last_at = GREATEST(clock_timestamp(), last_at + interval '1 microsecond') WHERE id = 1 RETURNING last_at
  ),
  inserted AS (
    INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, created_at)
    SELECT $1, $2, $3, $4, $5, $6, clock.last_at FROM clock RETURNING *
  ),
  ${CREATED_EVENT}
  SELECT id FROM inserted`;

async function seedOwners(client, count) {
  const owners = [];
  for (let i = 0; i < count; i++) {
    const { rows: user } = await client.query(
      `INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $3, 'x') RETURNING id`,
      [`usr_insert_${i}`, `insert_${i}`, `insert-${i}@example.test`],
    );
    const { rows: site } = await client.query(
      `INSERT INTO sites (owner_id, name, slug, site_key) VALUES ($1, 'insert', 'insert', $2) RETURNING id`,
      [user[0].id, generateSiteKey()],
    );
    owners.push({ ownerId: user[0].id, siteId: site[0].id });
  }
  return owners;
}

/** Rows per second with WRITERS connections, writer w inserting for owners[w] as fast as it can for `seconds`. */
async function measure(pool, owners, seconds, insertOne) {
  const clients = await Promise.all(owners.map(() => pool.connect()));
  // CPU per row: the writers (this process: the repository's code and pg) plus PostgreSQL.
  const cpuBefore = { writers: cpuSeconds(process.pid), postgres: postgresCpuByPid() };
  const until = performance.now() + seconds * 1000;
  let rows = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, w) => {
      while (performance.now() < until) {
        await insertOne(client, owners[w]);
        rows++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuUs = ((cpuSeconds(process.pid) - cpuBefore.writers + postgresCpuBetween(cpuBefore.postgres, postgresCpuByPid())) * 1e6) / Math.max(1, rows);
  for (const client of clients) client.release();
  return { rate: rows / elapsed, cpuUs };
}

export async function feedbackInsertScenario({ databaseUrl, seconds, ratio }) {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const owners = await seedOwners(admin, WRITERS);
  await admin.query(`CREATE TABLE IF NOT EXISTS bench_global_clock (id smallint PRIMARY KEY, last_at timestamptz NOT NULL)`);
  await admin.query(`INSERT INTO bench_global_clock VALUES (1, now()) ON CONFLICT (id) DO NOTHING`);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: WRITERS });
  // The repository's own insertMany as the widget route calls it (alone, so prepared), each writer on its own connection.
  const repositories = new Map();
  const repositoryOn = (client) => {
    if (!repositories.has(client)) repositories.set(client, new FeedbackRepository(undefined, new PreparedQueries(() => client)));
    return repositories.get(client);
  };
  const values = ({ ownerId, siteId }) => [siteId, ownerId, ROW.type, ROW.message, ROW.rating, ROW.pageUrl];

  const service = [];
  const plain = [];
  const bare = [];
  const globalClock = [];
  const roundSeconds = Math.max(2, Math.round(seconds / 2));
  for (let round = 0; round < ROUNDS; round++) {
    service.push(await measure(pool, owners, roundSeconds, (client, o) => repositoryOn(client).insertMany(undefined, o.ownerId, [{ siteId: o.siteId, ...ROW }])));
    // Prepared too, like the service's statement: the ratio is the clock's cost, not planning's.
    plain.push(await measure(pool, owners, roundSeconds, (client, o) => client.query({ name: 'bench_plain_insert', text: PLAIN_INSERT, values: values(o) })));
    bare.push(await measure(pool, owners, roundSeconds, (client, o) => client.query({ name: 'bench_bare_insert', text: BARE_INSERT, values: values(o) })));
    globalClock.push(await measure(pool, owners, roundSeconds, (client, o) => client.query({ name: 'bench_global_clock_insert', text: GLOBAL_CLOCK_INSERT, values: values(o) })));
  }
  await pool.end();
  await admin.query('DROP TABLE bench_global_clock');
  await admin.end();

  const plainRate = Math.round(median(plain.map((round) => round.rate)));
  const serviceRate = Math.round(median(service.map((round) => round.rate)));
  const globalRate = Math.round(median(globalClock.map((round) => round.rate)));
  const bareRate = Math.round(median(bare.map((round) => round.rate)));
  // What the event row costs a bare insert, per round (context: the outbox's target is the webhook rows').
  const eventRow = medianAndSpread(plain.map((round, i) => round.rate / bare[i].rate));
  // Per round: the service over the plain insert measured next to it; the median counts, the spread shows the noise.
  const perRound = service.map((round, i) => round.rate / plain[i].rate);
  const ratios = medianAndSpread(perRound);
  const cpuRatio = medianAndSpread(service.map((round, i) => round.cpuUs / plain[i].cpuUs));
  const insertRatio = ratios.median;
  return [
    { scenario: `feedback: bare insert, no event row, ${WRITERS} writers / ${WRITERS} owners (rows/s, context)`, rps: bareRate },
    { scenario: 'feedback: plain insert + its event row (rows/s)', rps: plainRate, ratio: eventRow.median, spread: eventRow },
    { scenario: 'feedback: one platform-wide clock, before (rows/s, context)', rps: globalRate, ratio: ratio(globalRate, plainRate) },
    {
      scenario: 'feedback: service insert, per-owner clock (rows/s)',
      rps: serviceRate,
      ratio: insertRatio,
      spread: ratios,
      cpuRatio,
      perRound: perRound.map((value) => Math.round(value * 100) / 100),
      target: '>= 0.7',
      pass: insertRatio >= 0.7,
    },
  ];
}
