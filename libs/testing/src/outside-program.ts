import { accessSync, constants, statSync } from 'node:fs';

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
 * Whether a suite's outside program is installed, for programs no npm package provides (nginx).
 * Missing, the suite skips and says so in one line on stderr; under CI=true, where every suite
 * must run, loading the suite fails instead. Anything npm can provide (a browser, PostgreSQL)
 * comes from npm and never skips.
 */
export function outsideProgramInstalled(suite: string, path: string, howToInstall: string): boolean {
  if (isExecutableFile(path)) return true;
  const message = `[${suite}] ${path} not found: ${howToInstall}`;
  if (process.env.CI === 'true') throw new Error(`${message}. CI=true runs every suite.`);
  process.stderr.write(`${message}; skipping.\n`);
  return false;
}
