import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { REQUEST_LOGGING, type RequestLogging } from '#libs/common';
import { createTestDatabase, insertUser, type TestDatabase } from '#libs/testing';
import { startApp, type TestApp } from '../support/test-apps.js';

const ADMIN_KEY = 'admin-key-for-log-labels-0123456789';

interface Line {
  service: string;
  msg: string;
  context?: string;
  [field: string]: unknown;
}

/**
 * Both apps in one process on one database, started in the order `npm start` (apps/main.ts) starts
 * them: todo-api, then feedback-export. Nest's Logger is process-wide, so without each app's own log
 * scope todo-api's service lines were written by the app started last, as feedback-export.
 */
describe('log lines of two apps in one process', () => {
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    todo = await startApp('todo-api', database.url, { ADMIN_API_KEY: ADMIN_KEY });
    feedback = await startApp('feedback-export', database.url);
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
    await database?.drop();
  });

  /** Every line both apps wrote since the marks, parsed. */
  const linesSince = (marks: { todo: number; feedback: number }): Line[] =>
    [...todo.logs.lines.slice(marks.todo), ...feedback.logs.lines.slice(marks.feedback)].map((line) => JSON.parse(line) as Line);

  async function waitForLine(marks: { todo: number; feedback: number }, msg: string): Promise<void> {
    for (let waited = 0; waited < 5_000; waited += 50) {
      if (linesSince(marks).some((line) => line.msg === msg)) return;
      await sleep(50);
    }
    throw new Error(`no log line "${msg}" within 5 s`);
  }

  it('labels every line that todo-api requests cause todo-api and writes it to todo-api’s log: audit, mail, unexpected error, access', async () => {
    const user = await insertUser(todo.dataSource);
    const marks = { todo: todo.logs.lines.length, feedback: feedback.logs.lines.length };

    // The beta-grant audit line.
    await todo.http.post('/api/v1/billing/beta/grant').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.id }).expect(200);
    // The password-reset mail, written to the outbox (no SMTP_URL) after the answer has gone.
    await todo.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
    await waitForLine(marks, 'SMTP_URL not set: mail written to the outbox');
    // An unexpected error: the audit table is briefly out of the way.
    await todo.dataSource.query('ALTER TABLE beta_access_audit RENAME TO beta_access_audit_moved');
    try {
      await todo.http.post('/api/v1/billing/beta/grant').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.id }).expect(500);
    } finally {
      await todo.dataSource.query('ALTER TABLE beta_access_audit_moved RENAME TO beta_access_audit');
    }
    await waitForLine(marks, 'request failed');

    const lines = linesSince(marks);
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['Lifetime beta access granted', 'SMTP_URL not set: mail written to the outbox', 'Request failed unexpectedly', 'request completed', 'request failed']),
    );
    expect(lines.filter((line) => line.service !== 'todo-api')).toEqual([]);
    expect(feedback.logs.lines.slice(marks.feedback)).toEqual([]);
  });

  it('labels feedback-export’s own lines feedback-export in the same process', async () => {
    const jwt = await feedback.accessTokenFor((await insertUser(feedback.dataSource)).id);
    const marks = { todo: todo.logs.lines.length, feedback: feedback.logs.lines.length };
    await feedback.dataSource.query('ALTER TABLE sites RENAME TO sites_moved');
    try {
      await feedback.http.get('/api/v1/sites').set('Authorization', `Bearer ${jwt}`).expect(500);
    } finally {
      await feedback.dataSource.query('ALTER TABLE sites_moved RENAME TO sites');
    }
    await waitForLine(marks, 'request failed');
    const lines = linesSince(marks);
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['Request failed unexpectedly', 'request failed']));
    expect(lines.filter((line) => line.service !== 'feedback-export')).toEqual([]);
    expect(todo.logs.lines.slice(marks.todo)).toEqual([]);
  });

  it('keeps each app’s own secret headers out of its log (todo-api’s API key, administrator key and webhook signature)', () => {
    const secret = 'secret-header-value';
    const headers = { authorization: secret, 'x-api-key': secret, 'x-admin-api-key': secret, 'stripe-signature': secret, 'x-request-id': 'shown' };
    const marks = { todo: todo.logs.lines.length, feedback: feedback.logs.lines.length };
    todo.app.get<RequestLogging>(REQUEST_LOGGING).logger.warn({ req: { headers } }, 'a line with the request headers');
    const lines = linesSince(marks);
    expect(lines).toEqual([expect.objectContaining({ msg: 'a line with the request headers', req: { headers: expect.objectContaining({ 'x-request-id': 'shown' }) } })]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});
