import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, ToggleProxy, type TestDatabase } from '#libs/testing';
import { FailFastClient, QUERY_READ_TIMEOUT } from './fail-fast-client.js';

describe('FailFastClient', () => {
  // From the cached empty cluster (createTestDatabase), not a new initdb: ~2.5 s of CPU less.
  let embedded: TestDatabase;
  let proxy: ToggleProxy;

  beforeAll(async () => {
    embedded = await createTestDatabase();
    proxy = ToggleProxy.forUrl(embedded.url);
    await proxy.start();
  });
  afterAll(async () => {
    await proxy?.stop();
    await embedded?.drop();
  });

  it('keeps an error listener on a lent connection, so a session the server ends before the borrower listens cannot crash the process', async () => {
    const pool = new pg.Pool({ connectionString: proxy.wrap(embedded.url), max: 1, Client: FailFastClient });
    pool.on('error', () => undefined);
    try {
      // As pg-pool hands it to TypeORM: its idle listener already removed, the borrower's not yet added.
      const client = await pool.connect();
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      proxy.cut();
      await ended;
      client.release(true);
      proxy.restore();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      proxy.restore();
      await pool.end();
    }
  });

  it('drops a connection whose query got no answer, so the pool does not lend it again', async () => {
    const pool = new pg.Pool({ connectionString: proxy.wrap(embedded.url), max: 1, Client: FailFastClient, query_timeout: 300 });
    pool.on('error', () => undefined);
    const dropped = new Promise<void>((resolve) => pool.once('remove', () => resolve()));
    try {
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(pool.totalCount).toBe(1);
      proxy.freeze();
      // As TypeORM does: borrow a connection, query, give it back without an error.
      const client = await pool.connect();
      client.on('error', () => undefined);
      const started = Date.now();
      await expect(client.query('SELECT 2')).rejects.toThrow(QUERY_READ_TIMEOUT);
      expect(Date.now() - started).toBeLessThan(1000);
      client.release();
      await dropped;
      expect(pool.totalCount).toBe(0);
      proxy.restore();
      expect((await pool.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    } finally {
      proxy.restore();
      await pool.end();
    }
  });

  it('does the same for a callback-style query (how pg.Pool#query calls its client)', async () => {
    const client = new FailFastClient({ connectionString: proxy.wrap(embedded.url), query_timeout: 300 });
    await client.connect();
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.on('error', () => undefined);
    proxy.freeze();
    try {
      const error = await new Promise<Error | null>((resolve) => client.query('SELECT 1', (err: Error | null) => resolve(err)));
      expect(error?.message).toBe(QUERY_READ_TIMEOUT);
      await ended;
    } finally {
      proxy.restore();
      await client.end().catch(() => undefined);
    }
  });
});
