import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { counterKeySql, countingLookupSql, rateLimitCounterKey } from '#libs/common';
import { createTestDatabase, type TestDatabase } from '#libs/testing';

/**
 * A credential lookup that counts its request in the same statement (countingLookupSql) runs on
 * its repository's own data path, the application pool, where commits wait for their WAL flush.
 * The hit must not: the statement turns the wait off for its own transaction, and for no other.
 */
describe('a counting lookup statement', () => {
  let db: TestDatabase;
  let client: pg.Client;
  const bucket = rateLimitCounterKey('counting-spec', '');
  const statement = countingLookupSql(`SELECT $1::text AS name, $4::boolean AS usable`, {
    counterKey: counterKeySql('$2', `'name:' || found.name`),
    windowMs: '$3',
    when: 'found.usable',
  });
  const lookUp = (name: string, usable: boolean) =>
    client.query<{ name: string; rate_limit_hits: number | null; rate_limit_reset_ms: string | null }>(statement, [name, bucket, 60_000, usable]);
  const setting = async () => (await client.query<{ value: string }>(`SELECT current_setting('synchronous_commit') AS value`)).rows[0].value;

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: true });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('answers the row with its hit, counting once per statement while the credential is usable', async () => {
    const first = await lookUp('alice', true);
    const second = await lookUp('alice', true);
    expect(first.rows).toEqual([{ name: 'alice', usable: true, rate_limit_hits: 1, rate_limit_reset_ms: expect.any(String) }]);
    expect(second.rows[0].rate_limit_hits).toBe(2);
    expect(Number(second.rows[0].rate_limit_reset_ms)).toBeGreaterThan(50_000);
  });

  it('counts nothing for an unusable credential, and still answers its row', async () => {
    const { rows } = await lookUp('bob', false);
    expect(rows).toEqual([{ name: 'bob', usable: false, rate_limit_hits: null, rate_limit_reset_ms: null }]);
    const counters = await client.query(`SELECT 1 FROM rate_limit_counters WHERE key = $1`, [`${bucket}name:bob`]);
    expect(counters.rowCount).toBe(0);
  });

  it('commits its hit without waiting for the WAL flush, in its own transaction only', async () => {
    expect(await setting()).toBe('on');
    await client.query('BEGIN');
    try {
      await lookUp('carol', true);
      expect(await setting()).toBe('off');
    } finally {
      await client.query('COMMIT');
    }
    expect(await setting()).toBe('on');
  });
});
