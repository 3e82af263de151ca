import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { withClient } from '#libs/testing';
import { EmbeddedPostgres } from './embedded-postgres.js';

describe('EmbeddedPostgres under concurrent connections', () => {
  let embedded: EmbeddedPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    embedded = await EmbeddedPostgres.start({ maxConnections: 8 });
    pool = new pg.Pool({ connectionString: embedded.url, max: 8 });
  });
  afterAll(async () => {
    await pool?.end();
    await embedded?.stop();
  });

  it('keeps each connection’s parameterised queries apart (no shared unnamed statement or portal)', async () => {
    // Transactions make the other connections' messages queue up; once one ends, the queued
    // connections must not be served interleaved (one's Parse between another's Parse and Bind).
    await pool.query(`CREATE TABLE IF NOT EXISTS claims (id text PRIMARY KEY)`);
    const transactions = Array.from({ length: 4 }, async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO claims (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id`, ['same']);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    });
    const reads = Array.from({ length: 12 }, (_, n) =>
      pool.query(`SELECT ${n} AS k, $1::int AS n`, [n]).then((res) => (res.rows[0].k === n ? res.rows[0].n : -1)),
    );
    await Promise.all(transactions);
    const answers = await Promise.allSettled(reads);
    const wrong = answers.filter((answer, n) => answer.status === 'rejected' || answer.value !== n);
    expect(wrong).toEqual([]);
  });

  it('still serialises a transaction against other connections', async () => {
    await pool.query(`CREATE TABLE IF NOT EXISTS counter (id int PRIMARY KEY, value int NOT NULL)`);
    await pool.query(`INSERT INTO counter VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET value = 0`);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const { rows } = await client.query(`SELECT value FROM counter WHERE id = $1 FOR UPDATE`, [1]);
          await client.query(`UPDATE counter SET value = $1 WHERE id = $2`, [rows[0].value + 1, 1]);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }),
    );
    expect((await pool.query(`SELECT value FROM counter WHERE id = 1`)).rows[0].value).toBe(20);
  });
});

describe('EmbeddedPostgres buffer pool', () => {
  const sharedBuffersOf = (embedded: EmbeddedPostgres): Promise<string> =>
    withClient(embedded.url, async (client) => (await client.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers);

  // initdb writes 128MB into postgresql.conf; the start parameters override it on every start, so
  // a data directory made by an older version gets the small pool too.
  it('is 16MB in memory, from a dumped cluster, and on a data directory across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-buffers-'));
    const seen: string[] = [];
    try {
      const fresh = await EmbeddedPostgres.start({ maxConnections: 2 });
      seen.push(await sharedBuffersOf(fresh));
      const dump = await fresh.dump();
      await fresh.stop();
      const loaded = await EmbeddedPostgres.start({ maxConnections: 2, initialData: dump });
      seen.push(await sharedBuffersOf(loaded));
      await loaded.stop();
      for (let start = 0; start < 2; start++) {
        const onDisk = await EmbeddedPostgres.start({ maxConnections: 2, dataDir });
        seen.push(await sharedBuffersOf(onDisk));
        await onDisk.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(seen).toEqual(['16MB', '16MB', '16MB', '16MB']);
  }, 60_000);
});
