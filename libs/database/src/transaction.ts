import type { DataSource, EntityManager } from 'typeorm';
import { activeTracer } from '#libs/tracing';
import { executorOf, type SqlExecutor } from './sql-executor.js';
import { tracedTransaction } from './statement-spans.js';

const TRANSACTION = Symbol('Transaction');

/**
 * The one transaction type. Services get it from a repository's `transaction()` and hand it
 * back to repository methods, always as their first parameter (`Transaction | undefined` where
 * the method also runs alone). It runs SQL like any SqlExecutor; only the data layer reaches
 * the TypeORM EntityManager inside (`managerOf`), so services never import typeorm.
 *
 * Two kinds exist behind the same type: a TypeORM transaction (`inTransaction`) and a
 * PreparedQueries transaction on one pg connection (hot paths), which has no EntityManager.
 */
export interface Transaction extends SqlExecutor {
  readonly [TRANSACTION]: { manager?: EntityManager };
}

/** The executor of an open transaction as a Transaction (`manager` when TypeORM opened it). */
export function asTransaction(executor: SqlExecutor, manager?: EntityManager): Transaction {
  return { query: executor.query.bind(executor), [TRANSACTION]: { manager } };
}

export function transactionOf(manager: EntityManager): Transaction {
  return asTransaction(executorOf(manager), manager);
}

/** The transaction's own EntityManager; only TypeORM-opened transactions have one. */
export function managerOf(tx: Transaction): EntityManager {
  const manager = tx[TRANSACTION].manager;
  if (!manager) throw new Error('This transaction runs on prepared statements (PreparedQueries): use tx.query, not an EntityManager');
  return manager;
}

/** `work` in one transaction: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(dataSource: DataSource, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  const run = () => dataSource.transaction((manager) => work(transactionOf(manager)));
  return tracer ? tracedTransaction(tracer, run) : run();
}
