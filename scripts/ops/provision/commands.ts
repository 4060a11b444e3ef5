// Running the commands provisioning needs: finding them on PATH, running them to completion, reading their logs.
import fs from 'node:fs';
import path from 'node:path';
import { x } from 'tinyexec';

/** An environment to read settings from, or to hand to a command. */
export type Env = Record<string, string | undefined>;

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Full path of an executable found on PATH (or in `extraDirs`), if any. */
export function findExecutable(name: string, env: Env = process.env, extraDirs: string[] = []): string | undefined {
  const dirs = [...(env.PATH ?? '').split(path.delimiter), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** SIGKILL the command after this long; its output so far is kept. */
  timeoutMs?: number;
  /** Also copy its stdout and stderr to ours as they come. */
  echo?: boolean;
}

/**
 * Runs a command to completion through tinyexec, capturing its output. Never rejects: a
 * command that cannot start gives code 127 (the shell's), one killed by a signal 128.
 */
export async function exec(cmd: string, args: string[], { cwd, env, timeoutMs, echo = false }: ExecOptions = {}): Promise<ExecResult> {
  const child = x(cmd, args, { nodeOptions: { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }, nodePath: false });
  if (echo) for (const stream of [child.process?.stdout, child.process?.stderr]) stream?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const { exitCode, stdout, stderr } = await child;
    return { code: exitCode ?? 128, stdout, stderr };
  } catch (err) {
    return { code: 127, stdout: '', stderr: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Last `lines` lines of a text file, or '' when it does not exist. */
export function tailFile(file: string, lines = 40): string {
  try {
    const size = fs.statSync(file).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, buffer, 0, length, size - length);
    } finally {
      fs.closeSync(fd);
    }
    return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Last line of a command's output, for one-line error messages. */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'no output';
}
