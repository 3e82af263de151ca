import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  counterKeySql,
  credentialTrackerOf,
  credentialTrackerSql,
  rateLimitCounterKey,
  rateLimitTrackerOf,
  tokenTrackerOf,
  tokenTrackerSql,
  TRACKER_PREFIX,
  trackerSql,
  type TrackerKind,
} from '#libs/common';
import { createTestDatabase, type TestDatabase } from '#libs/testing';
import type { SubscriptionStatus } from '../../apps/todo-api/src/api-access/api-access.rows.js';
import { apiKeyTracker, apiKeyTrackerSql } from '../../apps/todo-api/src/api-access/api-access.schemes.js';
import { usableApiKeySql } from '../../apps/todo-api/src/api-access/api-key-access.repository.js';
import { exportTokenBudgetOf, exportTokenBudgetSql } from '../../apps/feedback-export/src/token-auth/export-token-budget.js';
import { hasApiAccess, isLiveApiKey } from '../../apps/todo-api/src/api-access/subscription-access.js';

/**
 * Rules that exist in TypeScript and in SQL (the credential lookup counts its rate-limit hit in
 * the same statement) are written once and the SQL rendered from them; these tests run both
 * forms over the same rows and fail when the two disagree.
 */
const STATUSES: Array<SubscriptionStatus | null> = [
  null,
  'none',
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
];

describe('each rule once: TypeScript and its SQL agree', () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: true });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('a key counts in SQL exactly when ApiKeyAuthGuard lets it in (live key, API access)', async () => {
    const now = new Date();
    const times = [null, new Date(now.getTime() - 3_600_000), new Date(now.getTime() + 3_600_000)];
    const rows = STATUSES.flatMap((status) =>
      [false, true].flatMap((isBetaLifetime) =>
        times.flatMap((revokedAt) => times.map((expiresAt) => ({ subscriptionStatus: status, isBetaLifetime, revokedAt, expiresAt }))),
      ),
    );
    const params: unknown[] = [];
    const parameter = (value: unknown) => `$${params.push(value)}`;
    const values = rows
      .map((row) => `(${parameter(row.subscriptionStatus)}::text, ${parameter(row.isBetaLifetime)}::boolean, ${parameter(row.revokedAt)}::timestamptz, ${parameter(row.expiresAt)}::timestamptz)`)
      .join(', ');
    const predicate = usableApiKeySql('found', parameter);
    const { rows: answers } = await client.query<{ usable: boolean }>(
      `SELECT (${predicate}) AS usable FROM (VALUES ${values}) AS found("subscriptionStatus", "isBetaLifetime", "revokedAt", "expiresAt")`,
      params,
    );
    const inSql = answers.map((answer) => answer.usable);
    const inTypeScript = rows.map((row) => isLiveApiKey(row, now) && hasApiAccess({ status: row.subscriptionStatus ?? 'none', isBetaLifetime: row.isBetaLifetime }));
    expect(inSql).toEqual(inTypeScript);
    expect(inTypeScript.filter(Boolean).length).toBeGreaterThan(0);
  });

  it('the counter key built in SQL is the key the TypeScript tracker names, for every tracker kind, the apps’ own credentials and token credentials', async () => {
    const bucket = 'todo-write';
    const id = '0b6f2c1e-9d7a-4c55-8f0e-3f1a2b4c5d6e';
    for (const kind of Object.keys(TRACKER_PREFIX) as TrackerKind[]) {
      const { rows } = await client.query<{ key: string }>(`SELECT ${counterKeySql('$1', trackerSql('$2::text', '$3'))} AS key`, [rateLimitCounterKey(bucket, ''), kind, id]);
      expect(rows[0].key).toBe(rateLimitCounterKey(bucket, rateLimitTrackerOf(kind, id)));
    }
    // An app's own credentials (todo-api's API keys: the key RateLimitGuard counts an API-key principal as, and its counting lookup's).
    const { rows: apiKeyRows } = await client.query<{ key: string }>(`SELECT ${counterKeySql('$1', apiKeyTrackerSql('$2::uuid'))} AS key`, [rateLimitCounterKey(bucket, ''), id]);
    expect(apiKeyRows[0].key).toBe(rateLimitCounterKey(bucket, apiKeyTracker(id)));
    expect(apiKeyTracker(id)).toBe(`api-key:${id}`); // the counters' key on the wire, kept as it was
    for (const kind of ['api-key', 'some-credential']) {
      const { rows } = await client.query<{ key: string }>(`SELECT ${counterKeySql('$1', credentialTrackerSql('$2::text', '$3'))} AS key`, [rateLimitCounterKey(bucket, ''), kind, id]);
      expect(rows[0].key).toBe(rateLimitCounterKey(bucket, credentialTrackerOf(kind, id)));
    }
    // An app's token credentials (feedback-export's site and portfolio tokens).
    for (const kind of ['site', 'portfolio']) {
      const { rows } = await client.query<{ key: string }>(`SELECT ${counterKeySql('$1', tokenTrackerSql('$2::text', '$3'))} AS key`, [rateLimitCounterKey(bucket, ''), kind, id]);
      expect(rows[0].key).toBe(rateLimitCounterKey(bucket, tokenTrackerOf(kind, id)));
    }
    // feedback-export's export budgets: per site and kind, per account for the portfolio token (never per token id).
    const ownerId = '5a3c1e2d-7b9f-4e21-9c3d-1f2e3a4b5c6d';
    for (const token of [
      { kind: 'read', siteId: id, ownerId },
      { kind: 'write', siteId: id, ownerId },
      { kind: 'portfolio', siteId: null, ownerId },
    ] as const) {
      const { rows } = await client.query<{ budget: string }>(
        `SELECT ${exportTokenBudgetSql({ kind: 't.kind', siteId: 't.site_id', ownerId: 't.owner_id' })} AS budget FROM (SELECT $1::text AS kind, $2::uuid AS site_id, $3::uuid AS owner_id) t`,
        [token.kind, token.siteId, token.ownerId],
      );
      expect(rows[0].budget).toBe(exportTokenBudgetOf(token));
    }
    expect(exportTokenBudgetOf({ kind: 'write', siteId: id, ownerId })).toBe(`${id}:write`);
  });
});
