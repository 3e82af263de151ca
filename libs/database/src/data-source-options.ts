import type { DataSourceOptions } from 'typeorm';
import { migrations } from './migrations/index.js';

export interface DataSourceSettings {
  url: string;
  poolSize: number;
  applicationName: string;
  entities?: DataSourceOptions['entities'];
}

/**
 * One definition of how we talk to Postgres, used by both apps, the TypeORM CLI and tests.
 * Short connect and statement timeouts make requests fail fast (503) when the database is
 * gone instead of hanging.
 */
export function dataSourceOptions(settings: DataSourceSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    entities: settings.entities ?? [],
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
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30000,
      statement_timeout: 15000,
      query_timeout: 20000,
    },
  } as DataSourceOptions;
}
