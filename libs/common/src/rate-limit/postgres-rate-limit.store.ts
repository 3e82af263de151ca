import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource } from 'typeorm';

export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** Connections of the counter pool; a hit is one short statement. */
const COUNTER_POOL_SIZE = 4;

/**
 * Fixed-window counters in Postgres: one atomic upsert per hit, so a limit holds across
 * every replica that shares the database.
 *
 * The counters live on their own small pool with `synchronous_commit=off`: a hit is a write
 * on every limited request, and waiting for its WAL flush doubled the cost of a cached read.
 * A crash can lose the last few milliseconds of counts, which only undercounts a window.
 */
@Injectable()
export class PostgresRateLimitStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PostgresRateLimitStore.name);
  private sweeper?: NodeJS.Timeout;
  private pool?: pg.Pool;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.sweeper = setInterval(() => {
      this.query(`DELETE FROM rate_limit_counters WHERE window_ends_at < now() - interval '1 hour'`).catch(() => undefined);
    }, 10 * 60_000);
    this.sweeper.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.pool?.end().catch(() => undefined);
  }

  private query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (!this.pool) {
      const options = this.dataSource.options as { url?: string; extra?: { connectionTimeoutMillis?: number } };
      this.pool = new pg.Pool({
        connectionString: options.url,
        max: COUNTER_POOL_SIZE,
        options: '-c synchronous_commit=off -c statement_timeout=5000',
        connectionTimeoutMillis: options.extra?.connectionTimeoutMillis ?? 3000,
        idleTimeoutMillis: 30_000,
        application_name: 'rate-limit',
      });
      // An idle client dying (database restart) must not crash the process; the pool replaces it.
      this.pool.on('error', (error) => this.logger.warn({ err: error.message }, 'Rate-limit pool connection lost'));
    }
    return this.pool.query(sql, params).then((result) => result.rows as T[]);
  }

  /** Counts one hit against `key` in a window of `windowMs`. */
  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(
      `INSERT INTO rate_limit_counters AS c (key, hits, window_ends_at)
       VALUES ($1, 1, now() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.hits + 1 END,
         window_ends_at = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.window_ends_at ELSE c.window_ends_at END
       RETURNING hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms`,
      [key, windowMs],
    );
    const row = rows[0];
    return { hits: Number(row.hits), resetSeconds: Math.max(1, Math.ceil(Number(row.reset_ms) / 1000)) };
  }

  /** The current count without adding a hit. */
  async peek(key: string): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(
      `SELECT hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms
       FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()`,
      [key],
    );
    if (rows.length === 0) return { hits: 0, resetSeconds: 0 };
    return { hits: Number(rows[0].hits), resetSeconds: Math.max(1, Math.ceil(Number(rows[0].reset_ms) / 1000)) };
  }

  /** Takes back one hit of the current window (an attempt that turned out not to count, e.g. a successful login). */
  async release(key: string): Promise<void> {
    await this.query(`UPDATE rate_limit_counters SET hits = hits - 1 WHERE key = $1 AND hits > 0 AND window_ends_at > now()`, [key]);
  }

  async reset(key: string): Promise<void> {
    await this.query(`DELETE FROM rate_limit_counters WHERE key = $1`, [key]);
  }
}
