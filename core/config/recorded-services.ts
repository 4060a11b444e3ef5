// The local services `npm run services -- up` started, as it records them under `.cache/run/`: what a command line or
// the worker reaches when the environment names no service of its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../ground/package-root.js';
import type { Env } from './values.js';

/** The variables a recorded service stands in for, each with the state file(s) `up` writes for it. */
const RECORDED = [
  { name: 'OPENSEARCH_URL', files: ['opensearch', 'opensearch-cluster'] },
  { name: 'REDIS_URL', files: ['redis'] },
  { name: 'TRANSCRIBE_URL', files: ['transcriber'] },
] as const;

export type RecordedName = (typeof RECORDED)[number]['name'];

/** The command that starts the local services (and prints their URLs). */
export const SERVICES_UP = 'npm run services -- up';

interface State {
  pid?: unknown;
  url?: unknown;
  nodes?: { pid?: unknown; url?: unknown }[];
}

function alive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, run by another user (the OpenSearch service user).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The URL a state file records, when its process (or, for a cluster, any node's) still runs. */
function recordedUrl(runDir: string, file: string): string | undefined {
  let state: State;
  try {
    state = JSON.parse(readFileSync(join(runDir, `${file}.json`), 'utf8')) as State;
  } catch {
    return undefined;
  }
  if (Array.isArray(state.nodes)) {
    const nodes = state.nodes.filter((n) => typeof n.url === 'string');
    return nodes.some((n) => alive(n.pid)) ? nodes.map((n) => n.url as string).join(',') : undefined;
  }
  return typeof state.url === 'string' && alive(state.pid) ? state.url : undefined;
}

/**
 * `env` with each service variable it leaves out (OPENSEARCH_URL, REDIS_URL, TRANSCRIBE_URL) taken from what
 * `npm run services -- up` recorded, when that service still runs. A variable present in `env`, even empty, is the
 * operator's choice and stays (`TRANSCRIBE_URL=` means no transcription service). `found` says which were filled.
 */
export function withRecordedServices(env: Env, { runDir = packageFile('.cache', 'run') }: { runDir?: string } = {}): { env: Env; found: Partial<Record<RecordedName, string>> } {
  const found: Partial<Record<RecordedName, string>> = {};
  for (const { name, files } of RECORDED) {
    if (env[name] !== undefined) continue;
    const url = files.map((file) => recordedUrl(runDir, file)).find((u) => u !== undefined);
    if (url !== undefined) found[name] = url;
  }
  return { env: { ...env, ...found }, found };
}
