import { insertUser } from '#libs/testing';
import { FeedbackRepository, type NewFeedback } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import type { TestApp } from '../support/test-apps.js';

export interface TestSite {
  id: string;
  slug: string;
  name: string;
  siteKey: string;
  readToken: string;
  writeToken: string;
}

export interface TestOwner {
  id: string;
  jwt: string;
  portfolioToken: string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A user with a session JWT and a portfolio token, through the owner routes. */
export async function createOwner(t: TestApp): Promise<TestOwner> {
  const user = await insertUser(t.dataSource);
  const jwt = await t.accessTokenFor(user.id);
  const res = await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(jwt)).expect(200);
  return { id: user.id, jwt, portfolioToken: res.body.data.token };
}

/** A site of the owner with its read and write tokens, through the owner routes. */
export async function createSite(t: TestApp, owner: TestOwner, name: string): Promise<TestSite> {
  const created = await t.http.post('/api/v1/sites').set(bearer(owner.jwt)).send({ name }).expect(201);
  const site = created.body.data.site;
  const read = await t.http.post(`/api/v1/sites/${site.id}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200);
  const write = await t.http.post(`/api/v1/sites/${site.id}/tokens/write/rotate`).set(bearer(owner.jwt)).expect(200);
  return { id: site.id, slug: site.slug, name: site.name, siteKey: site.siteKey, readToken: read.body.data.token, writeToken: write.body.data.token };
}

/** Inserts `count` rows through the production insert path, in batches. */
export async function seedFeedback(t: TestApp, owner: TestOwner, site: TestSite, count: number, make: (i: number) => Partial<NewFeedback> = () => ({})): Promise<string[]> {
  const repository = t.app.get(FeedbackRepository);
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const batch: NewFeedback[] = [];
    for (let i = start; i < Math.min(count, start + 100); i++) {
      batch.push({ siteId: site.id, type: 'feedback', message: `message ${i}`, rating: null, pageUrl: 'https://example.com/', ...make(i) });
    }
    ids.push(...(await repository.insertMany(undefined, owner.id, batch)));
  }
  return ids;
}

/** Forgets every rate-limit counter, for tests that page further than one token's minute allows. */
export async function resetRateLimits(t: TestApp): Promise<void> {
  await t.rateLimits.clear();
}
