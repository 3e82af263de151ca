/** Metadata key of a route's rate limit. */
export const RATE_LIMIT_OPTIONS = 'rate-limit-options';

/**
 * What a limited route does while the counter store cannot be reached (Redis down; on
 * PostgreSQL storage the counters share the database, so the route fails with it anyway).
 * `fail-closed` answers 503 SERVICE_UNAVAILABLE: for limits that stop guessing or abuse
 * (login, password reset, signup, account deletion). `fail-open` serves the request without
 * a limit (one warning per outage in the log): for ordinary reads and writes.
 */
type RateLimitStoreOutage = 'fail-closed' | 'fail-open';

/** A named budget: `@RateLimit(options)` maps it onto @nestjs/throttler's `@Throttle`. */
export interface RateLimitOptions {
  /** Routes sharing a bucket share one counter per credential (e.g. every todo route). */
  bucket: string;
  limit: number;
  windowSeconds: number;
  /** Default `fail-closed`: a new budget is enforced (or refused) until someone decides otherwise. */
  storeOutage?: RateLimitStoreOutage;
  /**
   * `session`: on a JWT route, counted per session rather than per user, so a stolen access
   * token spends only its own session's budget, never the owner's. Default: the credential.
   */
  per?: 'session';
}
