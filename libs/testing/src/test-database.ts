import { randomBytes } from 'node:crypto';
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
    const embedded = await EmbeddedPostgres.start({ maxConnections: 64 });
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
