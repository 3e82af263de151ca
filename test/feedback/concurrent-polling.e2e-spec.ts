import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FeedbackRepository, type NewFeedback } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import { FeedbackService } from '../../apps/feedback-export/src/feedback/feedback.service.js';
import type { PortfolioPrincipal, SitePrincipal } from '../../apps/feedback-export/src/sites/feedback-token.authenticator.js';
import { FeedbackTokenAuthenticator } from '../../apps/feedback-export/src/sites/feedback-token.authenticator.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

const WRITERS = 4;
const ROWS_PER_WRITER = 5000;
const BATCH = 100;

/**
 * Exactly-once under concurrent writers: 4 writers insert 20,000 rows in overlapping
 * transactions (each opens its transaction, reads, yields, then inserts, so transactions that
 * start earlier often commit later) while pollers follow nextCursor. Polling goes through the
 * service the REST route calls (HTTP would hit the 60/min token limit long before 20,000 rows).
 */
describe('cursor polling under concurrent writers', () => {
  let t: TestApp;
  let owner: TestOwner;
  let sites: TestSite[];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { DB_POOL_SIZE: '8' });
    owner = await createOwner(t);
    sites = [await createSite(t, owner, 'One'), await createSite(t, owner, 'Two')];
  });
  afterAll(async () => {
    await t?.close();
  });

  it('hands every one of 20,000 concurrently written rows to each poller exactly once', async () => {
    const repository = t.app.get(FeedbackRepository);
    const service = t.app.get(FeedbackService);
    const authenticator = t.app.get(FeedbackTokenAuthenticator);
    const sitePrincipals = (await Promise.all(sites.map((s) => authenticator.authenticate(s.readToken, ['read'])))) as SitePrincipal[];
    const portfolioPrincipal = (await authenticator.authenticate(owner.portfolioToken, ['portfolio'])) as PortfolioPrincipal;

    const written: string[][] = Array.from({ length: WRITERS }, () => []);
    let writing = true;

    async function writer(w: number): Promise<void> {
      const site = sites[w % sites.length];
      for (let start = 0; start < ROWS_PER_WRITER; start += BATCH) {
        const rows: NewFeedback[] = Array.from({ length: BATCH }, (_, i) => ({
          siteId: site.id,
          ownerId: owner.id,
          type: 'feedback',
          message: `w${w}-${start + i}`,
          rating: null,
          pageUrl: 'https://example.com/',
        }));
        const ids = await t.dataSource.transaction(async (manager) => {
          await manager.query('SELECT count(*) FROM sites WHERE owner_id = $1', [owner.id]);
          await new Promise((resolve) => setImmediate(resolve));
          return repository.insertMany(rows, manager);
        });
        written[w].push(...ids);
      }
    }

    async function poll(next: (since: string | undefined) => Promise<{ feedback: Array<{ id: string }>; nextCursor: string; hasMore: boolean }>): Promise<string[]> {
      const seen: string[] = [];
      let since: string | undefined;
      for (let rounds = 0; rounds < 100_000; rounds++) {
        const finished = !writing;
        const page = await next(since);
        seen.push(...page.feedback.map((f) => f.id));
        since = page.nextCursor;
        if (!page.hasMore) {
          if (finished) return seen; // caught up after every writer committed
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
      throw new Error('poller did not finish');
    }

    const pollers = Promise.all([
      ...sitePrincipals.map((principal) => poll((since) => service.pageOfSite(principal, { since, limit: 200 }))),
      poll((since) => service.pageOfPortfolio(portfolioPrincipal, { since, limit: 200 })),
    ]);
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    const [seenOne, seenTwo, seenPortfolio] = await pollers;

    const all = written.flat();
    expect(all).toHaveLength(WRITERS * ROWS_PER_WRITER);
    const perSite = [new Set([...written[0], ...written[2]]), new Set([...written[1], ...written[3]])];

    for (const [seen, expected] of [
      [seenOne, perSite[0]],
      [seenTwo, perSite[1]],
      [seenPortfolio, new Set(all)],
    ] as const) {
      expect(seen.length).toBe(expected.size);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.every((id) => expected.has(id))).toBe(true);
    }
    expect(seenPortfolio).toHaveLength(20_000);
  }, 240_000);
});
