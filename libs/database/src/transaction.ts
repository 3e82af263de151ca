import type { DataSource, EntityManager } from 'typeorm';
import { executorOf, type SqlExecutor } from './sql-executor.js';

const MANAGER = Symbol('EntityManager');

/**
 * A TypeORM transaction as services hold it: they get it from a repository's `transaction()`
 * and hand it back to repository methods (it runs SQL like any SqlExecutor). Only the data
 * layer reaches the EntityManager inside (`managerOf`), so services never import typeorm.
 */
export interface Transaction extends SqlExecutor {
  readonly [MANAGER]: EntityManager;
}

export function transactionOf(manager: EntityManager): Transaction {
  return { ...executorOf(manager), [MANAGER]: manager };
}

export function managerOf(tx: Transaction): EntityManager {
  return tx[MANAGER];
}

/** `work` in one transaction: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(dataSource: DataSource, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return dataSource.transaction((manager) => work(transactionOf(manager)));
}
