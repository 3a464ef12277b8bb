import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Closes a run with one plain line, `Tests: N passed, N failed, N skipped`, that any reader of the log
 * (CI included) can count without knowing Vitest's own summary. A file that failed to load, or a
 * failure outside any test, counts as one failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of modules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      failed += failedHere > 0 ? failedHere : module.state() === 'failed' ? 1 : 0;
    }
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
