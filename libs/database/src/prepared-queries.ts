import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { activeTracer } from '#libs/tracing';
import { DatabaseFlavour, mainPoolOf } from './database-flavour.js';
import { tracedStatement, tracedTransaction } from './statement-spans.js';
import { asTransaction, type Transaction } from './transaction.js';

const statementNames = new Map<string, string>();

/** A stable name per SQL text (pg keeps which names each connection has prepared). */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `q_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** The query as pg takes it: named (prepared once per connection) or unnamed. */
function statement(named: boolean, sql: string, params: unknown[]): pg.QueryConfig {
  return named ? { name: statementName(sql), text: sql, values: params } : { text: sql, values: params };
}

/** PostgreSQL refuses a prepared statement whose tables changed shape under it (a migration run by another replica). */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === '0A000' && /cached plan/.test((error as Error).message);
}

/**
 * Runs hot-path SQL as named prepared statements: PostgreSQL parses and plans each text
 * once per connection instead of on every request, which halves the database's CPU for
 * short lookups. Texts must be a bounded set (built from fixed fragments, values always as
 * parameters), since each connection keeps what it prepared.
 *
 * The embedded database (PGlite) serves every connection from one session, where a name
 * one connection prepared collides with the next connection's: there statements run
 * unnamed, as TypeORM runs them.
 */
export class PreparedQueries {
  constructor(
    private readonly pool: () => pg.Pool,
    private readonly flavour = new DatabaseFlavour(pool),
  ) {}

  static forDataSource(dataSource: DataSource, flavour = DatabaseFlavour.forDataSource(dataSource)): PreparedQueries {
    return new PreparedQueries(() => mainPoolOf(dataSource), flavour);
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const tracer = activeTracer();
    return tracer ? tracedStatement(tracer, sql, () => this.run<T>(sql, params)) : this.run<T>(sql, params);
  }

  private async run<T>(sql: string, params: unknown[]): Promise<T[]> {
    const pool = this.pool();
    // Known after the first statement: no extra await on the hot path.
    const named = this.knownUsesNames() ?? !(await this.flavour.isEmbedded());
    try {
      return (await pool.query(statement(named, sql, params))).rows as T[];
    } catch (error) {
      if (!named || !isStalePlan(error)) throw error;
      return (await pool.query(statement(false, sql, params))).rows as T[];
    }
  }

  /**
   * `work` inside one transaction on one connection, its statements prepared like `query`'s
   * (queries answer their rows). Committed when `work` resolves, rolled back when it throws.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const tracer = activeTracer();
    return tracer ? tracedTransaction(tracer, () => this.runTransaction(work)) : this.runTransaction(work);
  }

  private async runTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const pool = this.pool();
    const named = this.knownUsesNames() ?? !(await this.flavour.isEmbedded());
    const client = await pool.connect();
    let connectionBroken = false;
    // The pool listens for errors only on idle clients: a connection dropped while we hold it
    // must not become an unhandled 'error' event (the failing query rejects on its own).
    const onConnectionError = () => {
      connectionBroken = true;
    };
    client.on('error', onConnectionError);
    try {
      await client.query('BEGIN');
      const run = async <R>(sql: string, params: unknown[]): Promise<R[]> => (await client.query(statement(named, sql, params))).rows as R[];
      const result = await work(
        asTransaction({
          query: <R>(sql: string, params: unknown[] = []) => {
            const tracer = activeTracer();
            return tracer ? tracedStatement(tracer, sql, () => run<R>(sql, params)) : run<R>(sql, params);
          },
        }),
      );
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        connectionBroken = true;
      });
      throw error;
    } finally {
      client.off('error', onConnectionError);
      // A connection that failed or could not even roll back is not handed to the next request.
      client.release(connectionBroken || undefined);
    }
  }

  /** Named statements everywhere but on the embedded database; undefined until the flavour is known. */
  private knownUsesNames(): boolean | undefined {
    const embedded = this.flavour.knownEmbedded;
    return embedded === undefined ? undefined : !embedded;
  }
}
