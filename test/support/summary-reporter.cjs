// Prints one plain closing line, "tests: N passed, N failed, N skipped", that CI reads, and before
// it one line per suite skipped because an outside program (nginx, redis-server) is missing: the
// gate (libs/testing/src/outside-program.ts) leaves a file per such suite in
// test-results/outside-program-skips/. Under CI=true such a suite fails to load, and the run fails.
const { mkdirSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const SKIPS_DIR = join(process.cwd(), 'test-results', 'outside-program-skips');

class SummaryReporter {
  onRunStart() {
    rmSync(SKIPS_DIR, { recursive: true, force: true });
    mkdirSync(SKIPS_DIR, { recursive: true });
  }

  onRunComplete(_contexts, results) {
    let skips;
    try {
      skips = readdirSync(SKIPS_DIR)
        .sort()
        .map((file) => readFileSync(join(SKIPS_DIR, file), 'utf8').trim());
    } catch {
      skips = [];
    }
    const verdict = process.env.CI === 'true' ? 'failed (CI=true runs every suite)' : 'skipped';
    for (const line of skips) console.log(`outside program missing, suite ${verdict}: ${line}`);
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    console.log(`\ntests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped`);
  }
}
module.exports = SummaryReporter;
