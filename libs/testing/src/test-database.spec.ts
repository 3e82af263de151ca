import { describe, expect, it } from '@jest/globals';
import { migrations } from '../../database/src/migrations/index.js';
import { createTestDatabase, withClient } from './test-database.js';

const query = (url: string, sql: string): Promise<Array<Record<string, unknown>>> => withClient(url, async (client) => (await client.query(sql)).rows);

const userTables = `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`;

describe('createTestDatabase', () => {
  // Embedded databases start from a kept empty cluster (not initdb each time): what one file
  // did to its database must never reach the next file's.
  it('gives each call an empty database, whatever an earlier one was made to hold', async () => {
    const first = await createTestDatabase();
    try {
      await query(first.url, `CREATE TABLE left_behind (id int)`);
      expect(await query(first.url, userTables)).toEqual([{ tablename: 'left_behind' }]);
    } finally {
      await first.drop();
    }
    const second = await createTestDatabase();
    try {
      expect(await query(second.url, userTables)).toEqual([]);
    } finally {
      await second.drop();
    }
  });

  // Databases for apps start from a kept migrated cluster (embedded) or a migrated template (PostgreSQL): each must
  // hold exactly this checkout's migrations, and nothing a file wrote to its copy.
  it('gives a migrated database with every migration of this checkout recorded, and nothing an earlier copy was made to hold', async () => {
    const first = await createTestDatabase({ migrated: true });
    try {
      await query(first.url, `CREATE TABLE left_behind (id int)`);
      await query(first.url, `DELETE FROM schema_migrations`);
    } finally {
      await first.drop();
    }
    const second = await createTestDatabase({ migrated: true });
    try {
      const tables = (await query(second.url, userTables)).map((row) => row.tablename);
      expect(tables).not.toContain('left_behind');
      expect(tables).toEqual(expect.arrayContaining(['schema_migrations', 'users', 'todos']));
      const applied = (await query(second.url, `SELECT name FROM schema_migrations ORDER BY id`)).map((row) => row.name);
      expect(applied).toEqual(migrations.map((migration) => migration.name));
    } finally {
      await second.drop();
    }
  });
});
