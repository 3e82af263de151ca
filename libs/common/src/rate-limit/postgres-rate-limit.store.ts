import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type pg from 'pg';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { hitOf, type CounterConnection } from './counter-connection.js';
import { RateLimitStore, type RateLimitHit } from './rate-limit.store.js';

/** `value` with LIKE's wildcards escaped (backslash is the default escape). */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Fixed-window counters in PostgreSQL (table rate_limit_counters): one atomic upsert per
 * hit, so a limit holds across every replica that shares the database. The default store:
 * it needs nothing besides the database. Its statements run on the counters' own connection
 * (CounterConnection: a small pool with `synchronous_commit=off`).
 */
export class PostgresRateLimitStore extends RateLimitStore implements OnModuleInit, OnModuleDestroy {
  readonly storage = 'postgres';
  /** Windows over for an hour go, every 10 minutes (Nest may init this provider once per module that sees it: start() runs once). */
  private readonly sweeper = new PeriodicTask(
    'Sweep of ended rate-limit windows',
    10 * 60_000,
    () => this.connection.query(`DELETE FROM rate_limit_counters WHERE window_ends_at < now() - interval '1 hour'`),
    new Logger('RateLimits'),
  );

  constructor(private readonly connection: CounterConnection) {
    super();
  }

  /** The counter pool, once a first hit opened it (for the pool metrics). */
  get connectionPool(): pg.Pool | undefined {
    return this.connection.connectionPool;
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.sweeper.stop();
    await this.connection.close();
  }

  private query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.connection.query<T>(sql, params);
  }

  /** One hit through rate_limit_hit (migration RateLimitHitFunction), the window's one definition. */
  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(`SELECT hits, reset_ms FROM rate_limit_hit($1, $2)`, [key, windowMs]);
    return hitOf(rows[0]);
  }

  async peek(key: string): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(
      `SELECT hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms
       FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()`,
      [key],
    );
    if (rows.length === 0) return { hits: 0, resetSeconds: 0 };
    return hitOf(rows[0]);
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
