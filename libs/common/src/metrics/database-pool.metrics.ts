import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { DATABASE_DEPENDENCY } from '../health/dependency-checks.service.js';
import { DependencyOutages } from '../health/dependency-outages.service.js';
import { PostgresRateLimitStore } from '../rate-limit/postgres-rate-limit.store.js';
import { RateLimitStore } from '../rate-limit/rate-limit.store.js';
import { AppMetrics } from './app-metrics.js';

/**
 * Gauges of the app's PostgreSQL pools, read when scraped (nothing on the request path):
 * `main` (TypeORM and PreparedQueries share it) and `rate_limit` (the counters' own pool).
 */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    metrics: AppMetrics,
    @InjectDataSource() private readonly dataSource: DataSource,
    rateLimitStore: RateLimitStore,
    private readonly outages: DependencyOutages,
  ) {
    const pools: Array<[string, () => pg.Pool | undefined]> = [['main', () => this.mainPool()]];
    // Only the PostgreSQL counter store has a pool of its own; with counters in Redis there is no such series.
    if (rateLimitStore instanceof PostgresRateLimitStore) pools.push(['rate_limit', () => rateLimitStore.connectionPool]);
    metrics.gauge({
      name: 'db_pool_connections',
      help: 'Open connections of a database pool, by pool and state (in_use: lent to a query or transaction; idle)',
      labelNames: ['pool', 'state'],
      collect() {
        for (const [name, poolOf] of pools) {
          const pool = poolOf();
          this.set({ pool: name, state: 'in_use' }, pool ? pool.totalCount - pool.idleCount : 0);
          this.set({ pool: name, state: 'idle' }, pool?.idleCount ?? 0);
        }
      },
    });
    metrics.gauge({
      name: 'db_pool_waiting',
      help: 'Queries and transactions waiting for a connection of a database pool (saturation)',
      labelNames: ['pool'],
      collect() {
        for (const [name, poolOf] of pools) this.set({ pool: name }, poolOf()?.waitingCount ?? 0);
      },
    });
    metrics.gauge({
      name: 'db_pool_max',
      help: 'Most connections a database pool opens',
      labelNames: ['pool'],
      collect() {
        for (const [name, poolOf] of pools) this.set({ pool: name }, (poolOf()?.options as { max?: number } | undefined)?.max ?? 0);
      },
    });
  }

  onModuleInit(): void {
    // An idle connection dropped by the server is a hint of an outage, confirmed by the database check.
    this.mainPool()?.on('error', (error) => this.outages.suspect(DATABASE_DEPENDENCY, error));
  }

  private mainPool(): pg.Pool | undefined {
    return (this.dataSource.driver as PostgresDriver).master as pg.Pool | undefined;
  }
}
