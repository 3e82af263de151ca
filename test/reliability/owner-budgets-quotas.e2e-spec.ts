import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Response } from 'supertest';
import { insertUser } from '#libs/testing';
import { QuestionsRepository, storedBatchBytes } from '../../apps/feedback-export/src/questions/questions.repository.js';
import { grantBetaAccess } from '../support/api-access.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, type TestOwner } from '../feedback/feedback-fixtures.js';
import { writeFigures } from './support/figures.js';

/**
 * Owner writes have a budget per account and the account has quotas (issue 27, item 4): every
 * family of owner write routes answers 429 RATE_LIMITED over its budget (and only for the account
 * that spent it); sites per account, batches and stored batch bytes per site answer 403
 * QUOTA_EXCEEDED, also when creates race. Quotas are set small here through their variables.
 */
const ADMIN_KEY = 'admin-key-for-owner-budget-tests-0123';
const QUOTAS = { FEEDBACK_MAX_SITES_PER_ACCOUNT: '3', FEEDBACK_MAX_BATCHES_PER_SITE: '4', FEEDBACK_MAX_BATCH_BYTES_PER_SITE: String(64 * 1024) };

/** For the reliability summary: quota refusals seen, rows found beyond a quota after racing creates, budget refusals. */
const figures = { quotaHits403: 0, quotaViolations: 0, writeBudgetRefusals429: 0, racingCreates: 0 };

interface Caller {
  userId: string;
  jwt: string;
}

/** One family of write routes: its bucket, and one request of it as a given account. */
interface Family {
  bucket: string;
  limit: number;
  app: () => TestApp;
  send: (caller: Caller) => Promise<Response>;
}

const question = (n: number, html = `<p>Question ${n}</p>`) => ({ n, title: `Question ${n}`, html });

describe('owner write budgets and account quotas', () => {
  let feedback: TestApp & { database: { url: string } };
  let todo: TestApp;
  let siteOf: Map<string, string>;

  beforeAll(async () => {
    feedback = await startWithDatabase('feedback-export', QUOTAS);
    todo = await startApp('todo-api', feedback.database.url, { ADMIN_API_KEY: ADMIN_KEY });
    siteOf = new Map();
  });
  afterAll(async () => {
    writeFigures('owner-budgets-quotas', figures);
    await todo?.close();
    await feedback?.close();
  });

  async function caller(app: TestApp, betaAccess = false): Promise<Caller> {
    const user = await insertUser(app.dataSource);
    if (betaAccess) await grantBetaAccess(app.dataSource, user.id);
    return { userId: user.id, jwt: await app.accessTokenFor(user.id) };
  }

  /** A site of the caller, made once; its site-admin count is forgotten (only the family under test counts). */
  async function siteFor(who: Caller): Promise<string> {
    let siteId = siteOf.get(who.userId);
    if (!siteId) {
      siteId = (await feedback.http.post('/api/v1/sites').set(bearer(who.jwt)).send({ name: 'Budgeted' }).expect(201)).body.data.site.id as string;
      siteOf.set(who.userId, siteId);
      await feedback.rateLimits.clear('site-admin:');
    }
    return siteId;
  }

  const families: Array<[string, Family]> = [
    ['site administration (create, rename, delete, rotate)', { bucket: 'site-admin', limit: 60, app: () => feedback, send: (c) => feedback.http.post('/api/v1/portfolio-token/rotate').set(bearer(c.jwt)) }],
    [
      'owner batch writes (create, send)',
      {
        bucket: 'question-batch-write',
        limit: 60,
        app: () => feedback,
        send: async (c) => feedback.http.post(`/api/v1/sites/${await siteFor(c)}/questions/${randomUUID()}/send`).set(bearer(c.jwt)),
      },
    ],
    [
      'batch preview',
      {
        bucket: 'question-preview',
        limit: 20,
        app: () => feedback,
        send: async (c) => feedback.http.post(`/api/v1/sites/${await siteFor(c)}/questions/preview`).set(bearer(c.jwt)).send({ questions: [question(1)] }),
      },
    ],
    [
      'feedback triage',
      {
        bucket: 'feedback-triage',
        limit: 300,
        app: () => feedback,
        send: async (c) => feedback.http.put(`/api/v1/sites/${await siteFor(c)}/feedback/${randomUUID()}`).set(bearer(c.jwt)).send({ status: 'triaged' }),
      },
    ],
    ['logout (per session)', { bucket: 'logout', limit: 30, app: () => todo, send: (c) => todo.http.post('/api/v1/auth/logout').set(bearer(c.jwt)).send({ refreshToken: 'not-one-of-yours' }) }],
    ['session revocation', { bucket: 'session-revoke', limit: 60, app: () => todo, send: (c) => todo.http.delete(`/api/v1/auth/sessions/${randomUUID()}`).set(bearer(c.jwt)) }],
    ['API-key issuing (create, rotate)', { bucket: 'api-key-issue', limit: 30, app: () => todo, send: (c) => todo.http.post(`/api/v1/auth/api-keys/${randomUUID()}/rotate`).set(bearer(c.jwt)).send({}) }],
    ['API-key revocation', { bucket: 'api-key-revoke', limit: 60, app: () => todo, send: (c) => todo.http.delete(`/api/v1/auth/api-keys/${randomUUID()}`).set(bearer(c.jwt)) }],
    ['connected-app revocation', { bucket: 'connected-app-revoke', limit: 60, app: () => todo, send: (c) => todo.http.delete(`/api/v1/account/connected-apps/unknown-client`).set(bearer(c.jwt)) }],
  ];

  it.each(families)('%s: 429 RATE_LIMITED over the budget, for the account that spent it only', async (_name, family) => {
    const app = family.app();
    const [spender, other] = [await caller(app, true), await caller(app, true)];
    const before = new Set(await app.rateLimits.keys(`${family.bucket}:`));
    const first = await family.send(spender);
    expect(first.status).not.toBe(429);
    expect(first.headers['ratelimit-limit']).toBe(String(family.limit));
    const opened = (await app.rateLimits.keys(`${family.bucket}:`)).filter((key) => !before.has(key));
    expect(opened).toHaveLength(1);
    // Counted per account (logout: per session of the account), never per client address.
    expect(opened[0]).toMatch(new RegExp(`^${family.bucket}:(user:${spender.userId}|session:[0-9a-f-]{36})$`));
    await app.rateLimits.set(opened[0], family.limit);
    const refused = await family.send(spender);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    figures.writeBudgetRefusals429++;
    // Another account's budget is its own.
    expect((await family.send(other)).status).not.toBe(429);
  });

  it('beta administration: 429 over its budget per client address', async () => {
    const grant = () => todo.http.post('/api/v1/billing/beta/grant').set('X-Admin-Api-Key', ADMIN_KEY).send({ email: 'nobody@example.com' });
    expect((await grant()).status).toBe(404);
    const [key] = await todo.rateLimits.keys('beta-admin:');
    await todo.rateLimits.set(key, 60);
    expect((await grant()).status).toBe(429);
    figures.writeBudgetRefusals429++;
  });

  function expectQuota(res: { status: number; body: unknown }, quota: string): void {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: { code: 'QUOTA_EXCEEDED', message: expect.any(String), details: { quota, limit: expect.any(Number) } } });
    figures.quotaHits403++;
  }

  it('sites per account: the fourth is 403 QUOTA_EXCEEDED; deleting one frees a place; other accounts are not affected', async () => {
    const owner = await createOwner(feedback);
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) ids.push((await feedback.http.post('/api/v1/sites').set(bearer(owner.jwt)).send({ name: `Site ${i}` }).expect(201)).body.data.site.id);
    expectQuota(await feedback.http.post('/api/v1/sites').set(bearer(owner.jwt)).send({ name: 'One too many' }), 'sitesPerAccount');
    expect((await feedback.http.get('/api/v1/sites').set(bearer(owner.jwt)).expect(200)).body.data.sites).toHaveLength(3);
    await feedback.http.delete(`/api/v1/sites/${ids[0]}`).set(bearer(owner.jwt)).expect(200);
    await feedback.http.post('/api/v1/sites').set(bearer(owner.jwt)).send({ name: 'In the freed place' }).expect(201);
    const other = await createOwner(feedback);
    await feedback.http.post('/api/v1/sites').set(bearer(other.jwt)).send({ name: 'Elsewhere' }).expect(201);
  });

  async function countSites(owner: TestOwner): Promise<number> {
    const rows: Array<{ n: number }> = await feedback.dataSource.query(`SELECT count(*)::int AS n FROM sites WHERE owner_id = $1`, [owner.id]);
    return rows[0].n;
  }

  it('sites per account hold under 12 concurrent creates: 3 created, 9 refused', async () => {
    const owner = await createOwner(feedback);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => feedback.http.post('/api/v1/sites').set(bearer(owner.jwt)).send({ name: `Racing ${i}` })));
    figures.racingCreates += answers.length;
    const stored = await countSites(owner);
    figures.quotaViolations += Math.max(0, stored - 3);
    expect(stored).toBe(3);
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(3).fill(201), ...Array(9).fill(403)]);
    for (const res of answers.filter((r) => r.status === 403)) expectQuota(res, 'sitesPerAccount');
  });

  it('batches per site (write token, owner and MCP share it): the fifth is 403 QUOTA_EXCEEDED', async () => {
    const owner = await createOwner(feedback);
    const site = await createSite(feedback, owner, 'Batches');
    for (let i = 1; i <= 2; i++) await feedback.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: `Token ${i}`, questions: [question(1)] }).expect(201);
    for (let i = 1; i <= 2; i++) await feedback.http.post(`/api/v1/sites/${site.id}/questions`).set(bearer(owner.jwt)).send({ title: `Owner ${i}`, questions: [question(1)] }).expect(201);
    expectQuota(await feedback.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Fifth', questions: [question(1)] }), 'batchesPerSite');
    expectQuota(await feedback.http.post(`/api/v1/sites/${site.id}/questions`).set(bearer(owner.jwt)).send({ title: 'Fifth', questions: [question(1)] }), 'batchesPerSite');
    const mcp = new Client({ name: 'quota-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${feedback.baseUrl}/api/v1/mcp`), { requestInit: { headers: bearer(site.writeToken) } }));
    try {
      const result = (await mcp.callTool({ name: 'create_question_batch', arguments: { title: 'Fifth', questions: [question(1)] } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('QUOTA_EXCEEDED');
      figures.quotaHits403++;
    } finally {
      await mcp.close();
    }
    // Another site of the account has its own.
    const other = await createSite(feedback, owner, 'Other batches');
    await feedback.http.post('/api/v1/export/questions').set(bearer(other.writeToken)).send({ title: 'Elsewhere', questions: [question(1)] }).expect(201);
  });

  it('batches per site hold under 12 concurrent creates: 4 created, 8 refused', async () => {
    const owner = await createOwner(feedback);
    const site = await createSite(feedback, owner, 'Racing batches');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? feedback.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: `Racing ${i}`, questions: [question(1)] })
          : feedback.http.post(`/api/v1/sites/${site.id}/questions`).set(bearer(owner.jwt)).send({ title: `Racing ${i}`, questions: [question(1)] }),
      ),
    );
    figures.racingCreates += answers.length;
    const rows: Array<{ n: number }> = await feedback.dataSource.query(`SELECT count(*)::int AS n FROM question_batches WHERE site_id = $1`, [site.id]);
    figures.quotaViolations += Math.max(0, rows[0].n - 4);
    expect(rows[0].n).toBe(4);
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(4).fill(201), ...Array(8).fill(403)]);
    for (const res of answers.filter((r) => r.status === 403)) expectQuota(res, 'batchesPerSite');
  });

  it('stored batch bytes per site: a batch that would pass 64 KiB is 403 QUOTA_EXCEEDED, also when creates race', async () => {
    const owner = await createOwner(feedback);
    const site = await createSite(feedback, owner, 'Bytes');
    // About 20 KB of text each (multi-byte characters count as their UTF-8 bytes): three fit in 64 KiB, a fourth does not.
    const heavy = (i: number) => ({ title: `Heavy ${i}`, questions: [question(1, `<p>${'é'.repeat(5_000)}</p>`), question(2, `<p>${'x'.repeat(10_000)}</p>`)] });
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => feedback.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send(heavy(i))));
    figures.racingCreates += answers.length;
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 403]);
    expectQuota(answers.find((res) => res.status === 403)!, 'batchBytesPerSite');
    // A small batch still fits.
    await feedback.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Small', questions: [question(1)] }).expect(201);

    // The usage counted in SQL is the TypeScript measure of what was stored.
    const repository = feedback.app.get(QuestionsRepository);
    const usage = await repository.transaction((tx) => repository.lockSiteBatchUsage(tx, owner.id, site.id));
    const batches = await repository.listBySite(owner.id, site.id);
    let expected = 0;
    for (const batch of batches) {
      const questions = await repository.questionsWithAnswers(batch.id);
      expected += storedBatchBytes({ title: batch.title, introHtml: batch.introHtml, questions });
    }
    expect(usage).toEqual({ batches: 4, bytes: expected });
    if (expected > 64 * 1024) figures.quotaViolations++;
    expect(expected).toBeLessThanOrEqual(64 * 1024);
  });
});
