/** Metadata key of a route's rate limit. */
export const RATE_LIMIT_OPTIONS = 'rate-limit-options';

export interface RateLimitOptions {
  /** Routes sharing a bucket share one counter per credential (e.g. every todo route). */
  bucket: string;
  limit: number;
  windowSeconds: number;
}
