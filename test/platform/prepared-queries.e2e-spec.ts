import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { PreparedQueries } from '#libs/database';
import { createTestDatabase, usingRealPostgres, type TestDatabase } from '#libs/testing';

/**
 * Hot-path statements run as named prepared statements on PostgreSQL and unnamed on the
 * embedded database (one PGlite session behind every connection, where names collide).
 */
describe('PreparedQueries', () => {
  let database: TestDatabase;
  let pools: pg.Pool[] = [];
  const newPool = (max: number) => {
    const pool = new pg.Pool({ connectionString: database.url, max });
    // An idle connection the server ends (a shutdown or terminate elsewhere on a shared server) is
    // an 'error' on the pool; unheard, it throws out of the test. The next query reconnects.
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    const setup = newPool(1);
    await setup.query(`CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL)`);
    await setup.query(`INSERT INTO things VALUES (1, 'one'), (2, 'two')`);
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    pools = [];
    await database?.drop();
  });

  const preparedNames = async (pool: pg.Pool) =>
    (await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((row) => row.name);

  it(usingRealPostgres() ? 'prepares each text once per connection on PostgreSQL' : 'runs statements unnamed on the embedded database', async () => {
    const pool = newPool(1); // one connection, so the catalogue below is that connection's
    const queries = new PreparedQueries(() => pool);
    expect(await queries.query(`SELECT name FROM things WHERE id = $1`, [1])).toEqual([{ name: 'one' }]);
    expect(await queries.query(`SELECT name FROM things WHERE id = $1`, [2])).toEqual([{ name: 'two' }]);
    const names = await preparedNames(pool);
    if (usingRealPostgres()) expect(names).toEqual([expect.stringMatching(/^q_[0-9a-f]{24}$/)]);
    else expect(names).toEqual([]);
  });

  it('runs the same text from many connections at once without name collisions', async () => {
    const pool = newPool(6);
    const queries = new PreparedQueries(() => pool);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => queries.query<{ id: number }>(`SELECT id FROM things WHERE id = $1`, [1 + (i % 2)])));
    expect(results.map((rows) => rows[0].id)).toEqual(Array.from({ length: 30 }, (_, i) => 1 + (i % 2)));
  });

  it('answers again after the table changed shape under a prepared statement', async () => {
    const pool = newPool(1);
    const queries = new PreparedQueries(() => pool);
    expect(await queries.query(`SELECT * FROM things WHERE id = $1`, [1])).toEqual([{ id: 1, name: 'one' }]);
    await pool.query(`ALTER TABLE things ADD COLUMN note text NOT NULL DEFAULT 'n'`);
    try {
      // PostgreSQL refuses the cached plan ("cached plan must not change result type"): it is run again unnamed.
      expect(await queries.query(`SELECT * FROM things WHERE id = $1`, [1])).toEqual([{ id: 1, name: 'one', note: 'n' }]);
    } finally {
      await pool.query(`ALTER TABLE things DROP COLUMN note`);
    }
  });

  it('commits a transaction when its work resolves and rolls it back when it throws, releasing the connection', async () => {
    const pool = newPool(1);
    const queries = new PreparedQueries(() => pool);
    const inserted = await queries.transaction(async (tx) => {
      await tx.query(`INSERT INTO things VALUES ($1, $2)`, [3, 'three']);
      return tx.query(`SELECT name FROM things WHERE id = $1`, [3]);
    });
    expect(inserted).toEqual([{ name: 'three' }]);
    await expect(
      queries.transaction(async (tx) => {
        await tx.query(`INSERT INTO things VALUES ($1, $2)`, [4, 'four']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A failing statement aborts the transaction; nothing of it stays.
    await expect(
      queries.transaction(async (tx) => {
        await tx.query(`INSERT INTO things VALUES ($1, $2)`, [5, 'five']);
        await tx.query(`INSERT INTO things VALUES ($1, $2)`, [1, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await pool.query(`SELECT id FROM things ORDER BY id`)).rows.map((row) => row.id)).toEqual([1, 2, 3]);
    // The single connection came back each time (else the query above would have waited forever).
    expect(pool.idleCount).toBe(1);
  });

  it('asks the database again after a failed first contact instead of remembering the failure', async () => {
    let pool = new pg.Pool({ connectionString: 'postgres://nobody:nothing@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    pools.push(pool);
    const queries = new PreparedQueries(() => pool);
    await expect(queries.query(`SELECT 1 AS one`)).rejects.toThrow();
    pool = newPool(1);
    expect(await queries.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });
});
