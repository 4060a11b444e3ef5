// The browser the page suites drive: Debian's chromium, installed with apt-get when missing (root only), never downloaded elsewhere.
import type { Logger } from '../../../core/ground/logger.js';
import { aptInstall } from './apt.js';
import { findExecutable, isRoot, type Env } from './commands.js';
import { createProvisionError } from './errors.js';

const NAMES = ['chromium', 'chromium-browser'];

function findChromium(env: Env): string | undefined {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  for (const name of NAMES) {
    const found = findExecutable(name, env, ['/usr/bin']);
    if (found) return found;
  }
  return undefined;
}

/** Path of a Chromium binary: `CHROMIUM_PATH`, one on PATH, or Debian's package installed now. */
export async function ensureChromium({ env, log }: { env: Env; log: Logger }): Promise<string> {
  const found = findChromium(env);
  if (found) return found;
  if (!isRoot()) throw createProvisionError('chromium_missing');
  await aptInstall(['chromium'], log);
  const installed = findChromium(env);
  if (!installed) throw createProvisionError('chromium_missing');
  log.info({ binary: installed }, 'chromium installed');
  return installed;
}
