// The service processes we started: alive and ours, or stopped (SIGTERM, then SIGKILL).
import fs from 'node:fs';
import type { Logger } from '../../../core/ground/logger.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user (the OpenSearch service user, say).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `p` with its links resolved, or `p` itself when it does not exist. */
function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Alive and, where /proc tells, running a command line that contains `needle` (our install
 * path, say): a pid recorded before a reboot may belong to an unrelated process by now.
 */

export function isOurProcess(pid: number, needle: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    // A checkout whose .cache is a link to another's (a git worktree beside the first) names the same install.
    return cmdline.includes(needle) || cmdline.includes(realPathOr(needle));
  } catch {
    return !fs.existsSync('/proc/self'); // no procfs: trust the pid
  }
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // already gone
  }
}

/** SIGTERM (to the whole process group when `group`), wait up to `timeoutMs`, then SIGKILL. */
export async function stopProcess(
  pid: number,
  { group = false, timeoutMs = 30_000, name, log }: { group?: boolean; timeoutMs?: number; name: string; log: Logger },
): Promise<void> {
  if (!isAlive(pid)) return;
  log.info({ service: name, pid }, `stopping ${name}`);
  signal(pid, 'SIGTERM', group);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await sleep(200);
  }
  log.warn({ service: name, pid, timeoutMs }, `${name} ignored SIGTERM, sending SIGKILL`);
  signal(pid, 'SIGKILL', group);
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
}
