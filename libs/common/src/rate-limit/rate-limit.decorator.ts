import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.constants.js';
import { RateLimitGuard } from './rate-limit.guard.js';

/** Limits the route per credential (API key, site token, user) or, when public, per client IP. */
export const RateLimit = (options: RateLimitOptions) =>
  applyDecorators(
    SetMetadata(RATE_LIMIT_OPTIONS, options),
    UseGuards(RateLimitGuard),
    ApiResponse({
      status: 429,
      description: `RATE_LIMITED: more than ${options.limit} requests per ${options.windowSeconds} s. Sends Retry-After and RateLimit-Limit/Remaining/Reset.`,
    }),
  );
