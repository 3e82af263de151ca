import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { inTransaction } from '#libs/database';
import { usingRealPostgres } from '#libs/testing';
import { FeedbackRepository, type NewFeedback } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import { FeedbackService } from '../../apps/feedback-export/src/feedback/feedback.service.js';
import type { PortfolioPrincipal, SitePrincipal } from '../../apps/feedback-export/src/token-auth/feedback-token.authenticator.js';
import { FeedbackTokenAuthenticator } from '../../apps/feedback-export/src/token-auth/feedback-token.authenticator.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

const BATCH = 100;

interface Tenant {
  owner: TestOwner;
  sites: TestSite[];
}

/**
 * Exactly-once under concurrent writers: writers insert in overlapping transactions (each opens
 * its transaction, reads, yields, then inserts, so transactions that start earlier often commit
 * later) while pollers of every site and every portfolio follow nextCursor. Polling goes through
 * the service the REST route calls (HTTP would hit the 60/min token limit long before).
 */
describe('cursor polling under concurrent writers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { DB_POOL_SIZE: '8' });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function tenant(name: string, siteCount: number): Promise<Tenant> {
    const owner = await createOwner(t);
    const sites: TestSite[] = [];
    for (let i = 0; i < siteCount; i++) sites.push(await createSite(t, owner, `${name} ${i + 1}`));
    return { owner, sites };
  }

  /**
   * Writer w writes for tenants[w % tenants.length], cycling over that tenant's sites; every poller must see exactly its rows.
   * `batch` rows per insert inside a transaction that does other work first, or (`alone`) one row per insert on
   * its own, the way the widget writes.
   */
  async function writeWhilePolling(tenants: Tenant[], writers: number, rowsPerWriter: number, batch: number | 'alone' = BATCH): Promise<number> {
    const repository = t.app.get(FeedbackRepository);
    const service = t.app.get(FeedbackService);
    const authenticator = t.app.get(FeedbackTokenAuthenticator);
    const writtenPerSite = new Map<string, string[]>();
    let writing = true;

    async function writer(w: number): Promise<void> {
      const { owner, sites } = tenants[w % tenants.length];
      const size = batch === 'alone' ? 1 : batch;
      for (let start = 0, round = 0; start < rowsPerWriter; start += size, round++) {
        const site = sites[(Math.floor(w / tenants.length) + round) % sites.length];
        const rows: NewFeedback[] = Array.from({ length: size }, (_, i) => ({
          siteId: site.id,
          type: 'feedback',
          message: `w${w}-${start + i}`,
          rating: null,
          pageUrl: 'https://example.com/',
        }));
        const ids =
          batch === 'alone'
            ? await repository.insertMany(undefined, owner.id, rows)
            : await inTransaction(t.dataSource, async (tx) => {
                await tx.query('SELECT count(*) FROM sites WHERE owner_id = $1', [owner.id]);
                await new Promise((resolve) => setImmediate(resolve));
                return repository.insertMany(tx, owner.id, rows);
              });
        const list = writtenPerSite.get(site.id) ?? [];
        list.push(...ids);
        writtenPerSite.set(site.id, list);
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
          await sleep(2);
        }
      }
      throw new Error('poller did not finish');
    }

    const expectations: Array<{ seen: Promise<string[]>; expected: () => Set<string> }> = [];
    for (const { owner, sites } of tenants) {
      for (const site of sites) {
        const principal = (await authenticator.authenticate(site.readToken, ['read'])) as SitePrincipal;
        expectations.push({ seen: poll((since) => service.pageOfSite(principal, { since, limit: 200 })), expected: () => new Set(writtenPerSite.get(site.id)) });
      }
      const portfolio = (await authenticator.authenticate(owner.portfolioToken, ['portfolio'])) as PortfolioPrincipal;
      expectations.push({
        seen: poll((since) => service.pageOfPortfolio(portfolio, { since, limit: 200 })),
        expected: () => new Set(sites.flatMap((s) => writtenPerSite.get(s.id) ?? [])),
      });
    }
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    writing = false;

    let total = 0;
    for (const { seen: pending, expected: expectedOf } of expectations) {
      const seen = await pending;
      const expected = expectedOf();
      expect(seen.length).toBe(expected.size);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.every((id) => expected.has(id))).toBe(true);
      total += seen.length;
    }
    return total;
  }

  it('hands every one of 20,000 concurrently written rows to each poller exactly once', async () => {
    const one = await tenant('One', 2);
    const seen = await writeWhilePolling([one], 4, 5000);
    // Two site pollers and the portfolio poller, each seeing its share once.
    expect(seen).toBe(2 * 20_000);
  }, 240_000);

  it('hands every row to each poller exactly once when eight writers insert one row at a time, as the widget does', async () => {
    const one = await tenant('Single', 2);
    const seen = await writeWhilePolling([one], 8, 500, 'alone');
    expect(seen).toBe(2 * 4_000);
  }, 240_000);

  it('keeps exactly-once per owner while two owners write at the same time', async () => {
    const tenants = [await tenant('Alpha', 2), await tenant('Beta', 2)];
    const seen = await writeWhilePolling(tenants, 4, 2500);
    expect(seen).toBe(2 * 10_000);
  }, 240_000);

  // PGlite serves every connection from one session, so two open transactions cannot interleave there.
  (usingRealPostgres() ? it : it.skip)('lets another owner commit while one owner\'s insert is still open, and queues the same owner (real Postgres only)', async () => {
    const repository = t.app.get(FeedbackRepository);
    const [holder, other] = [await tenant('Holder', 1), await tenant('Other', 1)];
    const row = (site: TestSite): NewFeedback => ({ siteId: site.id, type: 'bug', message: 'm', rating: null, pageUrl: 'https://example.com/' });
    const settledWithin = (promise: Promise<unknown>, ms: number) =>
      Promise.race([promise.then(() => true), sleep(ms, false)]);

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const holding = new Promise<void>((resolve) => (inserted = resolve));
    const open = inTransaction(t.dataSource, async (tx) => {
      await repository.insertMany(tx, holder.owner.id, [row(holder.sites[0])]);
      inserted();
      await held; // keeps the holder's clock row locked until released
    });
    await holding;

    const otherOwner = repository.insertMany(undefined, other.owner.id, [row(other.sites[0])]);
    const sameOwner = repository.insertMany(undefined, holder.owner.id, [row(holder.sites[0])]);
    const otherDone = await settledWithin(otherOwner, 2000);
    const sameDone = await settledWithin(sameOwner, 300);
    release();
    await open;
    await sameOwner;

    expect(otherDone).toBe(true);
    expect(sameDone).toBe(false);
  }, 30_000);
});
