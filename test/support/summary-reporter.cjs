// Prints one plain closing line, "tests: N passed, N failed, N skipped", that CI reads.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    console.log(`\ntests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped`);
  }
}
module.exports = SummaryReporter;
