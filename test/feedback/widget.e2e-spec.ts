import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

const SUBMIT = '/api/v1/widget/feedback';

describe('feedback widget', () => {
  let t: TestApp & { database: { url: string } };
  let owner: TestOwner;
  let site: TestSite;

  beforeAll(async () => {
    // CORS restricted for the app: the widget routes must stay open to every origin anyway.
    t = await startWithDatabase('feedback-export', { CORS_ORIGINS: 'https://dashboard.example.com' });
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Widget site');
  });
  afterAll(async () => {
    await t?.close();
  });

  const valid = () => ({ siteKey: site.siteKey, type: 'bug', message: 'The <b>button</b> is broken', rating: 2, pageUrl: 'https://shop.example.org/cart?x=1' });

  it('serves a dependency-free script that renders text only through textContent', async () => {
    const res = await t.http.get('/widget.js').set('Origin', 'https://shop.example.org').expect(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.text).toContain('/api/v1/widget/feedback');
    expect(res.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|import\s|require\(/);
    expect(res.text.length).toBeLessThan(17_500);
  });

  it('accepts valid feedback (201 data.id) from any origin, and the export returns it', async () => {
    const res = await t.http.post(SUBMIT).set('Origin', 'https://shop.example.org').send(valid()).expect(201);
    expect(res.body).toEqual({ success: true, data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const noRating = await t.http.post(SUBMIT).send({ ...valid(), rating: undefined, type: 'feature_request', message: 'x'.repeat(5000) }).expect(201);
    const nullRating = await t.http.post(SUBMIT).send({ ...valid(), rating: null, type: 'feedback', message: 'y' }).expect(201);

    const page = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data;
    const byId = new Map(page.feedback.map((f: { id: string }) => [f.id, f]));
    expect(byId.get(res.body.data.id)).toMatchObject({ type: 'bug', message: 'The <b>button</b> is broken', rating: 2, pageUrl: 'https://shop.example.org/cart?x=1', status: 'new', siteId: site.id });
    expect(byId.get(noRating.body.data.id)).toMatchObject({ rating: null, type: 'feature_request' });
    expect(byId.get(nullRating.body.data.id)).toMatchObject({ rating: null, message: 'y' });
  });

  it('answers a CORS preflight from any origin on the widget route, but not on owner routes', async () => {
    const widget = await t.http.options(SUBMIT).set('Origin', 'https://shop.example.org').set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type');
    expect(widget.status).toBe(204);
    expect(widget.headers['access-control-allow-origin']).toBe('*');
    const owner = await t.http.options('/api/v1/sites').set('Origin', 'https://shop.example.org').set('Access-Control-Request-Method', 'POST');
    expect(owner.headers['access-control-allow-origin']).toBeUndefined();
    const dashboard = await t.http.options('/api/v1/sites').set('Origin', 'https://dashboard.example.com').set('Access-Control-Request-Method', 'POST');
    expect(dashboard.headers['access-control-allow-origin']).toBe('https://dashboard.example.com');
  });

  it('refuses invalid input with 400 VALIDATION_ERROR and stores nothing', async () => {
    const [{ count: before }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM feedback`);
    const bad: Array<Record<string, unknown>> = [
      { ...valid(), message: '' },
      { ...valid(), message: '   ' },
      { ...valid(), message: 'x'.repeat(5001) },
      { ...valid(), rating: 0 },
      { ...valid(), rating: 6 },
      { ...valid(), rating: 2.5 },
      { ...valid(), rating: '3' },
      { ...valid(), type: 'praise' },
      { ...valid(), pageUrl: undefined },
      { ...valid(), pageUrl: 'javascript:alert(1)' },
      { ...valid(), pageUrl: 'https://x.example/' + 'a'.repeat(2048) },
      { ...valid(), siteKey: undefined },
      { ...valid(), status: 'resolved' },
      { ...valid(), siteId: site.id },
    ];
    for (const body of bad) {
      const res = await t.http.post(SUBMIT).send(body);
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR' });
    }
    const unknown = await t.http.post(SUBMIT).send({ ...valid(), siteKey: 'site_unknown' }).expect(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const [{ count: after }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM feedback`);
    expect(after).toBe(before);
    await t.rateLimits.clear();
  });

  it('limits submissions per client IP (429 with Retry-After)', async () => {
    for (let i = 0; i < 20; i++) await t.http.post(SUBMIT).send({ ...valid(), message: `m${i}` }).expect(201);
    const limited = await t.http.post(SUBMIT).send(valid()).expect(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('20');
  });

  it('counts an IPv6 client behind the gateway by its /64: 20 submissions from 20 addresses of one /64, the 21st refused; the next /64 is served', async () => {
    const proxied = await startApp('feedback-export', t.database.url, { TRUST_PROXY: 'loopback' });
    try {
      const from = (address: string) => ({ 'X-Forwarded-For': address });
      for (let i = 0; i < 20; i++) {
        await proxied.http.post(SUBMIT).set(from(`2001:db8:5:1::${(i + 1).toString(16)}`)).send({ ...valid(), message: `v6 ${i}` }).expect(201);
      }
      const limited = await proxied.http.post(SUBMIT).set(from('2001:db8:5:1:ffff::1')).send(valid()).expect(429);
      expect(limited.body.error.code).toBe('RATE_LIMITED');
      await proxied.http.post(SUBMIT).set(from('2001:db8:5:2::1')).send(valid()).expect(201);
    } finally {
      await proxied.close();
    }
  });
});
