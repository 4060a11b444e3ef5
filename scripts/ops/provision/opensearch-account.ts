// The system user OpenSearch runs as when `up` runs as root (OpenSearch refuses to run as root).
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { INSTALL_DIR, OPENSEARCH_VERSION } from './opensearch-install.js';
import { exec, findExecutable, isRoot, lastLine } from './commands.js';
import { createProvisionError } from './errors.js';

/** OpenSearch refuses to run as root, so root starts it as this system user. */
const SERVICE_USER = 'opensearch';

/** The system user a root `up` runs the nodes as. */
export interface Account {
  user: string;
  uid: number;
  gid: number;
}

export async function serviceAccount(log: Logger): Promise<Account | undefined> {
  if (!isRoot()) return undefined;
  let uid = await exec('id', ['-u', SERVICE_USER]);
  if (uid.code !== 0) {
    log.info({ user: SERVICE_USER }, 'creating system user for OpenSearch (it refuses to run as root)');
    const created = await exec('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', SERVICE_USER]);
    if (created.code !== 0) throw createProvisionError('install_failed', `useradd ${SERVICE_USER}`, lastLine(created.stderr));
    uid = await exec('id', ['-u', SERVICE_USER]);
  }
  const gid = await exec('id', ['-g', SERVICE_USER]);
  return { user: SERVICE_USER, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The command prefix that drops from root to the service user without a parent process in between. */
export function asUser(account: Account | undefined): string[] {
  if (!account) return [];
  if (findExecutable('setpriv')) {
    return ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--'];
  }
  return ['runuser', '-u', account.user, '--'];
}

function runAs(account: Account, args: string[]) {
  const [cmd, ...prefix] = asUser(account);
  return exec(cmd!, [...prefix, ...args]);
}

/** The service user must read the install and write the node folder; a closed parent folder breaks both. */
export async function checkAccess(account: Account, nodeDir: string): Promise<void> {
  const jar = path.join(INSTALL_DIR, 'lib', `opensearch-${OPENSEARCH_VERSION}.jar`);
  if ((await runAs(account, ['test', '-r', jar, '-a', '-w', path.join(nodeDir, 'data')])).code === 0) return;
  const chain: string[] = [];
  for (let dir = INSTALL_DIR; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    if ((await runAs(account, ['test', '-x', dir])).code !== 0) throw createProvisionError('not_readable', account.user, dir);
  }
  throw createProvisionError('not_readable', account.user, nodeDir);
}
