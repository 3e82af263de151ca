import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { RateLimitOptions } from './rate-limit.constants.js';
import { rateLimitCounterKey } from './rate-limit.keys.js';
import { RateLimitStore, type RateLimitHit } from './rate-limit.store.js';
import { CounterConnection, hitOf } from './counter-connection.js';

/** The request an auth guard authenticates, and its route's @RateLimit (if any) to count it against. */
export interface RateLimitCounting {
  request: Request;
  limit?: RateLimitOptions;
}

/** The columns a counting statement's row adds for its hit (both null when it did not count). */
interface CountedHitColumns {
  rate_limit_hits: number | null;
  rate_limit_reset_ms: string | null;
}

const COUNTED_HIT = Symbol('rate-limit-counted-hit');
type WithCountedHit = Request & { [COUNTED_HIT]?: { bucket: string; hit: RateLimitHit } };

/** The hit a counting lookup already made for this request and bucket, which RateLimitGuard uses instead of counting again. */
export function countedHitOf(request: Request, bucket: string): RateLimitHit | undefined {
  const counted = (request as WithCountedHit)[COUNTED_HIT];
  return counted?.bucket === bucket ? counted.hit : undefined;
}

/**
 * One request's credential lookup that counts the request in its own statement: the
 * repository's fixed statement, which calls the database's `rate_limit_hit(counter_key,
 * window_ms)` (migration RateLimitHitFunction) when the credential is usable, naming the counter
 * with counterKeySql and the tracker SQL of rate-limit.keys.ts from `bucketKey`, and answers the
 * hit as `rate_limit_hits` and `rate_limit_reset_ms` beside the row.
 */
export class CountingLookup {
  constructor(
    private readonly connection: CounterConnection,
    private readonly request: Request,
    private readonly limit: RateLimitOptions,
  ) {}

  /** The counter key's bucket part (`<bucket>:`), the statement appends the tracker. */
  get bucketKey(): string {
    return rateLimitCounterKey(this.limit.bucket, '');
  }

  get windowMs(): number {
    return this.limit.windowSeconds * 1000;
  }

  /**
   * Runs the repository's counting statement on the counters' connection (one round trip for
   * the credential and its hit) and answers its row without the hit columns; the hit, when it
   * counted one, goes to RateLimitGuard.
   */
  async find<T extends object>(sql: string, params: unknown[]): Promise<T | undefined> {
    const rows = await this.connection.query<T & CountedHitColumns>(sql, params);
    if (rows.length === 0) return undefined;
    const { rate_limit_hits: hits, rate_limit_reset_ms: resetMs, ...row } = rows[0];
    if (hits !== null) (this.request as WithCountedHit)[COUNTED_HIT] = { bucket: this.limit.bucket, hit: hitOf({ hits, reset_ms: resetMs! }) };
    return row as unknown as T;
  }
}

/**
 * Whether a credential lookup counts its request itself: on a @RateLimit route, while the
 * counters live in the same database (PostgreSQL store), the credential's repository looks it
 * up with a CountingLookup; elsewhere (no limit, counters in Redis) it runs its plain lookup and
 * RateLimitGuard counts the hit.
 */
@Injectable()
export class CountingLookups {
  constructor(
    private readonly store: RateLimitStore,
    private readonly connection: CounterConnection,
  ) {}

  for(counting: RateLimitCounting | undefined): CountingLookup | undefined {
    if (!counting?.limit || this.store.storage !== 'postgres') return undefined;
    return new CountingLookup(this.connection, counting.request, counting.limit);
  }
}
