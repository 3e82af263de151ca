import pg from 'pg';
import type { DataSource } from 'typeorm';
import { mainPoolOf } from './database-flavour.js';
import { destroyPgClientSocket } from './fail-fast-client.js';
import { pendingMigrations } from './run-migrations.js';

/** The message of the error every pool borrow gets while the database is known to be down (mapped to 503). */
export const DATABASE_KNOWN_DOWN = 'The database is known to be unavailable: failing fast until a probe reaches it';

type ConnectCallback = (error: Error | undefined, client?: pg.PoolClient, release?: (error?: unknown) => void) => void;

/**
 * A circuit breaker's gate on a pool: while `blocked()` is true, a borrow (`connect`, which
 * `pool.query` and TypeORM's query runners use too) fails at once with DATABASE_KNOWN_DOWN
 * instead of waiting for a connection that cannot come (up to the pool's connect timeout,
 * requests piling up meanwhile). Every pool of an app that talks to the database gets it
 * (the main pool, the rate-limit counters' pool).
 */
export function failFastWhile(pool: pg.Pool, blocked: () => boolean): void {
  const connect = pool.connect.bind(pool) as (callback?: ConnectCallback) => unknown;
  (pool as unknown as { connect: (callback?: ConnectCallback) => unknown }).connect = (callback?: ConnectCallback) => {
    if (!blocked()) return connect(callback);
    const error = new Error(DATABASE_KNOWN_DOWN);
    if (!callback) return Promise.reject(error);
    process.nextTick(() => callback(error));
    return undefined;
  };
}

/** What health checks ask the database, so they need no DataSource of their own. */
export class DatabaseProbe {
  private gated = false;

  constructor(private readonly dataSource: DataSource) {}

  /** Resolves when the database answers a trivial statement. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /**
   * Resolves when the database answers `SELECT 1` on a connection of its own, opened and closed
   * here, outside the pool: the half-open probe of the circuit breaker, which must reach the
   * database while `failFastWhile` refuses every pool borrow. Bounded by `timeoutMs` (connect
   * and query); the socket is destroyed when it does not answer.
   */
  async pingOwnConnection(timeoutMs: number): Promise<void> {
    const pool = mainPoolOf(this.dataSource) as pg.Pool & { options: pg.PoolConfig; Client: typeof pg.Client };
    const client = new pool.Client({ ...pool.options, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, keepAlive: false });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      destroyPgClientSocket(client);
    }
  }

  /**
   * The circuit breaker's gate on the main pool (the one both TypeORM and PreparedQueries
   * borrow from): see `failFastWhile` below. Installed once.
   */
  failFastWhile(blocked: () => boolean): void {
    if (this.gated) return;
    this.gated = true;
    failFastWhile(mainPoolOf(this.dataSource), blocked);
  }

  /** The names of this build's migrations the database has not applied. */
  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.dataSource);
  }
}
