import type { DataSource, EntityManager } from 'typeorm';
import { activeTracer } from '#libs/tracing';
import { executorOf, type SqlExecutor } from './sql-executor.js';
import { tracedTransaction } from './statement-spans.js';

const TRANSACTION = Symbol('Transaction');

/**
 * The one transaction type. Services get it from a repository's `transaction()` and hand it
 * back to repository methods, always as their first parameter (`Transaction | undefined` where
 * the method also runs alone). It runs SQL like any SqlExecutor; only the data layer reaches
 * typeorm, so services never import it.
 *
 * Two kinds exist behind the same type: a TypeORM transaction (`inTransaction`) and a
 * PreparedQueries transaction on one pg connection (hot paths); both run statements on `tx.query`.
 */
export interface Transaction extends SqlExecutor {
  readonly [TRANSACTION]: true;
}

/** The executor of an open transaction as a Transaction. */
export function asTransaction(executor: SqlExecutor): Transaction {
  return { query: executor.query.bind(executor), [TRANSACTION]: true };
}

function transactionOf(manager: EntityManager): Transaction {
  return asTransaction(executorOf(manager));
}

/** `work` in one transaction: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(dataSource: DataSource, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  const run = () => dataSource.transaction((manager) => work(transactionOf(manager)));
  return tracer ? tracedTransaction(tracer, run) : run();
}
