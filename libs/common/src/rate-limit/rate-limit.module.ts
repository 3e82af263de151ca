import { Global, Logger, Module } from '@nestjs/common';
import { ObservabilityModule } from '../observability.module.js';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DependencyChecks } from '../health/dependency-checks.service.js';
import { DependencyOutages } from '../health/dependency-outages.service.js';
import { AttemptLimiter } from './attempt-limiter.service.js';
import { CounterConnection } from './counter-connection.js';
import { CountingLookups } from './counting-lookups.service.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { RATE_LIMIT_THROTTLER } from './rate-limit.decorator.js';
import { RateLimitRejections } from './rate-limit-rejections.service.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitStore } from './rate-limit.store.js';
import { ThrottlerModule } from './throttler.js';

async function createStore(config: AppConfig, connection: CounterConnection, checks: DependencyChecks): Promise<RateLimitStore> {
  if (!config.redisUrl) return new PostgresRateLimitStore(connection);
  new Logger('RateLimitModule').log({ keyPrefix: config.redisKeyPrefix }, 'Rate-limit counters in Redis');
  // Loaded only with REDIS_URL: a replica without Redis does not carry the client in memory.
  const { RedisRateLimitStore } = await import('./redis-rate-limit.store.js');
  const store = new RedisRateLimitStore(config);
  // Shown in /readyz and dependency_up; not a reason to take this replica out (see affectsReadiness).
  checks.add({ name: 'redis', check: () => store.ping(), affectsReadiness: false, isDown: () => store.isDown });
  return store;
}

/** The counter store (Redis when REDIS_URL is set, else PostgreSQL) and the credential lookups that count in the database. */
@Global()
@Module({
  imports: [ObservabilityModule],
  providers: [
    { provide: CounterConnection, useFactory: (dataSource: DataSource, outages: DependencyOutages) => new CounterConnection(dataSource, outages), inject: [getDataSourceToken(), DependencyOutages] },
    { provide: RateLimitStore, useFactory: createStore, inject: [APP_CONFIG, CounterConnection, DependencyChecks] },
    CountingLookups,
  ],
  exports: [RateLimitStore, CountingLookups],
})
class RateLimitStoreModule {}

/**
 * Rate limiting on @nestjs/throttler with the shared store; the limits themselves are declared
 * per route with @RateLimit, custom counting injects RateLimitStore.
 */
@Global()
@Module({
  imports: [
    ObservabilityModule,
    RateLimitStoreModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [RateLimitStore],
      // One throttler; each route's @Throttle sets its budget (a route without @RateLimit is skipped).
      useFactory: (store: RateLimitStore) => ({ throttlers: [{ name: RATE_LIMIT_THROTTLER, limit: 1, ttl: 1000 }], storage: store }),
    }),
  ],
  providers: [RateLimitGuard, RateLimitRejections, AttemptLimiter],
  exports: [RateLimitStoreModule, RateLimitGuard, RateLimitRejections, AttemptLimiter],
})
export class RateLimitModule {}
