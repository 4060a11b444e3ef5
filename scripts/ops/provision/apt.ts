// Installing a Debian package when provisioning needs one: root only, waiting for another apt run to finish.
import type { Logger } from '../../../src/logger.js';
import { exec, isRoot, lastLine } from './commands.js';
import { createProvisionError } from './errors.js';

/**
 * `apt-get update && apt-get install -y <packages>`. Waits up to ten minutes for dpkg's lock, so two
 * provisioners (Redis and Chromium, say) started at once take turns instead of one failing.
 */
export async function aptInstall(packages: string[], log: Logger): Promise<void> {
  if (!isRoot()) throw createProvisionError('install_failed', `apt-get install ${packages.join(' ')}`, 'not root: install the package yourself');
  log.info({ packages }, 'installing with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  for (const args of [
    [...lock, 'update'],
    [...lock, 'install', '-y', '--no-install-recommends', ...packages],
  ]) {
    const result = await exec('apt-get', args, { env });
    if (result.code !== 0) throw createProvisionError('install_failed', `apt-get ${args[2]}`, lastLine(result.stderr || result.stdout));
  }
}
