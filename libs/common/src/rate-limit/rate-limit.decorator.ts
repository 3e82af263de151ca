import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.constants.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { Throttle } from './throttler.js';

/** The throttler every @RateLimit route is counted by (its budget comes from the route). */
export const RATE_LIMIT_THROTTLER = 'default';

/**
 * Limits the route per credential (API key, site token, user) or, when public, per client IP:
 * @nestjs/throttler's `@Throttle` with the budget's limit and window, its guard (RateLimitGuard),
 * and the bucket that names the shared counter. The OpenAPI document gets its 429 answer and
 * RateLimit headers from this (openapi-finish.ts).
 */
export const RateLimit = (options: RateLimitOptions) =>
  applyDecorators(
    SetMetadata(RATE_LIMIT_OPTIONS, { storeOutage: 'fail-closed', ...options } satisfies RateLimitOptions),
    Throttle({ [RATE_LIMIT_THROTTLER]: { limit: options.limit, ttl: options.windowSeconds * 1000 } }),
    UseGuards(RateLimitGuard),
  );
