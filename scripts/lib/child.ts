// What several scripts do with child processes: run a repo script under tsx, serve the API as `npm start` runs it, find a free port, wait for a condition.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The checkout this module belongs to. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  process: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
  alive(): boolean;
}

/** Runs a repo script with tsx as a child process (`env` is its whole environment); stderr is collected. */
export function runScript(file: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, exited, stderr: () => text, alive: () => child.exitCode === null && child.signalCode === null };
}

/** Polls `test` every 100 ms until it is true; false when `timeoutMs` passes first. */
export async function waitFor(test: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await test()) return true;
    await sleep(100);
  }
  return false;
}

export interface Served {
  baseUrl: string;
  stop(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

/** A free loopback port (the OS picks it; closed again before it is returned). */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * `src/server.ts` (of this checkout, or of the checkout at `root`) in a child process on a
 * free loopback port, as `npm start` runs it; resolves once /healthz answers (the model is
 * loaded by then). `script`: another entry point run the same way (bench:search's relay).
 */
export async function serveInChildProcess(env: Record<string, string>, { root, script }: { root?: string; script?: string } = {}): Promise<Served> {
  const port = await freePort();
  const entry = script ?? (root ? resolvePath(root, 'src/server.ts') : SERVER_ENTRY);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root ? resolvePath(root) : undefined,
    env: { ...process.env, LOG_LEVEL: 'warn', METRICS_PORT: '', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  const deadline = Date.now() + 180_000;
  while (
    !(await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null) throw new Error(`the API process exited (${child.exitCode}): ${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API process did not answer /healthz within 180 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { baseUrl, stop };
}
