// Local OpenSearch, Redis and the transcription service for development and tests: up (start or reuse), down, status.
import { createLogger, type Logger } from '../../../core/ground/logger.js';
import { ensureOpenSearch, openSearchState, runningOpenSearch, stopOpenSearch } from './opensearch.js';
import { clusterStatus, clusterUrls, ensureOpenSearchCluster, readClusterState, stopOpenSearchCluster } from './opensearch-cluster.js';
import { ensureRedis, pingRedis, redisState, stopRedis } from './redis.js';
import { ensureTranscriber, stopTranscriber, transcriberState } from './transcriber.js';
import type { Env } from './commands.js';
import { createProvisionError } from './errors.js';
import { isOurProcess } from './processes.js';
import { withLock } from './state.js';
import { INSTALL_DIR } from './opensearch-install.js';

/** Where the API, the worker and the tests reach the services. */
export interface ServiceUrls {
  opensearchUrl: string;
  redisUrl: string;
  /** The transcription service (TRANSCRIBE_URL), when `up` was asked for it. */
  transcribeUrl?: string;
}

/** One OpenSearch node of a cluster (or of a comma-separated OPENSEARCH_URL). */
export interface NodeStatus {
  name: string;
  url: string;
  pid: number | undefined;
  running: boolean;
  /** The elected cluster-manager (local clusters only). */
  clusterManager: boolean;
}

export interface ServiceStatus {
  /** Answers right now: our process is alive and its port answers, or the external URL answers; for a cluster, every node. */
  running: boolean;
  /** `local`: managed by `up`/`down`. `external`: taken from OPENSEARCH_URL / REDIS_URL, never started or stopped here. */
  source: 'local' | 'external';
  url: string | undefined;
  pid: number | undefined;
  /** One human-readable line. */
  detail: string;
  /** Each node, when OpenSearch is a cluster or several URLs. */
  nodes?: NodeStatus[];
}

export interface ServicesStatus {
  opensearch: ServiceStatus;
  redis: ServiceStatus;
  /** Always given by `servicesStatus`; optional so that plans built from OpenSearch and Redis alone (the demo's) still type. */
  transcriber?: ServiceStatus;
}

const defaultLogger = () => createLogger({ name: 'services', fd: 2 });

function external(env: Env, name: 'OPENSEARCH_URL' | 'REDIS_URL' | 'TRANSCRIBE_URL'): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * The local OpenSearch: `nodes` 1 is the single node, more a cluster of that many; unset reuses
 * whichever an earlier `up` started (the single node when none). Returns the URL(s), comma-separated.
 */
async function ensureLocalOpenSearch({ env, log, healthTimeoutMs, nodes }: { env: Env; log: Logger; healthTimeoutMs: number; nodes: number | undefined }): Promise<string> {
  const cluster = readClusterState();
  const clusterRuns = cluster !== undefined && cluster.nodes.some((n) => isOurProcess(n.pid, INSTALL_DIR));
  if (nodes === undefined && clusterRuns) nodes = cluster.nodes.length;
  if ((nodes ?? 1) === 1) {
    if (clusterRuns) throw createProvisionError('topology_mismatch', `a cluster of ${cluster.nodes.length} nodes`, 'a single node');
    return (await ensureOpenSearch({ env, log, healthTimeoutMs })).url;
  }
  if (await runningOpenSearch()) throw createProvisionError('topology_mismatch', 'a single node', `a cluster of ${nodes} nodes`);
  return clusterUrls(await ensureOpenSearchCluster({ env, log, nodes: nodes!, healthTimeoutMs: Math.max(healthTimeoutMs, 300_000) }));
}

/**
 * Starts OpenSearch and Redis on loopback ports, or reuses the ones an earlier `up` started, and
 * returns their URLs. A service whose URL is already set in `env` (OPENSEARCH_URL, REDIS_URL) is
 * used as given and not provisioned. OPENSEARCH_PORT / REDIS_PORT pin the ports (default: 9200 /
 * 6379, or the next free one). `nodes` > 1 starts a local cluster instead of the single node; its
 * URLs come back comma-separated, as OPENSEARCH_URL takes them. `transcriber` also starts the
 * local transcription service (or takes TRANSCRIBE_URL as given). Expected failures throw a
 * `ProvisionError` with a one-line message.
 */
export async function servicesUp({
  env = process.env,
  log = defaultLogger(),
  healthTimeoutMs = 120_000,
  nodes,
  transcriber = false,
}: { env?: Env; log?: Logger; healthTimeoutMs?: number; nodes?: number; transcriber?: boolean } = {}): Promise<ServiceUrls> {
  const givenRedis = external(env, 'REDIS_URL');
  const givenOpenSearch = external(env, 'OPENSEARCH_URL');
  if (givenRedis) log.info({ url: givenRedis }, 'using REDIS_URL from the environment');
  if (givenOpenSearch) log.info({ url: givenOpenSearch }, 'using OPENSEARCH_URL from the environment');
  const givenTranscriber = transcriber ? external(env, 'TRANSCRIBE_URL') : undefined;
  if (givenTranscriber) log.info({ url: givenTranscriber }, 'using TRANSCRIBE_URL from the environment');
  return withLock(log, async () => {
    // Redis first: it is quick, and a missing redis-server should fail before a minute of provisioning.
    const redisUrl = givenRedis ?? (await ensureRedis({ env, log })).url;
    const opensearchUrl = givenOpenSearch ?? (await ensureLocalOpenSearch({ env, log, healthTimeoutMs, nodes }));
    if (!transcriber) return { opensearchUrl, redisUrl };
    const transcribeUrl = givenTranscriber ?? (await ensureTranscriber({ env, log })).url;
    return { opensearchUrl, redisUrl, transcribeUrl };
  });
}

/** Stops what `up` started (never an external service) and clears the run state. Data stays in the cache. */
export async function servicesDown({ log = defaultLogger() }: { log?: Logger } = {}): Promise<void> {
  await withLock(log, async () => {
    const opensearch = await stopOpenSearch({ log });
    const cluster = await stopOpenSearchCluster({ log });
    const redis = await stopRedis({ log });
    const transcriber = await stopTranscriber({ log });
    const stopped = [opensearch && 'OpenSearch', cluster && `OpenSearch cluster (${cluster.nodes.length} nodes)`, redis && 'Redis', transcriber && 'transcription service'].filter(
      Boolean,
    );
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
  return (await pingRedis(url)) !== undefined; // NOAUTH still means a Redis answers
}

/** Any HTTP answer counts: a remote provider may have no /health and may want a key. */
async function transcriberAnswers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  }
}

/** The local cluster as one status: running when every node is, with a line per node. */
async function localClusterStatus(): Promise<ServiceStatus | undefined> {
  const { state, nodes } = await clusterStatus();
  if (!state) return undefined;
  const up = nodes.filter((n) => n.running).length;
  const manager = nodes.find((n) => n.clusterManager)?.name;
  return {
    running: up === nodes.length,
    source: 'local',
    url: clusterUrls(state),
    pid: undefined,
    detail: `cluster started by up: ${up} of ${nodes.length} nodes running${manager ? `, elected cluster-manager ${manager}` : ''}`,
    nodes,
  };
}

/** An OPENSEARCH_URL from the environment: answering when any of its nodes does, each node listed when there are several. */
async function externalOpenSearchStatus(urls: string): Promise<ServiceStatus> {
  const list = urls
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const answers = await Promise.all(list.map(opensearchAnswers));
  const running = answers.some(Boolean);
  return {
    running,
    source: 'external',
    url: urls,
    pid: undefined,
    detail: `OPENSEARCH_URL from the environment${running ? '' : ', not answering'}`,
    ...(list.length > 1 ? { nodes: list.map((url, i) => ({ name: `node ${i + 1}`, url, pid: undefined, running: answers[i]!, clusterManager: false })) } : {}),
  };
}

/** What runs where: each service's URL, pid and whether it answers now. */
export async function servicesStatus({ env = process.env }: { env?: Env } = {}): Promise<ServicesStatus> {
  const opensearchUrl = external(env, 'OPENSEARCH_URL');
  const redisUrl = external(env, 'REDIS_URL');
  const transcribeUrl = external(env, 'TRANSCRIBE_URL');
  const [os, cluster, redis, transcriber] = await Promise.all([openSearchState(), localClusterStatus(), redisState(), transcriberState()]);
  const externalStatus = (url: string, running: boolean, name: string): ServiceStatus => ({
    running,
    source: 'external',
    url,
    pid: undefined,
    detail: `${name} from the environment${running ? '' : ', not answering'}`,
  });
  const localStatus = ({ state, running }: { state: { pid: number; url: string } | undefined; running: boolean }): ServiceStatus => ({
    running,
    source: 'local',
    url: running ? state?.url : undefined,
    pid: running ? state?.pid : undefined,
    detail: running ? 'started by up' : state ? `not running (stale state of pid ${state.pid}; up or down clears it)` : 'not running',
  });
  return {
    opensearch: opensearchUrl ? await externalOpenSearchStatus(opensearchUrl) : cluster && !os.state ? cluster : localStatus(os),
    redis: redisUrl ? externalStatus(redisUrl, await redisAnswers(redisUrl), 'REDIS_URL') : localStatus(redis),
    transcriber: transcribeUrl ? externalStatus(transcribeUrl, await transcriberAnswers(transcribeUrl), 'TRANSCRIBE_URL') : localStatus(transcriber),
  };
}
