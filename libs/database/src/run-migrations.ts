import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/** Arbitrary constant: the advisory lock that serialises migration runs across replicas. */
const MIGRATION_LOCK_ID = 7_301_994_215;

/**
 * Runs pending migrations under a session advisory lock, so two containers starting at
 * once do not both apply the same migration.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await runner.release();
  }
}

/** The names of this build's migrations that the database has not recorded as applied. */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM ${dataSource.options.migrationsTableName ?? 'migrations'}`);
  const applied = new Set(rows.map((row) => row.name));
  // TypeORM names a migration by its `name` property, else its class name.
  return dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name).filter((name) => !applied.has(name));
}

/** How often an app started with MIGRATE_AT_START=false looks whether its migrations have been applied. */
const MIGRATION_WAIT_POLL_MS = 2000;

/**
 * For an app that does not migrate itself (MIGRATE_AT_START=false): resolves once every migration of
 * this build is applied (by the migration Job, `node dist/apps/migrate.js`), looking every 2 s; a
 * database that cannot be read yet (down, or no migrations table) counts as "not yet". `waiting` is
 * called once, with what is missing, if the first look finds something pending.
 */
export async function waitForMigrations(dataSource: DataSource, waiting: (pending: string[] | undefined, error?: unknown) => void): Promise<void> {
  let told = false;
  for (;;) {
    let pending: string[] | undefined;
    let error: unknown;
    try {
      pending = await pendingMigrations(dataSource);
    } catch (caught) {
      error = caught;
    }
    if (pending?.length === 0) return;
    if (!told) waiting(pending, error);
    told = true;
    await sleep(MIGRATION_WAIT_POLL_MS);
  }
}

/**
 * A migrate-only run (the image's `migrate` entry point: the Kubernetes Job, compose's `migrate`
 * service): its own two connections (the advisory lock on one, TypeORM migrating on the other),
 * closed afterwards. Returns the names of the migrations it applied.
 */
export async function migrateDatabase(options: { url: string; applicationName: string; queryTimeoutMs: number }): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions({ url: options.url, poolSize: 2, applicationName: options.applicationName, queryTimeoutMs: options.queryTimeoutMs }));
  try {
    await dataSource.initialize();
    return await runMigrations(dataSource);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
  }
}
