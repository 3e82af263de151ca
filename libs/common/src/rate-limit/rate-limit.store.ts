import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import type { ThrottlerStorage, ThrottlerStorageRecord } from './throttler.js';

export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Seconds until the window resets (at least 1; 0 from peek when there is no window). */
  resetSeconds: number;
}

/**
 * A credential lookup that counts its request against the route's limit in the same statement:
 * a fixed statement owned by the repository of the credential, which calls the database's
 * `rate_limit_hit(counter_key, window_ms)` (migration RateLimitHitFunction) when the credential
 * is usable and names the counter with counterKeySql and trackerSql from rate-limit.keys.ts.
 * Its one row carries the hit as `rate_limit_hits` and `rate_limit_reset_ms` (both null when it
 * did not count). The store runs it as it is: it splices nothing into it.
 */
export interface CountingLookup {
  sql: string;
  params: unknown[];
}

/** The columns a CountingLookup's row adds for its hit. */
export interface CountedHitColumns {
  rate_limit_hits: number | null;
  rate_limit_reset_ms: string | null;
}

/** The counter store is unreachable (Redis down): 503 unless the route fails open. */
export class RateLimitStoreUnavailableError extends AppException {
  constructor(cause: unknown) {
    super(ErrorCode.SERVICE_UNAVAILABLE, 'Rate limiting is temporarily unavailable; try again shortly', undefined, { 'Retry-After': '5' });
    this.name = 'RateLimitStoreUnavailableError';
    this.cause = cause;
  }
}

/**
 * The one storage interface of rate limiting: @nestjs/throttler's ThrottlerStorage (what its
 * guard calls) plus what custom counting needs (hit, peek, release, reset). Inject it as
 * `RateLimitStore`; the app provides PostgresRateLimitStore, or RedisRateLimitStore when
 * REDIS_URL is set. Every counter is a fixed window: its first hit opens it for `windowMs`.
 */
export abstract class RateLimitStore implements ThrottlerStorage {
  abstract readonly storage: 'postgres' | 'redis';

  /** Counts one hit against `key` in a window of `windowMs`. */
  abstract hit(key: string, windowMs: number): Promise<RateLimitHit>;

  /** The current count without adding a hit (`{hits: 0, resetSeconds: 0}` without a live window). */
  abstract peek(key: string): Promise<RateLimitHit>;

  /** Takes back one hit of the current window (an attempt that turned out not to count, e.g. a successful login). */
  abstract release(key: string): Promise<void>;

  abstract reset(key: string): Promise<void>;

  /** Removes every counter of these trackers in every bucket (account deletion). */
  abstract forgetTrackers(trackers: string[]): Promise<void>;

  /**
   * A credential lookup on a limited route. Where the counters live in the same database
   * (PostgreSQL storage) the counting statement runs, which counts the hit itself; elsewhere
   * the plain lookup runs and RateLimitGuard counts the hit.
   */
  async lookupAndHit<T extends object>(_lookup: CountingLookup, plainLookUp: () => Promise<T | undefined>): Promise<{ row: T; hit?: RateLimitHit } | undefined> {
    const row = await plainLookUp();
    return row && { row };
  }

  /** ThrottlerStorage: one hit; a window over its limit is blocked until it ends (fixed window). */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return toThrottlerRecord(await this.hit(key, ttl), limit);
  }
}

export function toThrottlerRecord(hit: RateLimitHit, limit: number): ThrottlerStorageRecord {
  const isBlocked = hit.hits > limit;
  return { totalHits: hit.hits, timeToExpire: hit.resetSeconds, isBlocked, timeToBlockExpire: isBlocked ? hit.resetSeconds : 0 };
}
