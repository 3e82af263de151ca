import { Global, Module } from '@nestjs/common';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { RateLimitGuard } from './rate-limit.guard.js';

/** Shared-store rate limiting; the limits themselves are declared per route with @RateLimit. */
@Global()
@Module({
  providers: [PostgresRateLimitStore, RateLimitGuard],
  exports: [PostgresRateLimitStore, RateLimitGuard],
})
export class RateLimitModule {}
