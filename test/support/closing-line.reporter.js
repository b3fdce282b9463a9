// Ends every run with one plain line, "N passed, N failed", that CI systems can read whatever
// test runner they know; jest's own summary ("Tests: N passed, N total") is not such a line.
// Written at exit, because jest's summary reporter always prints after custom reporters.
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.once('exit', () => process.stderr.write(`\n${line}\n`));
  }
}

module.exports = ClosingLineReporter;
