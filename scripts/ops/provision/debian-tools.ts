// Commands that Debian's packages bring (ffmpeg and espeak-ng for the transcription client, the tests and the demo; mvn
// for OpenSearch's and the model's artifacts): found on PATH, or their packages installed with apt-get when root on
// Debian or Ubuntu (planAptInstall decides), else an error that names what to install.
import type { Logger } from '../../../core/ground/logger.js';
import { aptInstall, planAptInstall, readOsRelease } from './apt.js';
import { findExecutable, isRoot, type Env } from './commands.js';
import { createProvisionError } from './errors.js';

/** Each command and the Debian package that brings it. */
const PACKAGES = { ffmpeg: 'ffmpeg', ffprobe: 'ffmpeg', 'espeak-ng': 'espeak-ng', mvn: 'maven' } as const;

export type DebianTool = keyof typeof PACKAGES;

/**
 * Makes sure each tool is on PATH, installing the missing ones' packages when root on Debian or Ubuntu; returns their
 * paths. `refused` makes the error when they cannot be installed here (default: the tools and the fix, `tool_missing`).
 */
export async function ensureTools<T extends DebianTool>({
  env,
  log,
  tools,
  refused = (missing, fix) => createProvisionError('tool_missing', missing.join(', '), fix),
}: {
  env: Env;
  log: Logger;
  tools: T[];
  refused?: (missing: T[], fix: string) => Error;
}): Promise<Record<T, string>> {
  const find = (tool: T) => findExecutable(tool, env, ['/usr/bin', '/usr/local/bin']);
  const missing = tools.filter((t) => !find(t));
  if (missing.length) {
    const plan = planAptInstall([...new Set(missing.map((t) => PACKAGES[t]))], { root: isRoot(), osRelease: readOsRelease() });
    if (plan.action === 'refuse') throw refused(missing, plan.fix);
    await aptInstall(plan.packages, log);
  }
  const paths = {} as Record<T, string>;
  for (const tool of tools) {
    const found = find(tool);
    if (!found) throw refused([tool], `apt-get installed ${PACKAGES[tool]} but ${tool} is not on PATH: put /usr/bin on PATH`);
    paths[tool] = found;
  }
  if (missing.length) log.info({ tools: missing }, 'tools installed from Debian packages');
  return paths;
}
