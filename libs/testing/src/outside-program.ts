import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A program file that may be run (a path bound over with /dev/null, as when hiding a program for a test run, is not). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where a suite skipped for a missing outside program leaves one file naming it; the summary
 * reporter (test/support/summary-reporter.cjs) empties it when a run starts and lists it at the end.
 */
const OUTSIDE_PROGRAM_SKIPS_DIR = join(process.cwd(), 'test-results', 'outside-program-skips');

/**
 * Whether a suite's outside program is installed, for programs no npm package provides (nginx,
 * redis-server). Missing, the suite skips and says so in one line on stderr, and the run's closing
 * summary names it; under CI=true, where every suite must run, loading the suite fails instead
 * (and the summary names it too). Anything npm can provide (a browser, PostgreSQL) comes from
 * npm and never skips.
 */
export function outsideProgramInstalled(suite: string, path: string, howToInstall: string): boolean {
  if (isExecutableFile(path)) return true;
  const message = `[${suite}] ${path} not found: ${howToInstall}`;
  try {
    mkdirSync(OUTSIDE_PROGRAM_SKIPS_DIR, { recursive: true });
    writeFileSync(join(OUTSIDE_PROGRAM_SKIPS_DIR, `${suite.replace(/[^A-Za-z0-9_.-]/g, '_')}.txt`), `${message}\n`);
  } catch {
    // The marker only feeds the closing summary; the line on stderr (or the failure) still says it.
  }
  if (process.env.CI === 'true') throw new Error(`${message}. CI=true runs every suite.`);
  process.stderr.write(`${message}; skipping.\n`);
  return false;
}
