/**
 * A lock wait is not a database outage. A stalled writer (a second connection of the test
 * holding the owner's feedback clock row in an open transaction) makes the widget's insert
 * wait until the server's statement_timeout cancels it (SQLSTATE 57014). PostgreSQL answers
 * everything else meanwhile, so the answer is a 503 with Retry-After and its own message,
 * counted as a lock timeout; the database is not reported down (no "unavailable" / "available
 * again" warning pair, dependency_up stays 1, no refused-request count).
 *
 * Real PostgreSQL only: the embedded server (PGlite) runs one statement at a time for all its
 * connections, so an open transaction there stalls the whole database (the client's query
 * timeout fires, a genuine "not answering"), never a single row. The classification itself
 * is covered on both runs by libs/common/src/errors/postgres-error.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '#libs/testing';
import { createOwner, createSite, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';
import { scrape } from '../support/metrics-scrape.js';
import { startApp, type TestApp } from '../support/test-apps.js';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';
const SUBMIT = '/api/v1/widget/feedback';

(usingRealPostgres() ? describe : describe.skip)('a lock wait answers 503 without declaring the database down (real PostgreSQL: row locks)', () => {
  let database: TestDatabase;
  let feedback: TestApp;
  let owner: TestOwner;
  let site: TestSite;
  let holder: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    // statement_timeout is 3/4 of the query budget: 750 ms.
    feedback = await startApp('feedback-export', database.url, { METRICS_TOKEN, DB_QUERY_TIMEOUT_MS: '1000' });
    owner = await createOwner(feedback);
    site = await createSite(feedback, owner, 'Locked');
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  }, 60_000);

  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await feedback?.close();
    await database?.drop();
  });

  it('answers 503 with Retry-After while the owner clock is held, counts it, and logs no outage', async () => {
    const submit = () =>
      feedback.http.post(SUBMIT).send({ siteKey: site.siteKey, type: 'bug', message: 'waiting on a lock', rating: 3, pageUrl: 'https://shop.example.org/' });
    // The clock row exists once the owner has written once.
    await submit().expect(201);
    const before = await scrape(feedback.baseUrl, METRICS_TOKEN);

    await holder.query('BEGIN');
    await holder.query('SELECT * FROM feedback_owner_clock WHERE owner_id = $1 FOR UPDATE', [owner.id]);
    const answers = [];
    try {
      for (let i = 0; i < 3; i++) answers.push(await submit());
      // Scraped while the writer still stalls: the database is not "down".
      const during = await scrape(feedback.baseUrl, METRICS_TOKEN);
      expect(during.value('dependency_up', { dependency: 'database' })).toBe(1);
      expect(during.value('dependency_refused_requests_total', { dependency: 'database' })).toBe(before.value('dependency_refused_requests_total', { dependency: 'database' }));
      expect(during.value('dependency_lock_timeouts_total', { dependency: 'database' }) - before.value('dependency_lock_timeouts_total', { dependency: 'database' })).toBe(3);
    } finally {
      await holder.query('ROLLBACK');
    }

    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/concurrent|lock|waited/i) } });
    }
    // Released: the owner's intake resumes at once.
    await submit().expect(201);
    await sleep(1_500);
    const after = await scrape(feedback.baseUrl, METRICS_TOKEN);
    expect(after.value('dependency_up', { dependency: 'database' })).toBe(1);
    expect(feedback.logs.text()).not.toMatch(/database unavailable|database available again/);
    const stored = await feedback.dataSource.query('SELECT count(*)::int AS n FROM feedback WHERE owner_id = $1', [owner.id]);
    expect(stored[0].n).toBe(2);
  }, 60_000);
});
