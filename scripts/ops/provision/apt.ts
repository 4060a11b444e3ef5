// Installing a Debian package when provisioning needs one: root on Debian or Ubuntu only, waiting for another apt run to finish.
import fs from 'node:fs';
import type { Logger } from '../../../core/ground/logger.js';
import { exec, isRoot, lastLine } from './commands.js';
import { createProvisionError } from './errors.js';

/** A package, or alternatives of which the first the archive carries is installed (one release has 17, a later one 21 only). */
export type AptPackage = string | readonly string[];

/** What to do about a missing tool: install its packages, or a fix for the user to apply (the message's second half). */
export type AptPlan = { action: 'install'; packages: AptPackage[] } | { action: 'refuse'; fix: string };

/** `/etc/os-release`, or '' where there is none. */
export function readOsRelease(file = '/etc/os-release'): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Whether an os-release text names Debian or Ubuntu, or a system derived from either (`ID_LIKE`): where apt-get and Debian's package names apply. */
export function isDebianLike(osRelease: string): boolean {
  const ids = [...osRelease.matchAll(/^(?:ID|ID_LIKE)=("?)([^"\n]*)\1$/gm)].flatMap((m) => m[2]!.toLowerCase().split(/\s+/));
  return ids.some((id) => id === 'debian' || id === 'ubuntu');
}

/** `a`, or `a or b` for alternatives, for messages. */
function packageName(pkg: AptPackage): string {
  return typeof pkg === 'string' ? pkg : pkg.join(' or ');
}

/**
 * The decision for a missing tool that Debian's `packages` bring: install them when root on Debian or Ubuntu, otherwise
 * the fix that names them. Pure, so the decision is tested without touching the machine.
 */
export function planAptInstall(packages: AptPackage[], { root, osRelease }: { root: boolean; osRelease: string }): AptPlan {
  const names = packages.map(packageName).join(' and ');
  if (!isDebianLike(osRelease)) return { action: 'refuse', fix: `install ${names} or your system's equivalent (installed for you on Debian and Ubuntu only)` };
  if (!root) {
    const command = `apt-get install ${packages.map((p) => (typeof p === 'string' ? p : p[0])).join(' ')}`;
    return { action: 'refuse', fix: `install ${names} as root (${command}), or run this once as root to have it installed` };
  }
  return { action: 'install', packages };
}

/** Whether `apt-cache policy <package>` shows a version to install. */
export function hasCandidate(policy: string): boolean {
  const candidate = /^\s*Candidate:\s*(\S+)/m.exec(policy)?.[1];
  return candidate !== undefined && candidate !== '(none)';
}

/** The first of `alternatives` the package lists (just updated) carry; the first one when none does, so apt-get names it in its error. */
async function firstAvailable(alternatives: readonly string[]): Promise<string> {
  for (const name of alternatives) {
    const policy = await exec('apt-cache', ['policy', name]);
    if (policy.code === 0 && hasCandidate(policy.stdout)) return name;
  }
  return alternatives[0]!;
}

/**
 * `apt-get update && apt-get install -y <packages>`. Waits up to ten minutes for dpkg's lock, so two
 * provisioners (Redis and Chromium, say) started at once take turns instead of one failing.
 */
export async function aptInstall(packages: AptPackage[], log: Logger): Promise<void> {
  if (!isRoot()) throw createProvisionError('install_failed', `apt-get install ${packages.map(packageName).join(' ')}`, 'not root: install the package yourself');
  log.info({ packages }, 'installing with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  const update = await exec('apt-get', [...lock, 'update'], { env });
  if (update.code !== 0) throw createProvisionError('install_failed', 'apt-get update', lastLine(update.stderr || update.stdout));
  const names: string[] = [];
  for (const pkg of packages) names.push(typeof pkg === 'string' ? pkg : await firstAvailable(pkg));
  const install = await exec('apt-get', [...lock, 'install', '-y', '--no-install-recommends', ...names], { env });
  if (install.code !== 0) throw createProvisionError('install_failed', `apt-get install ${names.join(' ')}`, lastLine(install.stderr || install.stdout));
}
