import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import type { ThrottlerStorage, ThrottlerStorageRecord } from './throttler.js';

export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Seconds until the window resets (at least 1; 0 from peek when there is no window). */
  resetSeconds: number;
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

  /** ThrottlerStorage: one hit; a window over its limit is blocked until it ends (fixed window). */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return toThrottlerRecord(await this.hit(key, ttl), limit);
  }
}

export function toThrottlerRecord(hit: RateLimitHit, limit: number): ThrottlerStorageRecord {
  const isBlocked = hit.hits > limit;
  return { totalHits: hit.hits, timeToExpire: hit.resetSeconds, isBlocked, timeToBlockExpire: isBlocked ? hit.resetSeconds : 0 };
}
