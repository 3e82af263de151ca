import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { EmbeddedPostgres, migrateDatabase } from '#libs/database';

export interface TestDatabase {
  url: string;
  kind: 'embedded' | 'postgres';
  drop(): Promise<void>;
}

/** `npm run test:pg` sets TEST_DB=pg: each test file then gets its own database on DATABASE_URL's server. */
export function usingRealPostgres(): boolean {
  return process.env.TEST_DB === 'pg';
}

export interface TestDatabaseOptions {
  /**
   * Start from a database that has every migration of this checkout applied (what an app migrating
   * at start would make of an empty one), instead of an empty one: for files that start apps or
   * query the schema. A test of the migrations themselves takes the default, empty database.
   * Embedded: a kept migrated cluster; PostgreSQL (TEST_DB=pg): a copy of a migrated template database.
   */
  migrated?: boolean;
}

/**
 * A fresh database for one test file: a new database on the real server (TEST_DB=pg), or an
 * in-memory embedded PGlite served on a free loopback port; empty, or migrated (see the option).
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (!usingRealPostgres()) {
    const embedded = options.migrated ? await startEmbeddedFromMigratedCluster() : await startEmbeddedFromEmptyCluster();
    return { url: embedded.url, kind: 'embedded', drop: () => embedded.stop() };
  }
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DB=pg needs DATABASE_URL pointing at a PostgreSQL server');
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, async (admin) => {
    if (options.migrated) await admin.query(`CREATE DATABASE ${name} TEMPLATE ${await migratedTemplate(admin, adminUrl)}`);
    else await admin.query(`CREATE DATABASE ${name}`);
  });
  return {
    url: databaseUrl(adminUrl, name),
    kind: 'postgres',
    drop: async () => {
      await withClient(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** One connection to `url` for `work`, ended whatever `work` does: a test's one-off look at a database. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The name of the server's template database with every migration of this checkout applied, made
 * by the first test file that needs it (the others wait on an advisory lock): named by the same
 * hash as the kept embedded cluster, so a new or edited migration makes a new one, and the
 * templates of earlier migration lists are dropped. Copying it (CREATE DATABASE … TEMPLATE) costs
 * a fraction of migrating; it refuses connections, since a copy cannot be made while one is open.
 */
async function migratedTemplate(admin: pg.Client, adminUrl: string): Promise<string> {
  const template = `test_template_${migrationsHash()}`;
  await admin.query(`SELECT pg_advisory_lock(hashtext('test_template'))`);
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [template]);
    if (rowCount) return template;
    const building = `${template}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    await migrateDatabase({ url: databaseUrl(adminUrl, building), applicationName: 'test-template', queryTimeoutMs: 60_000 });
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    await admin.query(`ALTER DATABASE ${template} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'test\\_template\\_%' AND datname <> $1`, [template]);
    for (const { datname } of rows) {
      await admin.query(`ALTER DATABASE ${datname} WITH IS_TEMPLATE false`);
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    return template;
  } finally {
    await admin.query(`SELECT pg_advisory_unlock(hashtext('test_template'))`);
  }
}

/**
 * Where the empty embedded cluster of this PGlite version is kept between test files and runs
 * (.data is git-ignored). Creating a cluster (initdb) costs ~2.5 s of CPU; loading this tarball
 * ~0.6 s. Every file still gets its own new in-memory database, identical to a fresh one.
 */
function emptyClusterFile(): string {
  return join(process.cwd(), '.data', 'test-template', `pglite-${pgliteVersion()}-empty.tgz`);
}

function pgliteVersion(): string {
  return (JSON.parse(readFileSync(join(process.cwd(), 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The migrated cluster's file, named by a hash of every migration file's name and content: adding
 * or editing a migration makes (and keeps) a new one.
 */
function migratedClusterFile(): string {
  return join(process.cwd(), '.data', 'test-template', `pglite-${pgliteVersion()}-migrated-${migrationsHash()}.tgz`);
}

/** A hash of every migration file's name and content (16 hex digits). */
function migrationsHash(): string {
  const dir = join(process.cwd(), 'libs', 'database', 'src', 'migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(`${name}\0`).update(readFileSync(join(dir, name))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

async function startEmbeddedFromEmptyCluster(): Promise<EmbeddedPostgres> {
  return startEmbeddedFromKeptCluster(emptyClusterFile(), () => EmbeddedPostgres.start({ maxConnections: 64 }));
}

/** Loading the migrated cluster costs about what loading the empty one does; running the migrations on that ~0.3-1.5 s of CPU more. */
async function startEmbeddedFromMigratedCluster(): Promise<EmbeddedPostgres> {
  return startEmbeddedFromKeptCluster(migratedClusterFile(), async () => {
    const embedded = await startEmbeddedFromEmptyCluster();
    try {
      await migrateDatabase({ url: embedded.url, applicationName: 'test-template', queryTimeoutMs: 60_000 });
    } catch (error) {
      await embedded.stop();
      throw error;
    }
    return embedded;
  });
}

/** A new in-memory database from the kept cluster `file`, or (none kept yet, or unreadable) from `make`, whose cluster is then kept. */
async function startEmbeddedFromKeptCluster(file: string, make: () => Promise<EmbeddedPostgres>): Promise<EmbeddedPostgres> {
  let tarball: Buffer | undefined;
  try {
    tarball = readFileSync(file);
  } catch {
    // Not made yet: this file's database is made the slow way and kept below.
  }
  if (tarball) {
    try {
      return await EmbeddedPostgres.start({ maxConnections: 64, initialData: new Blob([new Uint8Array(tarball)]) });
    } catch {
      rmSync(file, { force: true }); // unreadable (an interrupted write elsewhere): make it again
    }
  }
  const embedded = await make();
  const dump = Buffer.from(await (await embedded.dump()).arrayBuffer());
  mkdirSync(dirname(file), { recursive: true });
  // Written aside and renamed, so a parallel worker never reads half a file.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, dump);
  renameSync(partial, file);
  // Migrated clusters of earlier migration lists are not used again.
  const kept = file.match(/^(.*-migrated-)[0-9a-f]+\.tgz$/);
  if (kept) {
    for (const name of readdirSync(dirname(file))) {
      const path = join(dirname(file), name);
      if (path !== file && path.startsWith(kept[1]) && path.endsWith('.tgz')) rmSync(path, { force: true });
    }
  }
  return embedded;
}
