// One process at a time across the machine: an exclusive lock on a path, held while a function runs (proper-lockfile).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pRetry from 'p-retry';
import lockfile from 'proper-lockfile';

export interface FileLockOptions {
  /** Give up waiting for another holder after this long (then the `ELOCKED` error is thrown). Default: wait forever. */
  timeoutMs?: number;
  /**
   * A lock its holder has not refreshed for this long is taken over: the holder died (even
   * SIGKILLed) or hung. The holder refreshes it every half of this. Default 10 s.
   */
  staleMs?: number;
  /** Called once, when the lock is found held and waiting starts. */
  onWait?: () => void;
  /** Called if the lock is lost while held (refresh failed, or another process took it as stale). */
  onCompromised?: (err: Error) => void;
}

/** Whether an error is proper-lockfile's "held by someone else". */
export const isLockHeld = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';

/**
 * Runs `fn` holding the lock `lockDir` (a folder, made atomically by mkdir), polling every
 * 500 ms while another process holds it. Released afterwards, and on exit or a signal by
 * proper-lockfile itself.
 */
export async function withFileLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  { timeoutMs = Number.POSITIVE_INFINITY, staleMs = 10_000, onWait, onCompromised = () => {} }: FileLockOptions = {},
): Promise<T> {
  await mkdir(path.dirname(lockDir), { recursive: true });
  let waiting = false;
  const release = await pRetry(() => lockfile.lock(lockDir, { lockfilePath: lockDir, realpath: false, stale: staleMs, onCompromised }), {
    retries: Number.POSITIVE_INFINITY,
    factor: 1,
    minTimeout: 500,
    maxRetryTime: timeoutMs,
    shouldRetry: ({ error }) => {
      if (!isLockHeld(error)) return false;
      if (!waiting) onWait?.();
      waiting = true;
      return true;
    },
  });
  try {
    return await fn();
  } finally {
    // A compromised lock is no longer ours to release.
    await release().catch(() => undefined);
  }
}
