import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { RateLimitOptions } from './rate-limit.constants.js';
import { rateLimitCounterKey } from './rate-limit.keys.js';
import { RateLimitStore, type RateLimitHit } from './rate-limit.store.js';
import { hitOf } from './counter-connection.js';

/** The request an auth guard authenticates, and its route's @RateLimit (if any) to count it against. */
export interface RateLimitCounting {
  request: Request;
  limit?: RateLimitOptions;
}

/** The columns a counting statement's row adds for its hit (both null when it did not count). */
export interface CountedHitColumns {
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

/** What a counting statement counts: the counter key and the window (SQL expressions over the lookup's row `found`), and when. */
export interface CountedHitSql {
  /** The counter key, counterKeySql of the bucket parameter (CountingLookup.bucketKey) and the credential's tracker. */
  counterKey: string;
  /** The parameter holding CountingLookup.windowMs. */
  windowMs: string;
  /** When the credential is usable, so its request counts (a predicate over `found`). */
  when: string;
}

/**
 * A credential lookup (`lookupSql`, at most one row) that also counts its request in the same
 * statement when `hit.when` holds: the database's `rate_limit_hit(counter_key, window_ms)`
 * (migration RateLimitHitFunction, the store's one window) answers the hit as `rate_limit_hits`
 * and `rate_limit_reset_ms` beside the row (both null when it did not count).
 *
 * The statement's transaction commits without waiting for its WAL flush (synchronous_commit off
 * for that transaction only, set_config's is_local), as the PostgreSQL store's own counter pool
 * does: a hit is a write on every limited request, and the flush doubled the cost of a cached
 * read; a crash can lose the last milliseconds of counts, which only undercounts a window. The
 * statement is a transaction of its own, so nothing else commits with it.
 */
export function countingLookupSql(lookupSql: string, hit: CountedHitSql): string {
  return `WITH found AS (${lookupSql}),
  hit AS (
    SELECT counted.hits, counted.reset_ms
    FROM found, LATERAL rate_limit_hit(${hit.counterKey}, ${hit.windowMs}) AS counted, LATERAL set_config('synchronous_commit', 'off', true) AS async_commit
    WHERE ${hit.when}
  )
  SELECT found.*, hit.hits AS rate_limit_hits, hit.reset_ms AS rate_limit_reset_ms FROM found LEFT JOIN hit ON true`;
}

/**
 * One request's credential lookup that counts the request in its own statement: the
 * repository runs its countingLookupSql statement on its own data path, with bucketKey and
 * windowMs as parameters, and hands the rows to rowOf, which keeps the hit for RateLimitGuard.
 */
export class CountingLookup {
  constructor(
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

  /** The credential's row of a countingLookupSql statement without the hit columns; the hit, when it counted one, goes to RateLimitGuard. */
  rowOf<T extends object>(rows: ReadonlyArray<T & CountedHitColumns>): T | undefined {
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
  constructor(private readonly store: RateLimitStore) {}

  for(counting: RateLimitCounting | undefined): CountingLookup | undefined {
    if (!counting?.limit || this.store.storage !== 'postgres') return undefined;
    return new CountingLookup(counting.request, counting.limit);
  }
}
