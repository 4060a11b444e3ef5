// Every conditional skip says why: the reason is printed where it happens and listed again under "skipped" in the run's
// closing summary (summary-reporter.cjs), so nothing drops out of a run without a line.
//
//   before(function () {
//     if (process.platform !== 'linux') skipBecause(this, 'nice levels are Linux-only');
//     if (!process.env.TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set');
//   });

/** Reasons of the suites and tests skipped in this process, read by the closing summary (see summary-reporter.cjs). */
const SKIPPED = Symbol.for('creator-content-api.skipped-suites');
type Registry = { [SKIPPED]?: string[] };

/**
 * Set by `npm test` (scripts/dev/test.ts), which provisions OpenSearch, Redis, the transcription service and the models
 * before mocha starts: a test that finds one of them missing then fails instead of skipping.
 */
export const PROVISIONED_ENV = 'REQUIRE_PROVISIONED';

/** What is skipped: the suite when called in a hook, else the test itself. */
function skippedTitle(ctx: Mocha.Context): string {
  const runnable = ctx.test;
  if (!runnable) return 'suite';
  return (runnable as { type?: string }).type === 'hook' ? (runnable.parent?.fullTitle() ?? 'suite') : runnable.fullTitle();
}

/** Skips the current test (or, in a hook, the suite) and records `reason` for the summary. */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  process.stdout.write(`    skipped: ${reason}\n`);
  ((globalThis as Registry)[SKIPPED] ??= []).push(`${skippedTitle(ctx)}: ${reason}`);
  ctx.skip();
}

/**
 * A service or model the test needs is not there. Under `npm test`, which provisions it, that is a failure (an Error
 * naming `reason`); run by hand (`npx mocha …`) it is a skip with the reason.
 */
export function skipUnprovisioned(ctx: Mocha.Context, reason: string): never {
  if (process.env[PROVISIONED_ENV] === '1') throw new Error(`${reason}, yet npm test provisions it: the test command or its provisioning is broken`);
  skipBecause(ctx, `${reason} (npm test provisions it)`);
}
