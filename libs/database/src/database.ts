import type { DataSource } from 'typeorm';
import { executorOf, type SqlExecutor } from './sql-executor.js';
import { DedicatedConnection } from './dedicated-connection.js';
import { inTransaction, type Transaction } from './transaction.js';

/**
 * The database as repositories see it: a SqlExecutor over the pool (TypeORM's, a runner per
 * statement) that also opens transactions. Repositories inject this (hot paths also
 * PreparedQueries); only libs/database holds the TypeORM DataSource behind it.
 */
export class Database implements SqlExecutor {
  private readonly executor: SqlExecutor;

  constructor(private readonly dataSource: DataSource) {
    this.executor = executorOf(dataSource.manager);
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.executor.query<T>(sql, params);
  }

  /** `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, work);
  }

  /** A connection of its own outside the pool (a LISTEN, work tied to one session); the caller connects and ends it. */
  dedicatedConnection(applicationName: string): DedicatedConnection {
    const url = (this.dataSource.options as { url?: string }).url;
    if (!url) throw new Error('A dedicated connection needs the database URL');
    return new DedicatedConnection(url, applicationName);
  }
}
