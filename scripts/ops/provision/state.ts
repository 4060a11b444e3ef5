// What `up` records in RUN_DIR: one JSON state file per service, written atomically, and the lock that keeps two services commands apart.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { createProvisionError } from './errors.js';
import { isLockHeld, withFileLock } from './file-lock.js';
import { RUN_DIR } from './paths.js';

function statePath(name: string): string {
  return path.join(RUN_DIR, `${name}.json`);
}

export function readState<T>(name: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(name), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function writeState(name: string, value: unknown): void {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const tmp = `${statePath(name)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, statePath(name));
}

export function clearState(name: string): void {
  fs.rmSync(statePath(name), { force: true });
}

/**
 * Runs `fn` while holding `.cache/run/services-lock`, so two `up`/`down` calls never provision
 * or stop the same node at once. A lock left by a dead process is taken over once stale (10 s).
 */
export async function withLock<T>(log: Logger, fn: () => Promise<T>, timeoutMs = 10 * 60_000): Promise<T> {
  const lockDir = path.join(RUN_DIR, 'services-lock');
  try {
    return await withFileLock(lockDir, fn, {
      timeoutMs,
      onWait: () => log.info({ lock: lockDir }, 'waiting for another services command to finish'),
      onCompromised: (err) => log.warn({ err: err.message }, 'the services lock was lost; carrying on'),
    });
  } catch (err) {
    throw isLockHeld(err) ? createProvisionError('busy', lockDir) : err;
  }
}
