// Local OpenSearch and Redis for development and tests: up (start or reuse), down, status.
import { createLogger, type Logger } from '../../src/logger.js';
import { ensureOpenSearch, openSearchState, stopOpenSearch } from './opensearch.js';
import { ensureRedis, redisCommand, redisState, stopRedis } from './redis.js';
import { withLock, type Env } from './service-runtime.js';

/** Where the API, the worker and the tests reach the services. */
export interface ServiceUrls {
  opensearchUrl: string;
  redisUrl: string;
}

export interface ServiceStatus {
  /** Answers right now: our process is alive and its port answers, or the external URL answers. */
  running: boolean;
  /** `local`: managed by `up`/`down`. `external`: taken from OPENSEARCH_URL / REDIS_URL, never started or stopped here. */
  source: 'local' | 'external';
  url: string | undefined;
  pid: number | undefined;
  /** One human-readable line. */
  detail: string;
}

export interface ServicesStatus {
  opensearch: ServiceStatus;
  redis: ServiceStatus;
}

const defaultLogger = () => createLogger({ name: 'services', fd: 2 });

function external(env: Env, name: 'OPENSEARCH_URL' | 'REDIS_URL'): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * Starts OpenSearch and Redis on loopback ports, or reuses the ones an earlier `up` started, and
 * returns their URLs. A service whose URL is already set in `env` (OPENSEARCH_URL, REDIS_URL) is
 * used as given and not provisioned. OPENSEARCH_PORT / REDIS_PORT pin the ports (default: 9200 /
 * 6379, or the next free one). Expected failures throw a `ProvisionError` with a one-line message.
 */
export async function servicesUp({
  env = process.env,
  log = defaultLogger(),
  healthTimeoutMs = 120_000,
}: { env?: Env; log?: Logger; healthTimeoutMs?: number } = {}): Promise<ServiceUrls> {
  const givenRedis = external(env, 'REDIS_URL');
  const givenOpenSearch = external(env, 'OPENSEARCH_URL');
  if (givenRedis) log.info({ url: givenRedis }, 'using REDIS_URL from the environment');
  if (givenOpenSearch) log.info({ url: givenOpenSearch }, 'using OPENSEARCH_URL from the environment');
  return withLock(log, async () => {
    // Redis first: it is quick, and a missing redis-server should fail before a minute of provisioning.
    const redisUrl = givenRedis ?? (await ensureRedis({ env, log })).url;
    const opensearchUrl = givenOpenSearch ?? (await ensureOpenSearch({ env, log, healthTimeoutMs })).url;
    return { opensearchUrl, redisUrl };
  });
}

/** Stops what `up` started (never an external service) and clears the run state. Data stays in the cache. */
export async function servicesDown({ log = defaultLogger() }: { log?: Logger } = {}): Promise<void> {
  await withLock(log, async () => {
    const opensearch = await stopOpenSearch({ log });
    const redis = await stopRedis({ log });
    const stopped = [opensearch && 'OpenSearch', redis && 'Redis'].filter(Boolean);
    log.info({ stopped }, stopped.length ? 'services stopped' : 'nothing was running');
  });
}

async function opensearchAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return res.status < 500;
  } catch {
    return false;
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  try {
    const { hostname, port } = new URL(url);
    const reply = await redisCommand({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 6379) }, 'PING');
    return reply !== undefined; // -NOAUTH still means a Redis answers
  } catch {
    return false;
  }
}

/** What runs where: each service's URL, pid and whether it answers now. */
export async function servicesStatus({ env = process.env }: { env?: Env } = {}): Promise<ServicesStatus> {
  const opensearchUrl = external(env, 'OPENSEARCH_URL');
  const redisUrl = external(env, 'REDIS_URL');
  const [os, redis] = await Promise.all([openSearchState(), redisState()]);
  const externalStatus = (url: string, running: boolean, name: string): ServiceStatus => ({
    running,
    source: 'external',
    url,
    pid: undefined,
    detail: `${name} from the environment${running ? '' : ', not answering'}`,
  });
  const localStatus = (
    { state, running }: { state: { pid: number; url: string } | undefined; running: boolean },
  ): ServiceStatus => ({
    running,
    source: 'local',
    url: running ? state?.url : undefined,
    pid: running ? state?.pid : undefined,
    detail: running ? 'started by up' : state ? `not running (stale state of pid ${state.pid}; up or down clears it)` : 'not running',
  });
  return {
    opensearch: opensearchUrl
      ? externalStatus(opensearchUrl, await opensearchAnswers(opensearchUrl), 'OPENSEARCH_URL')
      : localStatus(os),
    redis: redisUrl ? externalStatus(redisUrl, await redisAnswers(redisUrl), 'REDIS_URL') : localStatus(redis),
  };
}
