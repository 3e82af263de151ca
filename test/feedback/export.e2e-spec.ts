import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, resetRateLimits, seedFeedback, type TestOwner, type TestSite } from './feedback-fixtures.js';

const SITE = '/api/v1/export/feedback';
const PORTFOLIO = '/api/v1/export/portfolio/feedback';

describe('feedback export, triage and token scopes', () => {
  let t: TestApp;
  let owner: TestOwner;
  let other: TestOwner;
  let siteA: TestSite;
  let siteB: TestSite;
  let emptySite: TestSite;
  let otherSite: TestSite;
  let rotatedRead: string;
  let rotatedWrite: string;
  let rotatedPortfolio: string;
  let idsA: string[];
  let idsB: string[];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    other = await createOwner(t);
    siteA = await createSite(t, owner, 'Alpha');
    siteB = await createSite(t, owner, 'Beta');
    emptySite = await createSite(t, owner, 'Empty');
    otherSite = await createSite(t, other, 'Alpha');

    // Rotate once so that the first tokens are dead.
    rotatedRead = siteA.readToken;
    rotatedWrite = siteA.writeToken;
    rotatedPortfolio = owner.portfolioToken;
    siteA.readToken = (await t.http.post(`/api/v1/sites/${siteA.id}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    siteA.writeToken = (await t.http.post(`/api/v1/sites/${siteA.id}/tokens/write/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    owner.portfolioToken = (await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(owner.jwt)).expect(200)).body.data.token;

    const types = ['feedback', 'feature_request', 'bug'] as const;
    idsA = [];
    idsB = [];
    // Interleave the sites so the portfolio order mixes them.
    for (let round = 0; round < 3; round++) {
      idsA.push(...(await seedFeedback(t, owner, siteA, 70, (i) => ({ type: types[i % 3], rating: i % 6 === 0 ? null : (i % 5) + 1, message: `A${round}-${i}` }))));
      idsB.push(...(await seedFeedback(t, owner, siteB, 20, (i) => ({ type: types[(i + 1) % 3], message: `B${round}-${i}` }))));
    }
    await seedFeedback(t, other, otherSite, 5);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function pageAll(path: string, token: string, limit: number | undefined, extra: Record<string, string> = {}) {
    const seen: any[] = [];
    let since: string | undefined;
    for (let guard = 0; guard < 1000; guard++) {
      await resetRateLimits(t);
      const query: Record<string, string> = { ...extra };
      if (limit !== undefined) query.limit = String(limit);
      if (since !== undefined) query.since = since;
      const res = await t.http.get(path).query(query).set(bearer(token)).expect(200);
      const page = res.body.data;
      expect(page.feedback.length).toBeLessThanOrEqual(limit ?? 50);
      seen.push(...page.feedback);
      expect(typeof page.nextCursor).toBe('string');
      since = page.nextCursor;
      if (!page.hasMore) {
        // Caught up: the next poll is empty and hands the cursor back unchanged.
        const again = await t.http.get(path).query({ ...query, since }).set(bearer(token)).expect(200);
        expect(again.body.data).toMatchObject({ feedback: [], nextCursor: since, hasMore: false });
        return { seen, cursor: since };
      }
      expect(page.feedback.length).toBe(limit ?? 50);
    }
    throw new Error('paging did not end');
  }

  describe('token x route scope table', () => {
    it('answers each token on each route as the spec says', async () => {
      const [itemOfA] = idsA;
      const tokens: Record<string, string | undefined> = {
        sk: siteA.readToken,
        wk: siteA.writeToken,
        ok: owner.portfolioToken,
        rotatedSk: rotatedRead,
        rotatedWk: rotatedWrite,
        rotatedOk: rotatedPortfolio,
        none: undefined,
        otherSiteWk: siteB.writeToken,
        otherAccountOk: other.portfolioToken,
        jwt: owner.jwt,
        garbage: 'sk_' + 'x'.repeat(43),
      };
      const expected: Record<string, { site: number; portfolio: number; put: number }> = {
        sk: { site: 200, portfolio: 401, put: 401 },
        wk: { site: 200, portfolio: 401, put: 200 },
        ok: { site: 401, portfolio: 200, put: 401 },
        rotatedSk: { site: 401, portfolio: 401, put: 401 },
        rotatedWk: { site: 401, portfolio: 401, put: 401 },
        rotatedOk: { site: 401, portfolio: 401, put: 401 },
        none: { site: 401, portfolio: 401, put: 401 },
        otherSiteWk: { site: 200, portfolio: 401, put: 404 },
        otherAccountOk: { site: 401, portfolio: 200, put: 401 },
        jwt: { site: 401, portfolio: 401, put: 401 },
        garbage: { site: 401, portfolio: 401, put: 401 },
      };
      for (const [name, token] of Object.entries(tokens)) {
        const auth = token ? bearer(token) : {};
        const site = await t.http.get(SITE).set(auth);
        const portfolio = await t.http.get(PORTFOLIO).set(auth);
        const put = await t.http.put(`${SITE}/${itemOfA}`).set(auth).send({ status: 'triaged' });
        const actual = { site: site.status, portfolio: portfolio.status, put: put.status };
        expect({ name, ...actual }).toEqual({ name, ...expected[name] });
        for (const res of [site, portfolio, put]) {
          if (res.status === 401) expect(res.body).toEqual({ success: false, error: { code: 'INVALID_TOKEN', message: expect.any(String) } });
          if (res.status === 404) expect(res.body.error.code).toBe('NOT_FOUND');
        }
      }
      await resetRateLimits(t);
    });

    it('scopes a site token to its own site and a portfolio token to its own account', async () => {
      const b = (await t.http.get(SITE).query({ limit: '200' }).set(bearer(siteB.readToken)).expect(200)).body.data.feedback;
      expect(b.map((f: { id: string }) => f.id).sort()).toEqual([...idsB].sort());
      const otherPage = (await t.http.get(PORTFOLIO).query({ limit: '200' }).set(bearer(other.portfolioToken)).expect(200)).body.data;
      expect(otherPage.feedback).toHaveLength(5);
      expect(otherPage.sites).toEqual([{ id: otherSite.id, slug: 'alpha', name: 'Alpha' }]);
      await resetRateLimits(t);
    });
  });

  describe('paging', () => {
    it.each([1, 2, 7, 50, 199, 200, undefined])('returns every row of the site exactly once, in (createdAt, id) order, with limit %s', async (limit) => {
      const { seen } = await pageAll(SITE, siteA.readToken, limit);
      const ids = seen.map((f) => f.id);
      expect(new Set(ids).size).toBe(ids.length);
      const ordered: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM feedback WHERE site_id = $1 ORDER BY created_at, id`, [siteA.id]);
      expect(ids).toEqual(ordered.map((row) => row.id));
      expect(ids.sort()).toEqual([...idsA].sort());
      const stamps = seen.map((f) => f.createdAt);
      expect([...stamps].sort()).toEqual(stamps);
    });

    it.each([1, 13, 200])('returns every row of every site exactly once across the portfolio, in (createdAt, siteId, id) order, with limit %s', async (limit) => {
      const { seen } = await pageAll(PORTFOLIO, owner.portfolioToken, limit);
      const ids = seen.map((f) => f.id);
      const ordered: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM feedback WHERE owner_id = $1 ORDER BY created_at, site_id, id`, [owner.id]);
      expect(ids).toEqual(ordered.map((row) => row.id));
      expect(new Set(ids)).toEqual(new Set([...idsA, ...idsB]));
    });

    it('shapes items exactly as published, createdAt in UTC seconds', async () => {
      const page = (await t.http.get(SITE).query({ limit: '1' }).set(bearer(siteA.readToken)).expect(200)).body.data;
      expect(page).toEqual({ feedback: [expect.any(Object)], nextCursor: expect.any(String), hasMore: true });
      const [item] = page.feedback;
      expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'message', 'pageUrl', 'rating', 'siteId', 'status', 'type']);
      const [first] = await t.dataSource.query(
        `SELECT id, message, rating, type, status FROM feedback WHERE site_id = $1 ORDER BY created_at, id LIMIT 1`,
        [siteA.id],
      );
      expect(item).toMatchObject({ ...first, siteId: siteA.id, pageUrl: 'https://example.com/' });
      expect(item.message).toMatch(/^A0-/);
      expect(item.createdAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const [row] = await t.dataSource.query(`SELECT created_at FROM feedback WHERE id = $1`, [item.id]);
      expect(item.createdAt).toBe(new Date(row.created_at).toISOString().slice(0, 19).replace('T', ' '));

      const portfolio = (await t.http.get(PORTFOLIO).query({ limit: '200' }).set(bearer(owner.portfolioToken)).expect(200)).body.data;
      expect(Object.keys(portfolio).sort()).toEqual(['feedback', 'hasMore', 'nextCursor', 'sites']);
      const fromB = portfolio.feedback.find((f: { siteId: string }) => f.siteId === siteB.id);
      expect(fromB).toMatchObject({ siteSlug: 'beta', siteName: 'Beta' });
      expect(Object.keys(fromB).sort()).toEqual(['createdAt', 'id', 'message', 'pageUrl', 'rating', 'siteId', 'siteName', 'siteSlug', 'status', 'type']);
      expect(portfolio.sites).toEqual([
        { id: siteA.id, slug: 'alpha', name: 'Alpha' },
        { id: siteB.id, slug: 'beta', name: 'Beta' },
        { id: emptySite.id, slug: 'empty', name: 'Empty' },
      ]);
      await resetRateLimits(t);
    });

    it('gives an empty site a cursor that comes back unchanged, then delivers new rows once', async () => {
      const first = (await t.http.get(SITE).set(bearer(emptySite.readToken)).expect(200)).body.data;
      expect(first).toEqual({ feedback: [], nextCursor: expect.any(String), hasMore: false });
      const second = (await t.http.get(SITE).query({ since: first.nextCursor }).set(bearer(emptySite.readToken)).expect(200)).body.data;
      expect(second).toEqual({ feedback: [], nextCursor: first.nextCursor, hasMore: false });
      // Without since, the same start cursor each time.
      expect((await t.http.get(SITE).set(bearer(emptySite.writeToken)).expect(200)).body.data.nextCursor).toBe(first.nextCursor);

      const [newId] = await seedFeedback(t, owner, emptySite, 1);
      const third = (await t.http.get(SITE).query({ since: second.nextCursor }).set(bearer(emptySite.readToken)).expect(200)).body.data;
      expect(third.feedback.map((f: { id: string }) => f.id)).toEqual([newId]);
      expect(third.nextCursor).not.toBe(second.nextCursor);
      const fourth = (await t.http.get(SITE).query({ since: third.nextCursor }).set(bearer(emptySite.readToken)).expect(200)).body.data;
      expect(fourth).toEqual({ feedback: [], nextCursor: third.nextCursor, hasMore: false });
      // A cursor survives rotation of the token: it belongs to the site.
      const rotated = (await t.http.post(`/api/v1/sites/${emptySite.id}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
      emptySite.readToken = rotated;
      await t.http.get(SITE).query({ since: third.nextCursor }).set(bearer(rotated)).expect(200);
      await t.dataSource.query(`DELETE FROM feedback WHERE id = $1`, [newId]);
      await resetRateLimits(t);
    });
  });

  describe('filters and query validation', () => {
    it('filters by type and by status, alone and together, while paging', async () => {
      const bugs = (await pageAll(SITE, siteA.readToken, 17, { type: 'bug' })).seen;
      const expectedBugs: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM feedback WHERE site_id = $1 AND type = 'bug' ORDER BY created_at, id`, [siteA.id]);
      expect(bugs.map((f) => f.id)).toEqual(expectedBugs.map((r) => r.id));
      expect(bugs.length).toBeGreaterThan(0);

      const toResolve = bugs.slice(0, 3).map((f) => f.id);
      for (const id of toResolve) {
        const res = await t.http.put(`${SITE}/${id}`).set(bearer(siteA.writeToken)).send({ status: 'resolved' }).expect(200);
        expect(res.body.data.feedback).toMatchObject({ id, status: 'resolved', type: 'bug', siteId: siteA.id });
      }
      const resolved = (await pageAll(SITE, siteA.readToken, 2, { status: 'resolved' })).seen;
      expect(resolved.map((f) => f.id).sort()).toEqual([...toResolve].sort());
      const resolvedFeatures = (await pageAll(SITE, siteA.readToken, 50, { status: 'resolved', type: 'feature_request' })).seen;
      expect(resolvedFeatures).toEqual([]);
      const portfolioResolved = (await pageAll(PORTFOLIO, owner.portfolioToken, 50, { status: 'resolved', type: 'bug' })).seen;
      expect(portfolioResolved.map((f) => f.id).sort()).toEqual([...toResolve].sort());
      const newOnes = (await pageAll(PORTFOLIO, owner.portfolioToken, 200, { status: 'new' })).seen;
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM feedback WHERE owner_id = $1 AND status = 'new'`, [owner.id]);
      expect(count).toBeGreaterThan(200);
      expect(newOnes).toHaveLength(count);
      expect(newOnes.every((f) => f.status === 'new')).toBe(true);
      // Restore for the other tests.
      await t.dataSource.query(`UPDATE feedback SET status = 'new' WHERE id = ANY($1::uuid[])`, [toResolve]);
    });

    it('refuses bad limits, types, statuses and unknown parameters with 400', async () => {
      for (const query of [{ limit: '0' }, { limit: '201' }, { limit: '-1' }, { limit: 'abc' }, { limit: '1.5' }, { limit: '' }, { type: 'praise' }, { status: 'open' }, { foo: '1' }]) {
        for (const [path, token] of [[SITE, siteA.readToken], [PORTFOLIO, owner.portfolioToken]]) {
          const res = await t.http.get(path).query(query).set(bearer(token));
          expect({ query, status: res.status, code: res.body.error?.code }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR' });
        }
      }
      const repeated = await t.http.get(`${SITE}?limit=1&limit=2`).set(bearer(siteA.readToken));
      expect(repeated.status).toBe(400);
      await resetRateLimits(t);
    });
  });

  describe('cursors', () => {
    it('refuses a portfolio cursor on the site route and a site cursor on the portfolio route (CURSOR_MISMATCH)', async () => {
      const siteCursor = (await t.http.get(SITE).query({ limit: '3' }).set(bearer(siteA.readToken)).expect(200)).body.data.nextCursor;
      const portfolioCursor = (await t.http.get(PORTFOLIO).query({ limit: '3' }).set(bearer(owner.portfolioToken)).expect(200)).body.data.nextCursor;
      const startSiteCursor = (await t.http.get(SITE).set(bearer(emptySite.readToken)).query({ type: 'bug', status: 'triaged' }).expect(200)).body.data.nextCursor;

      for (const [path, token, since] of [
        [SITE, siteA.readToken, portfolioCursor],
        [PORTFOLIO, owner.portfolioToken, siteCursor],
        [PORTFOLIO, owner.portfolioToken, startSiteCursor],
      ]) {
        const res = await t.http.get(path).query({ since }).set(bearer(token)).expect(400);
        expect(res.body).toEqual({ success: false, error: { code: 'CURSOR_MISMATCH', message: expect.any(String) } });
      }
      // Another site's cursor, another account's portfolio cursor.
      expect((await t.http.get(SITE).query({ since: siteCursor }).set(bearer(siteB.readToken)).expect(400)).body.error.code).toBe('CURSOR_MISMATCH');
      expect((await t.http.get(PORTFOLIO).query({ since: portfolioCursor }).set(bearer(other.portfolioToken)).expect(400)).body.error.code).toBe('CURSOR_MISMATCH');
    });

    it('refuses corrupt and forged cursors with 400 VALIDATION_ERROR', async () => {
      const cursor: string = (await t.http.get(SITE).query({ limit: '2' }).set(bearer(siteA.readToken)).expect(200)).body.data.nextCursor;
      const [version, payload, signature] = cursor.split('.');
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString());
      fields[2] = '1999-01-01 00:00:00.000000';
      const forged = `${version}.${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
      const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
      for (const since of [forged, flipped, 'garbage', '', 'c1..', `${cursor}.x`, cursor.slice(0, 10), 'x'.repeat(1001)]) {
        const res = await t.http.get(SITE).query({ since }).set(bearer(siteA.readToken));
        expect({ since, status: res.status, code: res.body.error?.code }).toEqual({ since, status: 400, code: 'VALIDATION_ERROR' });
      }
      await resetRateLimits(t);
    });
  });

  describe('triage', () => {
    it('updates the status with the write token and answers data.feedback', async () => {
      const id = idsA[5];
      const res = await t.http.put(`${SITE}/${id}`).set(bearer(siteA.writeToken)).send({ status: 'triaged' }).expect(200);
      expect(res.body).toEqual({ success: true, data: { feedback: expect.objectContaining({ id, siteId: siteA.id, status: 'triaged' }) } });
      const [row] = await t.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [id]);
      expect(row.status).toBe('triaged');
      await t.http.put(`${SITE}/${id}`).set(bearer(siteA.writeToken)).send({ status: 'resolved' }).expect(200);
    });

    it('refuses a read token (401), another site\'s id (404), unknown ids (404), bad ids and bodies (400)', async () => {
      const id = idsA[6];
      expect((await t.http.put(`${SITE}/${id}`).set(bearer(siteA.readToken)).send({ status: 'triaged' }).expect(401)).body.error.code).toBe('INVALID_TOKEN');
      expect((await t.http.put(`${SITE}/${idsB[0]}`).set(bearer(siteA.writeToken)).send({ status: 'triaged' }).expect(404)).body.error.code).toBe('NOT_FOUND');
      await t.http.put(`${SITE}/00000000-0000-4000-8000-000000000000`).set(bearer(siteA.writeToken)).send({ status: 'triaged' }).expect(404);
      expect((await t.http.put(`${SITE}/not-a-uuid`).set(bearer(siteA.writeToken)).send({ status: 'triaged' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
      for (const body of [{}, { status: 'new' }, { status: 'done' }, { status: 'triaged', extra: true }, { status: 1 }]) {
        expect((await t.http.put(`${SITE}/${id}`).set(bearer(siteA.writeToken)).send(body).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
      }
      const [row] = await t.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [id]);
      expect(row.status).toBe('new');
      const [otherRow] = await t.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [idsB[0]]);
      expect(otherRow.status).toBe('new');
      await resetRateLimits(t);
    });
  });
});
