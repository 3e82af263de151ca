import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { withinOneWindow } from '#libs/testing';
import { bearer, createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

/** The export budget's window: each case below that counts to 60 one request at a time runs inside one. */
const WINDOW_MS = 60_000;

describe('export rate limits: 60 per minute per site and token kind (portfolio: per account), across replicas', () => {
  let t: TestApp & { database: { url: string } };
  let replica: TestApp;
  let owner: TestOwner;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    replica = await startApp('feedback-export', t.database.url);
    owner = await createOwner(t);
  });
  afterAll(async () => {
    await replica?.close();
    await t?.close();
  });

  it('counts a site token over both replicas and answers the 61st request with 429, Retry-After and RateLimit headers', () => withinOneWindow(WINDOW_MS, async () => {
    const site: TestSite = await createSite(t, owner, 'Limited');
    for (let i = 1; i <= 60; i++) {
      const app = i % 2 === 0 ? t : replica;
      const res = await app.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200);
      expect(res.headers['ratelimit-limit']).toBe('60');
      expect(res.headers['ratelimit-remaining']).toBe(String(60 - i));
    }
    const limited = await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(429);
    expect(limited.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe(limited.headers['retry-after']);
    // The write route shares the token's budget.
    await replica.http.put('/api/v1/export/feedback/00000000-0000-4000-8000-000000000000').set(bearer(site.readToken)).send({ status: 'triaged' }).expect(401);

    // The site's write token has a budget of its own.
    await t.http.get('/api/v1/export/feedback').set(bearer(site.writeToken)).expect(200);
   }));

  it('keeps the budget of a site and kind across rotations: a rotated token spends the same budget', () => withinOneWindow(WINDOW_MS, async () => {
    const rotating = await createSite(t, owner, 'Rotating');
    for (let i = 1; i <= 60; i++) await (i % 2 === 0 ? t : replica).http.get('/api/v1/export/feedback').set(bearer(rotating.readToken)).expect(200);
    await t.http.get('/api/v1/export/feedback').set(bearer(rotating.readToken)).expect(429);
    const rotated = (await t.http.post(`/api/v1/sites/${rotating.id}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    const again = await replica.http.get('/api/v1/export/feedback').set(bearer(rotated)).expect(429);
    expect(again.body.error.code).toBe('RATE_LIMITED');
    // The budget is the site's read budget, one counter whatever the token: `site-token:<siteId>:read`.
    expect(await t.rateLimits.keys(`feedback-export-token:site-token:${rotating.id}:read`)).toHaveLength(1);
    // The write token, rotated or not, spends the site's write budget, untouched so far.
    const rotatedWrite = (await t.http.post(`/api/v1/sites/${rotating.id}/tokens/write/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    const write = await t.http.get('/api/v1/export/feedback').set(bearer(rotatedWrite)).expect(200);
    expect(write.headers['ratelimit-remaining']).toBe('59');
   }));

  it('spends nothing of a token budget on a route the token may not use', async () => {
    const other = await createSite(t, owner, 'Budget');
    await t.http.get('/api/v1/export/feedback').set(bearer(other.readToken)).expect(200);
    // A read token on the write route is refused at authentication, before the limit.
    for (let i = 0; i < 3; i++) {
      await t.http.put('/api/v1/export/feedback/00000000-0000-4000-8000-000000000000').set(bearer(other.readToken)).send({ status: 'triaged' }).expect(401);
    }
    const next = await replica.http.get('/api/v1/export/feedback').set(bearer(other.readToken)).expect(200);
    expect(next.headers['ratelimit-remaining']).toBe('58');
  });

  it('holds exactly under 100 concurrent requests spread over both replicas: 60 answered, 40 refused', async () => {
    const concurrent = await createSite(t, owner, 'Concurrent');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? t : replica).http.get('/api/v1/export/feedback').set(bearer(concurrent.readToken))),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    // Each answered request saw its own count: remaining 59 down to 0, once each.
    const remaining = answers.filter((res) => res.status === 200).map((res) => Number(res.headers['ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // RateLimit-* in the house's names, not throttler's X-RateLimit-* defaults.
    expect(Object.keys(answers[0].headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('limits the portfolio token the same way', () => withinOneWindow(WINDOW_MS, async () => {
    // The portfolio budget is per account: a fresh owner, so a second run starts from zero.
    const portfolioOwner = await createOwner(t);
    for (let i = 1; i <= 60; i++) {
      await (i % 2 === 0 ? t : replica).http.get('/api/v1/export/portfolio/feedback').set(bearer(portfolioOwner.portfolioToken)).expect(200);
    }
    const limited = await replica.http.get('/api/v1/export/portfolio/feedback').set(bearer(portfolioOwner.portfolioToken)).expect(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.headers['retry-after']).toBeDefined();
    // A new portfolio token is the same account's budget.
    const rotated = (await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(portfolioOwner.jwt)).expect(200)).body.data.token;
    await t.http.get('/api/v1/export/portfolio/feedback').set(bearer(rotated)).expect(429);
  }));
});
