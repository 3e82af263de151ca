import type { DataSourceOptions } from 'typeorm';
import { FailFastClient, queryTimeouts } from './fail-fast-client.js';
import { migrations } from './migrations/index.js';

/** How long opening a connection (or waiting for a free one in the pool) may take. */
export const CONNECT_TIMEOUT_MS = 3000;
/** The query budget when none is configured (DB_QUERY_TIMEOUT_MS). */
export const DEFAULT_QUERY_TIMEOUT_MS = 20_000;

export interface DataSourceSettings {
  url: string;
  poolSize: number;
  applicationName: string;
  /** Client-side bound on one query (DB_QUERY_TIMEOUT_MS); the server's statement_timeout is 3/4 of it. */
  queryTimeoutMs?: number;
}

/**
 * One definition of how we talk to Postgres, used by both apps, the TypeORM CLI and tests.
 * Short connect and query timeouts make requests fail fast (503) when the database is gone
 * or frozen instead of hanging; a query that times out drops its connection (FailFastClient).
 */
export function dataSourceOptions(settings: DataSourceSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    // No entities: the migrations are the schema, row types live beside their queries (CONTRIBUTING, "Schema").
    entities: [],
    migrations,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto', // gen_random_uuid() is built in since PostgreSQL 13; nothing is installed
    installExtensions: false,
    poolSize: settings.poolSize,
    applicationName: settings.applicationName,
    extra: {
      max: settings.poolSize,
      Client: FailFastClient,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 30000,
      ...queryTimeouts(settings.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS),
    },
  } as DataSourceOptions;
}
