// Local Redis (Debian's redis-server) on a loopback port, with an append-only file so that
// queued ingest jobs survive a restart (`npm run drill -- redis-queue` checks it).
import fs from 'node:fs';
import path from 'node:path';
import { Redis, ReplyError } from 'ioredis';
import type { Logger } from '../../../src/ground/logger.js';
import { aptInstall } from './apt.js';
import { RUN_DIR } from './paths.js';
import { exec, findExecutable, isRoot, lastLine, tailFile, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, sleep, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';

const REDIS_DIR = path.join(RUN_DIR, 'redis');
const PID_FILE = path.join(REDIS_DIR, 'redis.pid');
const LOG_FILE = path.join(REDIS_DIR, 'redis.log');
const STATE = 'redis';
/** Where Debian and source builds put redis-server, searched after PATH in case PATH is minimal. */
const EXTRA_DIRS = ['/usr/bin', '/usr/local/bin'];

/** What `up` records about the Redis it started. */
export interface RedisState {
  pid: number;
  url: string;
  port: number;
  startedAt: string;
}

/**
 * PINGs the Redis at `url` with a short-lived ioredis client: resolves with its reply
 * (`PONG`, or the error it answered, such as NOAUTH), or undefined when nothing answered
 * within `timeoutMs`.
 */
export async function pingRedis(url: string, timeoutMs = 1_000): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    // Nothing before the PING (no INFO ready check, no CLIENT SETINFO): it alone answers.
    enableReadyCheck: false,
    disableClientInfo: true,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined); // the answer below says it
  try {
    await redis.connect();
    return await redis.ping();
  } catch (err) {
    return err instanceof ReplyError ? (err as Error).message : undefined;
  } finally {
    redis.disconnect();
  }
}

const pings = async (port: number) => (await pingRedis(`redis://127.0.0.1:${port}`)) === 'PONG';

/** The Redis `up` started, if its process is alive and its port answers PING. */
export async function runningRedis(): Promise<RedisState | undefined> {
  const state = readState<RedisState>(STATE);
  if (!state || !isOurProcess(state.pid, 'redis-server')) return undefined;
  return (await pings(state.port)) ? state : undefined;
}

async function redisServerBinary(env: Env, log: Logger): Promise<string> {
  const found = findExecutable('redis-server', env, EXTRA_DIRS);
  if (found) return found;
  if (!isRoot()) throw createProvisionError('redis_missing');
  await aptInstall(['redis-server'], log);
  const installed = findExecutable('redis-server', env, EXTRA_DIRS);
  if (!installed) throw createProvisionError('redis_missing');
  log.info({ binary: installed }, 'redis-server installed');
  return installed;
}

function readPid(): number | undefined {
  try {
    const pid = Number(fs.readFileSync(PID_FILE, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function failure(error: ProvisionError): ProvisionError {
  const tail = tailFile(LOG_FILE, 20);
  return new ProvisionError(error.code, error.message, tail ? `--- last lines of ${LOG_FILE}\n${tail}` : undefined);
}

/** Starts Redis, or reuses the one a previous `up` started. Recorded in `.cache/run/redis.json`. */
export async function ensureRedis({ env, log }: { env: Env; log: Logger }): Promise<RedisState> {
  const running = await runningRedis();
  if (running) {
    checkPinnedPort(env, 'REDIS_PORT', 'Redis', running.port);
    log.info({ url: running.url, pid: running.pid }, 'Redis already running, reusing it');
    return running;
  }
  await stopRedis({ log }); // a stale state, or a server of ours that no longer answers

  const binary = await redisServerBinary(env, log);
  const port = await choosePort({ env, envName: 'REDIS_PORT', preferred: 6379, what: 'Redis' });
  fs.mkdirSync(REDIS_DIR, { recursive: true });
  fs.rmSync(PID_FILE, { force: true });
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    // Persistence for the BullMQ queue as its docs advise: AOF fsynced every second (a crash
    // loses at most a second of queue writes, which `npm run ingest` re-enqueues), no RDB
    // snapshots, and never evict keys (an evicted job would silently vanish).
    '--save', '',
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--maxmemory-policy', 'noeviction',
    '--daemonize', 'yes',
    '--pidfile', PID_FILE,
    '--logfile', LOG_FILE,
    '--dir', REDIS_DIR,
  ]; // prettier-ignore
  const started = await exec(binary, args, { cwd: REDIS_DIR });
  if (started.code !== 0) {
    throw failure(createProvisionError('install_failed', 'starting redis-server', lastLine(started.stderr || started.stdout)));
  }

  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const pid = readPid();
    if (pid !== undefined && (await pings(port))) {
      const state: RedisState = { pid, url: `redis://127.0.0.1:${port}`, port, startedAt: new Date().toISOString() };
      writeState(STATE, state);
      log.info({ url: state.url, pid }, 'Redis is up');
      return state;
    }
    await sleep(100);
  }
  const pid = readPid();
  if (pid !== undefined) await stopProcess(pid, { timeoutMs: 5_000, name: 'Redis', log });
  throw failure(createProvisionError('redis_unhealthy', LOG_FILE));
}

/**
 * Stops the Redis `up` started (SIGTERM, SIGKILL after 10 s) and clears its state.
 * `crash` kills it outright instead, as a power cut would (the drills use it).
 */
export async function stopRedis({ log, crash = false }: { log: Logger; crash?: boolean }): Promise<RedisState | undefined> {
  const state = readState<RedisState>(STATE);
  if (!state) return undefined;
  if (isOurProcess(state.pid, 'redis-server')) {
    if (crash) process.kill(state.pid, 'SIGKILL');
    await stopProcess(state.pid, { timeoutMs: 10_000, name: 'Redis', log });
  }
  clearState(STATE);
  return state;
}

/** The recorded server, and whether it runs and answers. */
export async function redisState(): Promise<{ state: RedisState | undefined; running: boolean }> {
  const state = readState<RedisState>(STATE);
  return { state, running: (await runningRedis()) !== undefined };
}
