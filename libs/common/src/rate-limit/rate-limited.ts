import type { RateLimitHit } from './rate-limit.store.js';

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` of a counter after a hit. */
export function rateLimitHeaders(limit: number, hit: RateLimitHit): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - hit.hits)),
    'RateLimit-Reset': String(hit.resetSeconds),
  };
}
