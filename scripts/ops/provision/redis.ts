// Local Redis (Debian's redis-server) on a loopback port, with an append-only file so that the queues (ingest, the
// followed feeds', the webhooks') survive a restart (`npm run drill -- redis-queue` checks it); private instances
// beside it for the drills and tests that delete a Redis's data (`npm run drill -- redis-loss`).
import fs from 'node:fs';
import path from 'node:path';
import { Redis, ReplyError } from 'ioredis';
import type { Logger } from '../../../core/ground/logger.js';
import { aptInstall } from './apt.js';
import { RUN_DIR } from './paths.js';
import { exec, findExecutable, isRoot, lastLine, tailFile, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, sleep, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';

/** The Redis of `services up`; the drills and tests start private ones beside it under other names. */
const DEFAULT_INSTANCE = 'redis';
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

/**
 * Where an instance keeps its pid, log and data (the append-only files under `appendonlydir/`): `.cache/run/<instance>/`.
 * `redis` is the one `services up` starts.
 */
export function redisDir(instance = DEFAULT_INSTANCE): string {
  return path.join(RUN_DIR, instance);
}
const pidFile = (instance: string) => path.join(redisDir(instance), 'redis.pid');
const logFile = (instance: string) => path.join(redisDir(instance), 'redis.log');

/**
 * The server options of every Redis the provisioner starts. Persistence for the BullMQ queues as its docs advise: AOF
 * fsynced every second (a crash loses at most a second of queue writes, which the worker rebuilds at start from the
 * library folders and OpenSearch), no RDB snapshots, and never evict keys (an evicted job would silently vanish).
 */
export function redisServerArgs({ port, dir }: { port: number; dir: string }): string[] {
  return [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--maxmemory-policy', 'noeviction',
    '--daemonize', 'yes',
    '--pidfile', path.join(dir, 'redis.pid'),
    '--logfile', path.join(dir, 'redis.log'),
    '--dir', dir,
  ]; // prettier-ignore
}

const pings = async (port: number) => (await pingRedis(`redis://127.0.0.1:${port}`)) === 'PONG';

/** The Redis `up` started (or the private `instance`), if its process is alive and its port answers PING. */
export async function runningRedis({ instance = DEFAULT_INSTANCE }: { instance?: string } = {}): Promise<RedisState | undefined> {
  const state = readState<RedisState>(instance);
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

function readPid(instance: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFile(instance), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function failure(error: ProvisionError, instance: string): ProvisionError {
  const tail = tailFile(logFile(instance), 20);
  return new ProvisionError(error.code, error.message, tail ? `--- last lines of ${logFile(instance)}\n${tail}` : undefined);
}

/**
 * Starts Redis, or reuses the one a previous `up` started. Recorded in `.cache/run/redis.json`, its data in
 * `.cache/run/redis/`. `instance` names a private server instead (`.cache/run/<instance>.json` and folder; a drill's or
 * a test's, on the port `REDIS_PORT` of `env` pins or a free one from `preferredPort`), started the same way.
 */
export async function ensureRedis({
  env,
  log,
  instance = DEFAULT_INSTANCE,
  preferredPort = 6379,
}: {
  env: Env;
  log: Logger;
  instance?: string;
  preferredPort?: number;
}): Promise<RedisState> {
  const running = await runningRedis({ instance });
  if (running) {
    checkPinnedPort(env, 'REDIS_PORT', 'Redis', running.port);
    log.info({ url: running.url, pid: running.pid, instance }, 'Redis already running, reusing it');
    return running;
  }
  await stopRedis({ log, instance }); // a stale state, or a server of ours that no longer answers

  const binary = await redisServerBinary(env, log);
  const port = await choosePort({ env, envName: 'REDIS_PORT', preferred: preferredPort, what: 'Redis' });
  const dir = redisDir(instance);
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(pidFile(instance), { force: true });
  const started = await exec(binary, redisServerArgs({ port, dir }), { cwd: dir });
  if (started.code !== 0) {
    throw failure(createProvisionError('install_failed', 'starting redis-server', lastLine(started.stderr || started.stdout)), instance);
  }

  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const pid = readPid(instance);
    if (pid !== undefined && (await pings(port))) {
      const state: RedisState = { pid, url: `redis://127.0.0.1:${port}`, port, startedAt: new Date().toISOString() };
      writeState(instance, state);
      log.info({ url: state.url, pid, instance, dir }, 'Redis is up');
      return state;
    }
    await sleep(100);
  }
  const pid = readPid(instance);
  if (pid !== undefined) await stopProcess(pid, { timeoutMs: 5_000, name: 'Redis', log });
  throw failure(createProvisionError('redis_unhealthy', logFile(instance)), instance);
}

/**
 * Stops the Redis `up` started (or the private `instance`): SIGTERM (Redis writes its append-only file out and exits),
 * SIGKILL after 10 s, and clears its state. `crash` kills it outright instead, as a power cut would (the drills use it).
 */
export async function stopRedis({ log, crash = false, instance = DEFAULT_INSTANCE }: { log: Logger; crash?: boolean; instance?: string }): Promise<RedisState | undefined> {
  const state = readState<RedisState>(instance);
  if (!state) return undefined;
  if (isOurProcess(state.pid, 'redis-server')) {
    if (crash) process.kill(state.pid, 'SIGKILL');
    await stopProcess(state.pid, { timeoutMs: 10_000, name: 'Redis', log });
  }
  clearState(instance);
  return state;
}

/**
 * Deletes what a stopped private `instance` holds (its append-only files): the next {@link ensureRedis} starts it
 * empty, as after a lost disk. Refuses the Redis of `services up` and a running instance.
 */
export async function deleteRedisData({ instance }: { instance: string }): Promise<void> {
  if (instance === DEFAULT_INSTANCE) throw new Error('deleteRedisData: refusing the Redis of `services up`; use a private instance');
  if (await runningRedis({ instance })) throw new Error(`deleteRedisData: Redis "${instance}" is running; stop it first`);
  const dir = redisDir(instance);
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (name !== 'redis.log') fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/** The recorded server, and whether it runs and answers. */
export async function redisState(): Promise<{ state: RedisState | undefined; running: boolean }> {
  const state = readState<RedisState>(DEFAULT_INSTANCE);
  return { state, running: (await runningRedis()) !== undefined };
}
