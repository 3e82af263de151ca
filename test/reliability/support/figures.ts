import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { usingRealPostgres } from '#libs/testing';

export const FIGURES_DIR = join(process.cwd(), 'test-results', 'reliability');

/** Writes one suite's figures for scripts/reliability-summary.mjs (one file per suite and database kind). */
export function writeFigures(suite: string, figures: Record<string, unknown>): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  // `npm run test:redis` (rate limits in Redis) keeps its figures apart from the PostgreSQL-storage run's.
  const database = `${usingRealPostgres() ? 'postgres' : 'embedded'}${process.env.REDIS_URL ? '+redis' : ''}`;
  const payload = { suite, database, full: process.env.RELIABILITY_FULL === '1', writtenAt: new Date().toISOString(), figures };
  writeFileSync(join(FIGURES_DIR, `${suite}.${database}.json`), `${JSON.stringify(payload, null, 2)}\n`);
}
