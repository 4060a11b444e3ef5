// Mocha's spec output plus one plain closing line, "tests: N passed, N failed, N skipped",
// that CI reads as the run's verdict. Suites and tests skipped on a condition are named above it
// with the reason (test/support/skip.ts records them).
'use strict';
const Mocha = require('mocha');

const { EVENT_RUN_END } = Mocha.Runner.constants;
const SKIPPED = Symbol.for('creator-content-api.skipped-suites');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes = 0, failures = 0, pending = 0 } = this.stats;
      const skipped = globalThis[SKIPPED] ?? [];
      if (skipped.length > 0) process.stdout.write(`\nskipped, and why:\n${skipped.map((s) => `  ${s}\n`).join('')}`);
      process.stdout.write(`\ntests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
