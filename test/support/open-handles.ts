// Mocha's global teardown (loaded by .mocharc.json): a run whose tests are done but whose process stays up, held by a
// handle a suite leaked (a Redis connection, a BullMQ worker, a server, a child process), fails with the handles named
// instead of hanging until CI's limit. Mocha runs without `--exit` on purpose: `--exit` would hide the leak.

/** How long the process may take to wind down by itself once the last test is done. */
export const WIND_DOWN_MS = 120_000;

export function mochaGlobalTeardown(): void {
  // Unref'd: it fires only when something else keeps the process alive past WIND_DOWN_MS.
  setTimeout(() => {
    const handles = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(
      `\nopen handles: the tests are done, but after ${WIND_DOWN_MS / 1000} s the process is still held by ${handles.join(', ') || 'an unnamed handle'}: a suite leaked it\n`,
    );
    // Mocha sets the exit code from the failures in an 'exit' listener; this one runs after it.
    process.on('exit', () => (process.exitCode = 1));
    process.exit(1);
  }, WIND_DOWN_MS).unref();
}
