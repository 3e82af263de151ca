import { Injectable, Logger } from '@nestjs/common';
import { PreparedQueries } from '#libs/database';
import { counterKeySql, CountingLookups, countingLookupSql, type CountedHitColumns, type RateLimitCounting } from '#libs/common';
import { apiKeyTrackerSql } from './api-access.schemes.js';
import { apiAccessSql, hasApiAccess, liveApiKeySql } from './subscription-access.js';

export interface ApiKeyAccessRow {
  apiKeyId: string;
  userId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  subscriptionStatus: string | null;
  isBetaLifetime: boolean;
}

/** lastUsedAt is written at most this often per key, so use does not mean a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const KEY_ACCESS_SQL = `SELECT k.id AS "apiKeyId", k.user_id AS "userId", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
         k.last_used_at AS "lastUsedAt", s.status AS "subscriptionStatus", COALESCE(s.is_beta_lifetime, false) AS "isBetaLifetime"
  FROM api_keys k LEFT JOIN subscriptions s ON s.user_id = k.user_id
  WHERE k.key_hash = $1`;

/**
 * Whether a looked-up key (a KEY_ACCESS_SQL row named `row`) would let a request in, in SQL:
 * the same rules as ApiKeyAuthGuard's isLiveApiKey and hasApiAccess, rendered from them.
 */
export function usableApiKeySql(row: string, parameter: (value: unknown) => string): string {
  return `${liveApiKeySql({ revokedAt: `${row}."revokedAt"`, expiresAt: `${row}."expiresAt"` })}
    AND ${apiAccessSql({ status: `${row}."subscriptionStatus"`, isBetaLifetime: `${row}."isBetaLifetime"` }, parameter)}`;
}

/** Parameters of KEY_ACCESS_COUNTING_SQL past its first three, fixed by the statement itself. */
const COUNTING_FIXED_PARAMS: unknown[] = [];

/**
 * KEY_ACCESS_SQL counting the request in the same statement when the key is usable (for a
 * CountingLookup): $1 the key hash, $2 the counter key's bucket part, $3 the window in ms. The
 * counter is the key's tracker.
 */
const KEY_ACCESS_COUNTING_SQL = countingLookupSql(KEY_ACCESS_SQL, {
  counterKey: counterKeySql('$2', apiKeyTrackerSql('found."apiKeyId"')),
  windowMs: '$3',
  when: usableApiKeySql('found', (value) => `$${3 + COUNTING_FIXED_PARAMS.push(value)}`),
});

/** The hot-path read of API-key authentication: one indexed lookup, key and access together. */
@Injectable()
export class ApiKeyAccessRepository {
  private readonly logger = new Logger(ApiKeyAccessRepository.name);

  constructor(
    private readonly prepared: PreparedQueries,
    private readonly countingLookups: CountingLookups,
  ) {}

  /**
   * The key and its account's access, by the key's hash. With `counting` on a limited route
   * whose counters live in the database, the same statement also counts the request against the
   * key's rate limit when the key is usable (live, and its account has access): the hot path
   * then costs one round trip for auth and limit together.
   */
  async findByHash(keyHash: string, counting?: RateLimitCounting): Promise<ApiKeyAccessRow | undefined> {
    const lookup = this.countingLookups.for(counting);
    if (lookup) {
      const counted = await this.prepared.query<ApiKeyAccessRow & CountedHitColumns>(KEY_ACCESS_COUNTING_SQL, [keyHash, lookup.bucketKey, lookup.windowMs, ...COUNTING_FIXED_PARAMS]);
      return lookup.rowOf(counted);
    }
    const rows = await this.prepared.query<ApiKeyAccessRow>(KEY_ACCESS_SQL, [keyHash]);
    return rows[0];
  }

  /** The one access rule for an account (JWT routes that need API access), read from its subscription row. */
  async userHasApiAccess(userId: string): Promise<boolean> {
    const rows: Array<{ status: string; isBetaLifetime: boolean }> = await this.prepared.query(
      `SELECT status, is_beta_lifetime AS "isBetaLifetime" FROM subscriptions WHERE user_id = $1`,
      [userId],
    );
    return hasApiAccess(rows[0]);
  }

  /** Records use without blocking the request; skipped while the stored value is fresh. */
  touchLastUsed(row: ApiKeyAccessRow, now = new Date()): void {
    if (row.lastUsedAt && now.getTime() - new Date(row.lastUsedAt).getTime() < LAST_USED_RESOLUTION_MS) return;
    this.prepared
      .query(
        `UPDATE api_keys SET last_used_at = now()
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
        [row.apiKeyId],
      )
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'Could not record API key use'));
  }
}
