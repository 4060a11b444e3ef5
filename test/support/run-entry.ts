// Runs a project entry point (`bin/…`) as a child process to its end, as an operator would: its exit code and output.
import { spawn } from 'node:child_process';
import { REPO_ROOT } from './indexer-env.js';

export interface EntryRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `entry` with `args` and `env` over the test's environment (a variable set to undefined is unset). */
export function runEntry(entry: string, args: readonly string[], env: Record<string, string | undefined>): Promise<EntryRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...out }));
  });
}
