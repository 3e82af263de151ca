import { Injectable } from '@nestjs/common';
import { counterKeySql, CountingLookups, countingLookupSql, tokenTrackerSql, type CountedHitColumns, type RateLimitCounting } from '#libs/common';
import { PreparedQueries } from '#libs/database';
import { exportTokenBudgetSql } from './export-token-budget.js';
import type { FeedbackTokenKind } from './feedback-token.format.js';

const TOKEN_SQL = `SELECT id, owner_id AS "ownerId", site_id AS "siteId", kind FROM feedback_tokens WHERE token_hash = $1`;

/**
 * TOKEN_SQL counting the request in the same statement when the token's kind is accepted (for
 * a CountingLookup): $1 the token hash, $2 the counter key's bucket part, $3 the window in ms,
 * $4 the accepted kinds. The tracker is the principal kind the authenticator makes of the row
 * (site or portfolio) and the token's budget (exportTokenBudgetOf: site and kind, or account), as
 * RateLimitGuard counts it.
 */
const TOKEN_COUNTING_SQL = countingLookupSql(TOKEN_SQL, {
  counterKey: counterKeySql(
    '$2',
    tokenTrackerSql(`CASE WHEN found.kind = 'portfolio' THEN 'portfolio' ELSE 'site' END`, exportTokenBudgetSql({ kind: 'found.kind', siteId: 'found."siteId"', ownerId: 'found."ownerId"' })),
  ),
  windowMs: '$3',
  when: 'found.kind = ANY($4::text[])',
});

export interface TokenRow {
  id: string;
  ownerId: string;
  siteId: string | null;
  kind: FeedbackTokenKind;
}

/** The export-token lookups of authentication (issuing tokens is the sites feature's). */
@Injectable()
export class TokenAuthRepository {
  constructor(
    private readonly prepared: PreparedQueries,
    private readonly countingLookups: CountingLookups,
  ) {}

  /**
   * The token by its hash. With `counting` on a limited route whose counters live in the
   * database, the same statement also counts the request against the token's rate limit when its
   * kind is one of `accepted`.
   */
  async findTokenByHash(tokenHash: string, accepted: readonly FeedbackTokenKind[], counting?: RateLimitCounting): Promise<TokenRow | undefined> {
    const lookup = this.countingLookups.for(counting);
    if (lookup) {
      const counted = await this.prepared.query<TokenRow & CountedHitColumns>(TOKEN_COUNTING_SQL, [tokenHash, lookup.bucketKey, lookup.windowMs, accepted]);
      return lookup.rowOf(counted);
    }
    const rows = await this.prepared.query<TokenRow>(TOKEN_SQL, [tokenHash]);
    return rows[0];
  }
}
