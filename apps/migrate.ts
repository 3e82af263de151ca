import 'reflect-metadata';
import { launcherLogger, loadSettingsOrExit } from '#libs/common';
import { loadMigrationConfig } from '#libs/config';
import { migrateDatabase } from '#libs/database';

/*
 * `node dist/apps/migrate.js`: applies the pending migrations of this build to DATABASE_URL and exits
 * (0 done, 1 failed), with production dependencies only (the images carry it). It is the Kubernetes
 * migration Job and compose's `migrate` service; the apps then run with MIGRATE_AT_START=false, or
 * keep migrating at start (the default): both take the same advisory lock (runMigrations), so a Job
 * and a starting replica never apply one migration twice.
 */
const SERVICE = 'migrate';
const settings = loadSettingsOrExit(() => loadMigrationConfig(), SERVICE);
const logger = launcherLogger(SERVICE);
let exitCode = 0;
try {
  const applied = await migrateDatabase({ url: settings.databaseUrl, applicationName: SERVICE, queryTimeoutMs: settings.dbQueryTimeoutMs });
  logger.info({ applied }, applied.length === 0 ? 'No pending migrations' : `Applied ${applied.length} migration(s)`);
} catch (error) {
  logger.fatal({ err: error }, 'Migrations failed');
  exitCode = 1;
}
process.exit(exitCode);
