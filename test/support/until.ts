// The one wait of the test suites: a test waits for an event it can observe (a file written, a job finished, a
// request held), never for a guessed time.

export interface UntilOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Look again after this long (default 20 ms; suites that read files or the store ask for less often). */
  everyMs?: number;
}

/** Resolves once `check` holds, looking every `everyMs`; rejects naming `what` when `timeoutMs` passes first. */
export async function until(what: string, check: () => boolean | Promise<boolean>, { timeoutMs = 60_000, everyMs = 20 }: UntilOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Whether `check` came to hold within `timeoutMs` (for a test that asserts on it with a message of its own). */
export const holdsWithin = (check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<boolean> =>
  until('', check, { timeoutMs, everyMs }).then(
    () => true,
    () => false,
  );
