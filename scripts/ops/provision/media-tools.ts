// ffmpeg (the transcription client probes and cuts audio with it) and espeak-ng (the tests and the demo speak with it): Debian's packages, installed with apt-get when missing (root only).
import type { Logger } from '../../../src/ground/logger.js';
import { aptInstall } from './apt.js';
import { findExecutable, isRoot, type Env } from './commands.js';
import { createProvisionError } from './errors.js';

/** Each command and the Debian package that brings it. */
const PACKAGES = { ffmpeg: 'ffmpeg', ffprobe: 'ffmpeg', 'espeak-ng': 'espeak-ng' } as const;

export type MediaTool = keyof typeof PACKAGES;

/** Makes sure each tool is on PATH, installing the missing ones' packages when root; returns their paths. */
export async function ensureMediaTools({ env, log, tools }: { env: Env; log: Logger; tools: MediaTool[] }): Promise<Record<string, string>> {
  const find = (tool: MediaTool) => findExecutable(tool, env, ['/usr/bin', '/usr/local/bin']);
  const missing = tools.filter((t) => !find(t));
  if (missing.length) {
    const packages = [...new Set(missing.map((t) => PACKAGES[t]))];
    if (!isRoot()) throw createProvisionError('tool_missing', missing.join(', '), `install Debian's ${packages.join(' and ')} (apt-get install ${packages.join(' ')})`);
    await aptInstall(packages, log);
  }
  const paths: Record<string, string> = {};
  for (const tool of tools) {
    const found = find(tool);
    if (!found) throw createProvisionError('tool_missing', tool, `install Debian's ${PACKAGES[tool]} (apt-get install ${PACKAGES[tool]})`);
    paths[tool] = found;
  }
  if (missing.length) log.info({ tools: missing }, 'media tools installed');
  return paths;
}
