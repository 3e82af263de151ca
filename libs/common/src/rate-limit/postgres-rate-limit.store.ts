import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '#libs/database';

export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface CountedLookup {
  sql: string;
  params: unknown[];
  counterKey: string;
  countIf: string;
}

/**
 * One hit as an upsert over `source` (e.g. `FROM found WHERE ...`; empty: one row): a window
 * that has ended starts again at 1.
 */
function upsertHit({ keyExpression, windowParameter, source = '' }: { keyExpression: string; windowParameter: string; source?: string }): string {
  return `INSERT INTO rate_limit_counters AS c (key, hits, window_ends_at)
    SELECT ${keyExpression}, 1, now() + make_interval(secs => ${windowParameter}::double precision / 1000) ${source}
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.hits + 1 END,
      window_ends_at = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.window_ends_at ELSE c.window_ends_at END
    RETURNING hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms`;
}

function toHit(row: { hits: number | string; reset_ms: string }): RateLimitHit {
  return { hits: Number(row.hits), resetSeconds: Math.max(1, Math.ceil(Number(row.reset_ms) / 1000)) };
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
  private readonly prepared = new PreparedQueries(() => this.getPool());

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
    return this.prepared.query<T>(sql, params);
  }

  private getPool(): pg.Pool {
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
    return this.pool;
  }

  /** Counts one hit against `key` in a window of `windowMs`. */
  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(upsertHit({ keyExpression: '$1', windowParameter: '$2' }), [key, windowMs]);
    return toHit(rows[0]);
  }

  /**
   * Looks a credential up and counts a hit against it in the same round trip, so a limited
   * route costs one statement for auth and limit together. `sql` selects at most one row
   * (parameters `$1..$n`); when `countIf` (SQL over that row, aliased `found`) holds, the
   * counter `counterKey` (SQL over `found`) gets one hit in a window of `windowMs`.
   * Runs on the counter pool: the read sees every committed write like any other statement.
   */
  async lookupAndHit<T extends object>(lookup: CountedLookup, windowMs: number): Promise<{ row: T; hit?: RateLimitHit } | undefined> {
    const windowParameter = `$${lookup.params.length + 1}`;
    const rows: Array<T & { __hits: number | null; __reset_ms: string | null }> = await this.query(
      `WITH found AS (${lookup.sql}),
       hit AS (${upsertHit({ keyExpression: lookup.counterKey, windowParameter, source: `FROM found WHERE ${lookup.countIf}` })})
       SELECT found.*, hit.hits AS __hits, hit.reset_ms AS __reset_ms FROM found LEFT JOIN hit ON true`,
      [...lookup.params, windowMs],
    );
    if (rows.length === 0) return undefined;
    const { __hits, __reset_ms, ...row } = rows[0];
    return { row: row as unknown as T, hit: __hits === null ? undefined : toHit({ hits: __hits, reset_ms: __reset_ms! }) };
  }

  /** The current count without adding a hit. */
  async peek(key: string): Promise<RateLimitHit> {
    const rows: Array<{ hits: number; reset_ms: string }> = await this.query(
      `SELECT hits, (extract(epoch FROM (window_ends_at - now())) * 1000)::bigint AS reset_ms
       FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()`,
      [key],
    );
    if (rows.length === 0) return { hits: 0, resetSeconds: 0 };
    return toHit(rows[0]);
  }

  /** Takes back one hit of the current window (an attempt that turned out not to count, e.g. a successful login). */
  async release(key: string): Promise<void> {
    await this.query(`UPDATE rate_limit_counters SET hits = hits - 1 WHERE key = $1 AND hits > 0 AND window_ends_at > now()`, [key]);
  }

  async reset(key: string): Promise<void> {
    await this.query(`DELETE FROM rate_limit_counters WHERE key = $1`, [key]);
  }
}
