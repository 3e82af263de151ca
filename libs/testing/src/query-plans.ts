import type { DataSource } from 'typeorm';

/** A statement as a repository sent it. */
export interface SentQuery {
  sql: string;
  params: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/**
 * The statements `work` sends through `executor` (a repository's Database), in order. Each still runs: the test sees
 * the real SQL of the real call, not a copy that can drift from it.
 */
export async function queriesSentBy(executor: { query: (sql: string, params?: unknown[]) => Promise<unknown> }, work: () => Promise<unknown>): Promise<SentQuery[]> {
  const sent: SentQuery[] = [];
  const original = executor.query;
  executor.query = (sql: string, params: unknown[] = []) => {
    sent.push({ sql, params });
    return original.call(executor, sql, params);
  };
  try {
    await work();
  } finally {
    executor.query = original;
  }
  return sent;
}

/**
 * The step of the statement's executed plan that produced the most rows (EXPLAIN ANALYZE in a transaction rolled
 * back, so a claim or a delete changes nothing), e.g. `{ rows: 3000, step: 'Seq Scan on webhook_deliveries' }`. A bounded statement (a
 * batch, a page) must stay near its bound however many rows the table holds; one that reads the whole table first
 * costs as much as the table.
 */
export async function largestPlanStep(dataSource: DataSource, { sql, params }: SentQuery): Promise<{ rows: number; step: string }> {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  try {
    const [row] = (await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params)) as Array<{ 'QUERY PLAN': unknown }>;
    const document = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
    let largest = { rows: -1, step: '' };
    const visit = (node: PlanNode): void => {
      const rows = node['Actual Rows'] * node['Actual Loops'];
      const on = node['Index Name'] ? ` using ${node['Index Name']}` : node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
      if (rows > largest.rows) largest = { rows, step: `${node['Node Type']}${on}` };
      for (const child of node.Plans ?? []) visit(child);
    };
    visit((document as Array<{ Plan: PlanNode }>)[0].Plan);
    return largest;
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}
