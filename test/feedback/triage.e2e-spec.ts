import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser } from '#libs/testing';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, resetRateLimits, seedFeedback, type TestOwner, type TestSite } from './feedback-fixtures.js';

/**
 * The dashboard's triage routes (owner JWT): the search view (newest first, search, filters,
 * offset paging), bulk status, counts of new items per site, the CSV download (formula-safe),
 * and the reporter context the widget sends, in the triage view and in both exports.
 */
describe('owner triage: search, bulk status, new counts, CSV, reporter context', () => {
  let t: TestApp;
  let owner: TestOwner;
  let other: TestOwner;
  let site: TestSite;
  let quiet: TestSite;
  let otherSite: TestSite;
  let seeded: string[];
  const context = { browser: 'Firefox 133', os: 'Android 15', viewport: '390x844', language: 'de-DE', referrer: 'https://search.example/results' };

  const search = (siteId: string, query: Record<string, string>, jwt = owner.jwt) => t.http.get(`/api/v1/sites/${siteId}/feedback/search`).query(query).set(bearer(jwt));

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    other = await createOwner(t);
    site = await createSite(t, owner, 'Shop');
    quiet = await createSite(t, owner, 'Quiet');
    otherSite = await createSite(t, other, 'Shop');
    // Oldest first, one insert each (rows of one insert share their time): m0 … m5; m3 has a literal
    // percent sign, m4 a spreadsheet formula, m2 a page URL to search for.
    seeded = [];
    for (let i = 0; i < 6; i++) {
      seeded.push(
        ...(await seedFeedback(t, owner, site, 1, () => ({
          type: (['bug', 'feedback', 'feature_request'] as const)[i % 3],
          message: i === 3 ? 'Coupon gives 100% off' : i === 4 ? '=HYPERLINK("http://evil.example","click")' : `message m${i}`,
          pageUrl: i === 2 ? 'https://shop.example/Checkout?step=2' : 'https://shop.example/',
        }))),
      );
    }
    await seedFeedback(t, other, otherSite, 2, () => ({ message: 'Coupon elsewhere' }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists newest first by default, oldest first on request, with total and offset paging', async () => {
    const newest = (await search(site.id, {}).expect(200)).body.data;
    expect(newest.feedback.map((f: { id: string }) => f.id)).toEqual([...seeded].reverse());
    expect(newest).toMatchObject({ total: 6, hasMore: false });
    const oldest = (await search(site.id, { order: 'oldest', limit: '4' }).expect(200)).body.data;
    expect(oldest.feedback.map((f: { id: string }) => f.id)).toEqual(seeded.slice(0, 4));
    expect(oldest).toMatchObject({ total: 6, hasMore: true });
    const next = (await search(site.id, { order: 'oldest', limit: '4', offset: '4' }).expect(200)).body.data;
    expect(next.feedback.map((f: { id: string }) => f.id)).toEqual(seeded.slice(4));
    expect(next.hasMore).toBe(false);
  });

  it('searches message and page URL case-insensitively, taking % and _ literally, and filters by type and day', async () => {
    const percent = (await search(site.id, { q: '100%' }).expect(200)).body.data;
    expect(percent.feedback.map((f: { id: string }) => f.id)).toEqual([seeded[3]]);
    expect((await search(site.id, { q: '%' }).expect(200)).body.data.total).toBe(1);
    expect((await search(site.id, { q: 'm_' }).expect(200)).body.data.total).toBe(0);
    const url = (await search(site.id, { q: 'checkout' }).expect(200)).body.data;
    expect(url.feedback.map((f: { id: string }) => f.id)).toEqual([seeded[2]]);
    expect((await search(site.id, { type: 'bug' }).expect(200)).body.data.feedback.map((f: { id: string }) => f.id)).toEqual([seeded[3], seeded[0]]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await search(site.id, { from: today, to: today }).expect(200)).body.data.total).toBe(6);
    expect((await search(site.id, { to: '2000-01-01' }).expect(200)).body.data.total).toBe(0);
    expect((await search(site.id, { from: '3000-01-01' }).expect(200)).body.data.total).toBe(0);
    // Another owner's words never show; another owner's site is 404.
    expect((await search(site.id, { q: 'elsewhere' }).expect(200)).body.data.total).toBe(0);
    await search(otherSite.id, {}).expect(404);
  });

  it('refuses bad filters with the field named', async () => {
    const bad = await search(site.id, { from: '2026-13-01', order: 'random', limit: '500', q: 'x'.repeat(201) }).expect(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['from', 'limit', 'order', 'q']);
  });

  it('changes the status of several items at once, only on the site, and counts new items per site', async () => {
    const before = (await t.http.get('/api/v1/feedback/new-counts').set(bearer(owner.jwt)).expect(200)).body.data.sites;
    expect(before).toEqual(expect.arrayContaining([{ siteId: site.id, count: 6 }, { siteId: quiet.id, count: 0 }]));
    expect(before).toHaveLength(2);

    const foreign = (await search(otherSite.id, {}, other.jwt).expect(200)).body.data.feedback[0].id;
    const res = await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: [seeded[0], seeded[1], foreign], status: 'triaged' }).expect(200);
    expect([...res.body.data.updated].sort()).toEqual([seeded[0], seeded[1]].sort());
    expect((await search(otherSite.id, { status: 'new' }, other.jwt).expect(200)).body.data.total).toBe(2);
    expect((await search(site.id, { status: 'triaged' }).expect(200)).body.data.feedback.map((f: { id: string }) => f.id)).toEqual([seeded[1], seeded[0]]);

    const after = (await t.http.get('/api/v1/feedback/new-counts').set(bearer(owner.jwt)).expect(200)).body.data.sites;
    expect(after).toEqual(expect.arrayContaining([{ siteId: site.id, count: 4 }, { siteId: quiet.id, count: 0 }]));
    expect((await t.http.get('/api/v1/feedback/new-counts').set(bearer(other.jwt)).expect(200)).body.data.sites).toEqual([{ siteId: otherSite.id, count: 2 }]);

    const tooMany = await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: Array(201).fill(seeded[0]), status: 'resolved' }).expect(400);
    expect(tooMany.body.error.details.fields[0].field).toBe('ids');
    await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: [seeded[0]], status: 'new' }).expect(400);
    await t.http.post(`/api/v1/sites/${otherSite.id}/feedback/status`).set(bearer(owner.jwt)).send({ ids: [foreign], status: 'resolved' }).expect(404);
    await t.http.post(`/api/v1/sites/${site.id}/feedback/status`).send({ ids: [seeded[0]], status: 'resolved' }).expect(401);
  });

  it('downloads the filter as CSV: quoted cells, formulas neutralised, the reporter context columns', async () => {
    await resetRateLimits(t);
    const res = await t.http.get(`/api/v1/sites/${site.id}/feedback/export.csv`).query({ status: 'new' }).set(bearer(owner.jwt)).buffer(true).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="feedback.csv"');
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('"id","createdAt","type","status","rating","message","pageUrl","browser","os","viewport","language","referrer","reporterId","reporterEmail","reporterName"');
    expect(lines.at(-1)).toBe('');
    // status=new, newest first: m5, m4, m3, m2.
    expect(lines.slice(1, -1).map((line) => line.slice(1, 37))).toEqual([seeded[5], seeded[4], seeded[3], seeded[2]]);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(res.text).not.toMatch(/(^|,)"=/m);
    await t.http.get(`/api/v1/sites/${otherSite.id}/feedback/export.csv`).set(bearer(owner.jwt)).expect(404);
    await t.http.get(`/api/v1/sites/${site.id}/feedback/export.csv`).expect(401);
  });

  it('stores the reporter context the widget sends and shows it in the triage view, the CSV and both exports (only when captured)', async () => {
    await resetRateLimits(t);
    const sent = await t.http.post('/api/v1/widget/feedback').send({ siteKey: quiet.siteKey, type: 'bug', message: 'Button hidden on my phone', pageUrl: 'https://shop.example/cart', reporterContext: context }).expect(201);
    const plain = await t.http.post('/api/v1/widget/feedback').send({ siteKey: quiet.siteKey, type: 'feedback', message: 'No context', pageUrl: 'https://shop.example/' }).expect(201);
    const items = (await search(quiet.id, {}).expect(200)).body.data.feedback;
    expect(items.find((f: { id: string }) => f.id === sent.body.data.id).reporterContext).toEqual(context);
    expect(items.find((f: { id: string }) => f.id === plain.body.data.id)).not.toHaveProperty('reporterContext');

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(quiet.readToken)).expect(200)).body.data.feedback;
    expect(exported.find((f: { id: string }) => f.id === sent.body.data.id).reporterContext).toEqual(context);
    expect(exported.find((f: { id: string }) => f.id === plain.body.data.id)).not.toHaveProperty('reporterContext');
    const portfolio = (await t.http.get('/api/v1/export/portfolio/feedback').set(bearer(owner.portfolioToken)).query({ limit: '200' }).expect(200)).body.data.feedback;
    expect(portfolio.find((f: { id: string }) => f.id === sent.body.data.id)).toMatchObject({ reporterContext: context, siteSlug: quiet.slug });

    const csv = (await t.http.get(`/api/v1/sites/${quiet.id}/feedback/export.csv`).set(bearer(owner.jwt)).buffer(true).expect(200)).text;
    expect(csv).toContain('"Button hidden on my phone","https://shop.example/cart","Firefox 133","Android 15","390x844","de-DE","https://search.example/results",,,\r\n');

    // Short descriptive strings only: a cookie-sized blob or a page's text is refused.
    const bad = await t.http
      .post('/api/v1/widget/feedback')
      .send({ siteKey: quiet.siteKey, type: 'bug', message: 'x', pageUrl: 'https://shop.example/', reporterContext: { viewport: 'wide', browser: 'b'.repeat(65), cookies: 'session=1' } })
      .expect(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['reporterContext.browser', 'reporterContext.cookies', 'reporterContext.viewport']);
  });

  it('tells whether the account has a portfolio token, never the token', async () => {
    const fresh = await t.accessTokenFor((await insertUser(t.dataSource)).id);
    expect((await t.http.get('/api/v1/portfolio-token').set(bearer(fresh)).expect(200)).body.data).toEqual({ createdAt: null });
    const issued = (await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(fresh)).expect(200)).body.data.token;
    const state = (await t.http.get('/api/v1/portfolio-token').set(bearer(fresh)).expect(200)).body.data;
    expect(Object.keys(state)).toEqual(['createdAt']);
    expect(Date.now() - Date.parse(state.createdAt)).toBeLessThan(10 * 60_000);
    expect(JSON.stringify(state)).not.toContain(issued.slice(3, 12));
    await t.http.get('/api/v1/portfolio-token').expect(401);
  });
});
