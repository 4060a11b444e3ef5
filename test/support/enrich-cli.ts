// `npm run enrich` as a child process for the enrichment suites: no language model unless the suite names one.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/child.js';

export interface EnrichRun {
  code: number | null;
  stderr: string;
}

/**
 * Runs `bin/enrich.ts` with `args`; `env` is added to the suite's environment. `asNobody` runs it as the `nobody` user
 * (root ignores file modes, so a read-only folder is only read-only to someone else).
 */
export function runEnrich(args: readonly string[], { env = {}, asNobody = false }: { env?: NodeJS.ProcessEnv; asNobody?: boolean } = {}): Promise<EnrichRun> {
  const node = [process.execPath, '--import', 'tsx', 'bin/enrich.ts', ...args];
  const cmd = asNobody ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node] : node;
  const child = spawn(cmd[0]!, cmd.slice(1), {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ENRICH_URL: '', ...(asNobody ? { HOME: tmpdir(), TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tsconfig.json') } : {}), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
