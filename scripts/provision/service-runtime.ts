// What the OpenSearch and Redis provisioners share: error catalogue, commands, ports, pids, state files, lock.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { x } from 'tinyexec';
import type { Logger } from '../../src/logger.js';
import { isLockHeld, withFileLock } from './file-lock.js';
import { RUN_DIR } from './paths.js';

export type Env = Record<string, string | undefined>;

/** Expected failures, keyed by stable codes. Each message says what is wrong and what to do. */
const ERRORS = {
  BAD_PORT: (name: string, value: string) => `${name}=${value} is not a port number: set it to 1-65535 or unset it`,
  PORT_IN_USE: (name: string, port: number) =>
    `${name}=${port} is already in use on 127.0.0.1: stop what listens there or unset ${name} to let up pick a free port`,
  PORT_MISMATCH: (service: string, running: number, name: string, wanted: string) =>
    `${service} from an earlier up runs on port ${running}, not ${name}=${wanted}: run down first, or unset ${name}`,
  NO_FREE_PORT: (what: string) => `no free loopback port for ${what}: free some ports and run up again`,
  TOOL_MISSING: (tool: string, fix: string) => `${tool} is not installed: ${fix}`,
  JAVA_NOT_FOUND: (seen: string) =>
    `no Java 17-23 found${seen}: install one (e.g. apt-get install openjdk-17-jdk-headless) or set OPENSEARCH_JAVA_HOME to a JDK 17 or 21`,
  DOWNLOAD_FAILED: (artifact: string, detail: string) =>
    `mvn could not fetch ${artifact} (${detail}): check that mvn reaches Maven Central, then run up again`,
  INSTALL_FAILED: (what: string, detail: string) => `${what} failed (${detail}): fix that, then run up again`,
  NOT_READABLE: (user: string, dir: string) =>
    `user ${user} cannot reach ${dir}: make every parent folder traversable (chmod o+x) or move the project, then run up again`,
  OPENSEARCH_EXITED: (log: string) => `OpenSearch exited while starting (log above, full log in ${log}): fix the cause and run up again`,
  OPENSEARCH_UNHEALTHY: (seconds: number, log: string) =>
    `OpenSearch did not turn yellow within ${seconds}s (log above, full log in ${log}): run down, then up again`,
  TOPOLOGY_MISMATCH: (running: string, wanted: string) =>
    `OpenSearch from an earlier up runs as ${running}, not ${wanted}: run down first, or ask for the same number of nodes`,
  PLUGINS_MISSING: (missing: string) =>
    `OpenSearch started without ${missing}: delete .cache/opensearch-* so up rebuilds the install`,
  REDIS_MISSING: () => 'redis-server is not installed: install redis-server (e.g. apt-get install redis-server) or set REDIS_URL',
  REDIS_UNHEALTHY: (log: string) => `redis-server did not answer PING (see ${log}): fix the cause and run up again`,
  BUSY: (lockDir: string) => `another services command is still running (it holds ${lockDir}): wait for it or end it, then retry`,
} as const;

export type ProvisionErrorCode = keyof typeof ERRORS;

/** An expected failure: the CLI prints `details` (log tail) and then the one-line message, no stack. */
export class ProvisionError extends Error {
  constructor(
    readonly code: ProvisionErrorCode,
    message: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = 'ProvisionError';
  }
}

export function provisionError<C extends ProvisionErrorCode>(
  code: C,
  ...args: Parameters<(typeof ERRORS)[C]>
): ProvisionError {
  const message = (ERRORS[code] as (...a: unknown[]) => string)(...args);
  return new ProvisionError(code, message);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.at(-1) ?? 'no output';
}

// ---------------------------------------------------------------------------------------------
// Ports

export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Picks a loopback port. When `envName` is set in `env`, that port or a clear error; otherwise
 * `preferred` if free, then the next few above it, then whatever the OS hands out.
 */
/** Fails when `envName` pins a port other than the one the running service already uses. */
export function checkPinnedPort(env: Env, envName: string, service: string, runningPort: number): void {
  const wanted = env[envName]?.trim();
  if (wanted && !/^\d+$/.test(wanted)) throw provisionError('BAD_PORT', envName, wanted);
  if (wanted && Number(wanted) !== runningPort) throw provisionError('PORT_MISMATCH', service, runningPort, envName, wanted);
}

export async function choosePort({
  env,
  envName,
  preferred,
  avoid = [],
  what,
}: {
  env: Env;
  envName?: string;
  preferred: number;
  avoid?: number[];
  what: string;
}): Promise<number> {
  const raw = envName ? env[envName]?.trim() : undefined;
  if (envName && raw) {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw provisionError('BAD_PORT', envName, raw);
    if (!(await isPortFree(port))) throw provisionError('PORT_IN_USE', envName, port);
    return port;
  }
  for (let port = preferred; port < preferred + 20; port++) {
    if (!avoid.includes(port) && (await isPortFree(port))) return port;
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await osFreePort();
    if (port > 0 && !avoid.includes(port)) return port;
  }
  throw provisionError('NO_FREE_PORT', what);
}

// ---------------------------------------------------------------------------------------------
// Processes

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user (the OpenSearch service user, say).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Alive and, where /proc tells, running a command line that contains `needle` (our install
 * path, say): a pid recorded before a reboot may belong to an unrelated process by now.
 */
export function isOurProcess(pid: number, needle: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(needle);
  } catch {
    return !fs.existsSync('/proc/self'); // no procfs: trust the pid
  }
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // already gone
  }
}

/** SIGTERM (to the whole process group when `group`), wait up to `timeoutMs`, then SIGKILL. */
export async function stopProcess(
  pid: number,
  { group = false, timeoutMs = 30_000, name, log }: { group?: boolean; timeoutMs?: number; name: string; log: Logger },
): Promise<void> {
  if (!isAlive(pid)) return;
  log.info({ service: name, pid }, `stopping ${name}`);
  signal(pid, 'SIGTERM', group);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await sleep(200);
  }
  log.warn({ service: name, pid, timeoutMs }, `${name} ignored SIGTERM, sending SIGKILL`);
  signal(pid, 'SIGKILL', group);
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
}

// ---------------------------------------------------------------------------------------------
// State files in RUN_DIR: one JSON file per service, written atomically.

function statePath(name: string): string {
  return path.join(RUN_DIR, `${name}.json`);
}

export function readState<T>(name: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(name), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function writeState(name: string, value: unknown): void {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const tmp = `${statePath(name)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, statePath(name));
}

export function clearState(name: string): void {
  fs.rmSync(statePath(name), { force: true });
}

/**
 * Runs `fn` while holding `.cache/run/services-lock`, so two `up`/`down` calls never provision
 * or stop the same node at once. A lock left by a dead process is taken over once stale (10 s).
 */
export async function withLock<T>(log: Logger, fn: () => Promise<T>, timeoutMs = 10 * 60_000): Promise<T> {
  const lockDir = path.join(RUN_DIR, 'services-lock');
  try {
    return await withFileLock(lockDir, fn, {
      timeoutMs,
      onWait: () => log.info({ lock: lockDir }, 'waiting for another services command to finish'),
      onCompromised: (err) => log.warn({ err: err.message }, 'the services lock was lost; carrying on'),
    });
  } catch (err) {
    throw isLockHeld(err) ? provisionError('BUSY', lockDir) : err;
  }
}
