import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { CONNECT_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS, failFastWhile, FailFastClient, PreparedQueries, queryTimeouts } from '#libs/database';
import type { DependencyOutages } from '../health/dependency-outages.service.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { DATABASE_DEPENDENCY } from '../health/dependency-checks.service.js';
import { RateLimitStore, type CountedHitColumns, type CountingLookup, type RateLimitHit } from './rate-limit.store.js';

function toHit(row: { hits: number | string; reset_ms: string }): RateLimitHit {
  return { hits: Number(row.hits), resetSeconds: Math.max(1, Math.ceil(Number(row.reset_ms) / 1000)) };
}

/** `value` with LIKE's wildcards escaped (backslash is the default escape). */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Connections of the counter pool; a hit is one short statement. */
const COUNTER_POOL_SIZE = 4;
/** A hit is one short statement: it gets at most this long, less when DB_QUERY_TIMEOUT_MS is shorter. */
const COUNTER_QUERY_TIMEOUT_MS = 6000;

/**
 * Fixed-window counters in PostgreSQL (table rate_limit_counters): one atomic upsert per
 * hit, so a limit holds across every replica that shares the database. The default store:
 * it needs nothing besides the database.
 *
 * The counters live on their own small pool with `synchronous_commit=off`: a hit is a write
 * on every limited request, and waiting for its WAL flush doubled the cost of a cached read.
 * A crash can lose the last few milliseconds of counts, which only undercounts a window.
 */
export class PostgresRateLimitStore extends RateLimitStore implements OnModuleInit, OnModuleDestroy {
  readonly storage = 'postgres';
  /** Windows over for an hour go, every 10 minutes (Nest may init this provider once per module that sees it: start() runs once). */
  private readonly sweeper = new PeriodicTask(
    'Sweep of ended rate-limit windows',
    10 * 60_000,
    () => this.query(`DELETE FROM rate_limit_counters WHERE window_ends_at < now() - interval '1 hour'`),
    new Logger('RateLimits'),
  );
  private pool?: pg.Pool;
  private readonly prepared = new PreparedQueries(() => this.getPool());

  constructor(
    private readonly dataSource: DataSource,
    private readonly outages: DependencyOutages,
  ) {
    super();
  }

  /** The counter pool, once a first hit opened it (for the pool metrics). */
  get connectionPool(): pg.Pool | undefined {
    return this.pool;
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.sweeper.stop();
    await this.pool?.end().catch(() => undefined);
  }

  private query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.prepared.query<T>(sql, params);
  }

  private getPool(): pg.Pool {
    if (!this.pool) {
      const options = this.dataSource.options as { url?: string; extra?: { connectionTimeoutMillis?: number; query_timeout?: number } };
      this.pool = new pg.Pool({
        connectionString: options.url,
        max: COUNTER_POOL_SIZE,
        Client: FailFastClient,
        options: '-c synchronous_commit=off',
        ...queryTimeouts(Math.min(options.extra?.query_timeout ?? DEFAULT_QUERY_TIMEOUT_MS, COUNTER_QUERY_TIMEOUT_MS)),
        connectionTimeoutMillis: options.extra?.connectionTimeoutMillis ?? CONNECT_TIMEOUT_MS,
        idleTimeoutMillis: 30_000,
        application_name: 'rate-limit',
      });
      // An idle client dying (database restart) must not crash the process; the pool replaces it.
      // It hints at an outage, which the database check confirms (one log line per outage, not per connection).
      this.pool.on('error', (error) => this.outages.suspect(DATABASE_DEPENDENCY, error));
      // The database's circuit breaker covers this pool too: while the database is known down, a hit fails at once.
      failFastWhile(this.pool, () => this.outages.isDown(DATABASE_DEPENDENCY));
    }
    return this.pool;
  }

  /** One hit through rate_limit_hit (migration RateLimitHitFunction), the window's one definition. */
  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(`SELECT hits, reset_ms FROM rate_limit_hit($1, $2)`, [key, windowMs]);
    return toHit(rows[0]);
  }

  /**
   * The lookup and its hit in one round trip (the repository's counting statement), so a
   * limited route costs one statement for auth and limit together. Runs on the counter pool:
   * the read sees every committed write like any other statement.
   */
  override async lookupAndHit<T extends object>(lookup: CountingLookup): Promise<{ row: T; hit?: RateLimitHit } | undefined> {
    const rows: Array<T & CountedHitColumns> = await this.query(lookup.sql, lookup.params);
    if (rows.length === 0) return undefined;
    const { rate_limit_hits: hits, rate_limit_reset_ms: resetMs, ...row } = rows[0];
    return { row: row as unknown as T, hit: hits === null ? undefined : toHit({ hits, reset_ms: resetMs! }) };
  }

  async peek(key: string): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(
      `SELECT hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms
       FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()`,
      [key],
    );
    if (rows.length === 0) return { hits: 0, resetSeconds: 0 };
    return toHit(rows[0]);
  }

  async release(key: string): Promise<void> {
    await this.query(`UPDATE rate_limit_counters SET hits = hits - 1 WHERE key = $1 AND hits > 0 AND window_ends_at > now()`, [key]);
  }

  async reset(key: string): Promise<void> {
    await this.query(`DELETE FROM rate_limit_counters WHERE key = $1`, [key]);
  }

  async forgetTrackers(trackers: string[]): Promise<void> {
    if (trackers.length === 0) return;
    await this.query(`DELETE FROM rate_limit_counters WHERE key LIKE ANY($1::text[])`, [trackers.map((tracker) => `%:${likeLiteral(tracker)}`)]);
  }
}
