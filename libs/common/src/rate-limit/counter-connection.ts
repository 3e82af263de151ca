import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { createSidePool, PreparedQueries } from '#libs/database';
import type { DependencyOutages } from '../health/dependency-outages.service.js';
import { DATABASE_DEPENDENCY } from '../health/dependency-checks.service.js';
import type { RateLimitHit } from './rate-limit.store.js';

/** Connections of the counter pool; a hit is one short statement. */
const COUNTER_POOL_SIZE = 4;
/** A hit is one short statement: it gets at most this long, less when DB_QUERY_TIMEOUT_MS is shorter. */
const COUNTER_QUERY_TIMEOUT_MS = 6000;

/** A counter's row (`hits`, `reset_ms` as rate_limit_hit answers them) as a hit. */
export function hitOf(row: { hits: number | string; reset_ms: string }): RateLimitHit {
  return { hits: Number(row.hits), resetSeconds: Math.max(1, Math.ceil(Number(row.reset_ms) / 1000)) };
}

/**
 * The data path of the rate-limit counters in PostgreSQL: a small pool of its own with
 * `synchronous_commit=off`. A hit is a write on every limited request, and waiting for its WAL
 * flush doubled the cost of a cached read; a crash can lose the last few milliseconds of counts,
 * which only undercounts a window. Only PostgresRateLimitStore's own statements run here; the
 * credential repositories' counting lookups run on their own data path and turn the wait off for
 * their statement alone (countingLookupSql).
 */
export class CounterConnection {
  private pool?: pg.Pool;
  private readonly prepared = new PreparedQueries(() => this.getPool());

  constructor(
    private readonly dataSource: DataSource,
    private readonly outages: DependencyOutages,
  ) {}

  /** The counter pool, once a first statement opened it (for the pool metrics). */
  get connectionPool(): pg.Pool | undefined {
    return this.pool;
  }

  query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.prepared.query<T>(sql, params);
  }

  async close(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
  }

  private getPool(): pg.Pool {
    // An idle client dying (database restart) hints at an outage, which the database check confirms (one log
    // line per outage, not per connection); while the database is known down, a hit fails at once.
    this.pool ??= createSidePool(this.dataSource, {
      applicationName: 'rate-limit',
      size: COUNTER_POOL_SIZE,
      maxQueryTimeoutMs: COUNTER_QUERY_TIMEOUT_MS,
      sessionOptions: '-c synchronous_commit=off',
      onIdleError: (error) => this.outages.suspect(DATABASE_DEPENDENCY, error),
      failFastWhile: () => this.outages.isDown(DATABASE_DEPENDENCY),
    });
    return this.pool;
  }
}
