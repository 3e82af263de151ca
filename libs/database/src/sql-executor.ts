import type { EntityManager } from 'typeorm';
import { activeTracer } from '#libs/tracing';
import { tracedStatement } from './statement-spans.js';

/**
 * What repositories run SQL on: PreparedQueries (or its transaction handle), or a TypeORM
 * EntityManager through `executorOf`. Every statement answers its rows: for UPDATE/DELETE
 * the RETURNING rows, never TypeORM's `[rows, count]`.
 */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/**
 * A TypeORM EntityManager (a transaction's, or `dataSource.manager`) as a SqlExecutor. Runs
 * the statement as `EntityManager.query` does (on the transaction's query runner, else on a
 * runner of its own), asking for TypeORM's structured result so the rows come in one shape.
 */
export function executorOf(manager: EntityManager): SqlExecutor {
  async function run<T>(sql: string, params: unknown[]): Promise<T[]> {
    const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
    try {
      return (await runner.query(sql, params, true)).records as T[];
    } finally {
      if (!manager.queryRunner) await runner.release();
    }
  }
  return {
    query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      const tracer = activeTracer();
      return tracer ? tracedStatement(tracer, sql, () => run<T>(sql, params)) : run<T>(sql, params);
    },
  };
}
