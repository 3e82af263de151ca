import pg from 'pg';
import type { DataSource } from 'typeorm';
import { CONNECT_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS } from './data-source-options.js';
import { failFastWhile } from './database-probe.js';
import { FailFastClient, queryTimeouts } from './fail-fast-client.js';

/** A pool beside the application's: same server and timeouts, its own size and session settings. */
export interface SidePoolOptions {
  /** `application_name`, so its sessions are told apart in pg_stat_activity. */
  applicationName: string;
  size: number;
  /** Its statements get at most this long, less when the application's query timeout is shorter. */
  maxQueryTimeoutMs: number;
  /** Session settings (libpq `options`, e.g. `-c synchronous_commit=off`). */
  sessionOptions?: string;
  /** An idle client died (a database restart): the pool replaces it; this hears of it. */
  onIdleError(error: Error): void;
  /** While this holds (the database known down), every borrow fails at once. */
  failFastWhile(): boolean;
}

/**
 * A small pool of its own on the application's database, for statements whose session settings
 * differ from the application pool's (the rate-limit counters' asynchronous commits). It is made
 * here, with the driver, like every other connection of the data layer.
 */
export function createSidePool(dataSource: DataSource, options: SidePoolOptions): pg.Pool {
  const settings = dataSource.options as { url?: string; extra?: { connectionTimeoutMillis?: number; query_timeout?: number } };
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: options.size,
    Client: FailFastClient,
    options: options.sessionOptions,
    ...queryTimeouts(Math.min(settings.extra?.query_timeout ?? DEFAULT_QUERY_TIMEOUT_MS, options.maxQueryTimeoutMs)),
    connectionTimeoutMillis: settings.extra?.connectionTimeoutMillis ?? CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName,
  });
  pool.on('error', options.onIdleError);
  failFastWhile(pool, options.failFastWhile);
  return pool;
}
