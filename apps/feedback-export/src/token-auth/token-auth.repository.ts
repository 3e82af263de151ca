import { Injectable } from '@nestjs/common';
import { RateLimitStore, tokenTrackerSql, type RateLimitHit, type RateLimitOptions } from '#libs/common';
import { PreparedQueries } from '#libs/database';
import type { FeedbackTokenKind } from './feedback-token.format.js';

const TOKEN_SQL = `SELECT id, owner_id AS "ownerId", site_id AS "siteId", kind FROM feedback_tokens WHERE token_hash = $1`;

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
    private readonly counters: RateLimitStore,
  ) {}

  async findTokenByHash(tokenHash: string): Promise<TokenRow | undefined> {
    const rows = await this.prepared.query<TokenRow>(TOKEN_SQL, [tokenHash]);
    return rows[0];
  }

  /** The same lookup, counting the request against the token's rate limit in the same statement when its kind is accepted. */
  findTokenByHashCountingHit(
    tokenHash: string,
    accepted: readonly FeedbackTokenKind[],
    limit: RateLimitOptions,
  ): Promise<{ row: TokenRow; hit?: RateLimitHit } | undefined> {
    return this.counters.lookupAndHit<TokenRow>(
      {
        sql: TOKEN_SQL,
        params: [tokenHash],
        // The principal kind the authenticator makes of the row (site or portfolio), as RateLimitGuard counts it.
        trackerSql: tokenTrackerSql(`CASE WHEN found.kind = 'portfolio' THEN 'portfolio' ELSE 'site' END`, 'found.id'),
        countIf: (parameter) => `found.kind = ANY(${parameter(accepted)}::text[])`,
      },
      limit,
      () => this.findTokenByHash(tokenHash),
    );
  }
}
