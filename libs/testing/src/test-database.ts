import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { EmbeddedPostgres } from '#libs/database';

export interface TestDatabase {
  url: string;
  kind: 'embedded' | 'postgres';
  drop(): Promise<void>;
}

/** `npm run test:pg` sets TEST_DB=pg: each test file then gets its own database on DATABASE_URL's server. */
export function usingRealPostgres(): boolean {
  return process.env.TEST_DB === 'pg';
}

/**
 * A fresh, empty database for one test file: a new database on the real server
 * (TEST_DB=pg), or an in-memory embedded PGlite served on a free loopback port.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!usingRealPostgres()) {
    const embedded = await startEmbeddedFromEmptyCluster();
    return { url: embedded.url, kind: 'embedded', drop: () => embedded.stop() };
  }
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DB=pg needs DATABASE_URL pointing at a PostgreSQL server');
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgres',
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Where the empty embedded cluster of this PGlite version is kept between test files and runs
 * (.data is git-ignored). Creating a cluster (initdb) costs ~2.5 s of CPU; loading this tarball
 * ~0.6 s. Every file still gets its own new in-memory database, identical to a fresh one.
 */
function emptyClusterFile(): string {
  const { version } = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string };
  return join(process.cwd(), '.data', 'test-template', `pglite-${version}-empty.tgz`);
}

async function startEmbeddedFromEmptyCluster(): Promise<EmbeddedPostgres> {
  const file = emptyClusterFile();
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
  const embedded = await EmbeddedPostgres.start({ maxConnections: 64 });
  const dump = Buffer.from(await (await embedded.dump()).arrayBuffer());
  mkdirSync(dirname(file), { recursive: true });
  // Written aside and renamed, so a parallel worker never reads half a file.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, dump);
  renameSync(partial, file);
  return embedded;
}
