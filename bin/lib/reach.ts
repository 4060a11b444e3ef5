// What a command line could not reach, said in one sentence: which service, at which URL, and how to start it when it is
// local. Also the settings every command line runs with (the local services `npm run services -- up` recorded filled in).
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../core/config/load.js';
import { SERVICES_UP, withRecordedServices } from '../../core/config/recorded-services.js';
import { isLoopbackHost } from '../../core/config/values.js';

/** The settings of a command line: the environment, with the services `up` recorded where the environment names none. */
export function commandConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  return loadConfig(withRecordedServices(env).env);
}

/** A service a command may call, by what the operator knows it as. */
interface Service {
  what: string;
  url: string;
  variable: string;
}

/** Every service the configuration names. */
export function servicesOf(config: Readonly<Config>): Service[] {
  const services: Service[] = [
    ...config.opensearchNodes.map((url) => ({ what: 'OpenSearch', url, variable: 'OPENSEARCH_URL' })),
    { what: 'Redis', url: config.redisUrl, variable: 'REDIS_URL' },
    ...config.pipeline.transcribe.urls.map((url) => ({ what: 'the transcription service', url, variable: 'TRANSCRIBE_URL' })),
  ];
  if (config.enrich.nerUrl) services.push({ what: 'the NER service', url: config.enrich.nerUrl, variable: 'NER_URL' });
  if (config.enrich.url) services.push({ what: 'the language-model service', url: config.enrich.url, variable: 'ENRICH_URL' });
  if (config.embedding.remote.url) services.push({ what: 'the embeddings service', url: config.embedding.remote.url, variable: 'EMBEDDINGS_URL' });
  return services;
}

/** Network failures by their system code, as a reader says them. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  UND_ERR_SOCKET: 'connection lost',
};

/** The OpenSearch client's errors when no answer came (core/store/transient.ts reads them the same way). */
const STORE_UNREACHABLE = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError']);

interface Failure {
  reason: string;
  host?: string;
  port?: number;
  store?: boolean;
}

/** The error, its causes and the members of an AggregateError, breadth first, a few levels deep. */
function chain(err: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let level: unknown[] = [err];
  for (let depth = 0; depth < 5 && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const e of level) {
      if (!e || typeof e !== 'object') continue;
      const o = e as Record<string, unknown>;
      out.push(o);
      if (o.cause) next.push(o.cause);
      if (Array.isArray(o.errors)) next.push(...(o.errors as unknown[]));
    }
    level = next;
  }
  return out;
}

/** The network failure behind `err`, with the host and port it names, if it is one. */
function networkFailure(err: unknown): Failure | undefined {
  const errors = chain(err);
  const store = errors.some((e) => typeof e.name === 'string' && STORE_UNREACHABLE.has(e.name));
  for (const e of errors) {
    const message = typeof e.message === 'string' ? e.message : '';
    // The OpenSearch client keeps the system error's code in its message only (`connect ECONNREFUSED 127.0.0.1:9200`).
    const code = typeof e.code === 'string' ? e.code : /\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+)\b/.exec(message)?.[1];
    const reason = code ? NETWORK[code] : undefined;
    if (!reason) continue;
    const named = /(\[?[\w.:-]+?\]?):(\d+)\s*$/.exec(message);
    const host = typeof e.address === 'string' ? e.address : typeof e.hostname === 'string' ? e.hostname : named?.[1];
    const port = typeof e.port === 'number' ? e.port : named ? Number(named[2]) : undefined;
    return { reason, ...(host ? { host } : {}), ...(port ? { port } : {}), store };
  }
  if (store) return { reason: errors.some((e) => e.name === 'TimeoutError') ? 'timed out' : 'no answer', store };
  return undefined;
}

const defaultPort = (url: URL) => (url.port ? Number(url.port) : ({ 'http:': 80, 'https:': 443, 'redis:': 6379, 'rediss:': 6379 } as Record<string, number>)[url.protocol]);
const sameHost = (a: string, b: string) =>
  a === b || (isLoopbackHost(a.replace(/^\[|\]$/g, '')) && isLoopbackHost(b.replace(/^\[|\]$/g, ''))) || (a === '::1' && isLoopbackHost(b));

/** The URL without credentials (a Redis password), as a message may print it. */
function shown(raw: string): string {
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  return url.toString().replace(/\/$/, '');
}

/** One sentence naming a service that did not answer, and what to do. */
export function unreachable(service: Service, reason: string): string {
  const url = new URL(service.url);
  const local = isLoopbackHost(url.hostname) || url.hostname === '[::1]';
  const fix = local ? `start it with \`${SERVICES_UP}\`, or set ${service.variable} to where it runs` : `check that it runs and that ${service.variable} names it`;
  return `could not reach ${service.what} at ${shown(service.url)} (${reason}): ${fix}`;
}

/**
 * What `err` says for a command's last line: a failure to reach a service the configuration names as that one sentence,
 * anything else its own message. Never a bare `fetch failed`.
 */
export function describeFailure(err: unknown, config: Readonly<Config>): string {
  const failure = networkFailure(err);
  if (failure) {
    const services = servicesOf(config);
    const match =
      (failure.host !== undefined && failure.port !== undefined
        ? services.find((s) => {
            const url = new URL(s.url);
            return defaultPort(url) === failure.port && sameHost(url.hostname, failure.host!);
          })
        : undefined) ?? (failure.store ? services[0] : undefined);
    if (match) return unreachable(match, failure.reason);
    if (failure.host) return `could not reach ${failure.host}${failure.port ? `:${failure.port}` : ''} (${failure.reason})`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message === 'fetch failed' ? 'a request found no answer (fetch failed) and named no service' : message;
}

/**
 * Pings Redis once, within `timeoutMs`; throws the one sentence naming it when it does not answer. Commands that queue
 * work call it first, since the queue's own connection retries for ever.
 */
export async function reachRedis(config: Readonly<Config>, { timeoutMs = 5_000 }: { timeoutMs?: number } = {}): Promise<void> {
  const redis = new Redis(config.redisUrl, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // connect() rejects with `Connection is closed.`; the system error (ECONNREFUSED …) comes as an 'error' event first.
  let cause: unknown;
  redis.on('error', (err) => (cause ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    const failure = networkFailure(cause) ?? networkFailure(err);
    // NOAUTH and the like: a Redis answered; the queue reports what it wants.
    if (failure || /timed? ?out|Connection is closed/i.test(String((err as Error).message))) {
      throw new Error(unreachable({ what: 'Redis', url: config.redisUrl, variable: 'REDIS_URL' }, failure?.reason ?? 'no answer'));
    }
  } finally {
    redis.disconnect();
  }
}

/** Answers at all, within `timeoutMs`: any HTTP status counts (a hosted service may want a key or have no /health). */
export async function reachHttp(service: Service, { timeoutMs = 5_000 }: { timeoutMs?: number } = {}): Promise<void> {
  try {
    await fetch(new URL('health', `${service.url.replace(/\/+$/, '')}/`), { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (err) {
    throw new Error(unreachable(service, networkFailure(err)?.reason ?? ((err as Error).name === 'TimeoutError' ? 'timed out' : 'no answer')));
  }
}

/**
 * The one sentence for each service a pipeline command would use and has none of (no variable, nothing `up` started):
 * the transcription service, and the NER service behind people and entities. Empty when both are there.
 */
export function missingServices(config: Readonly<Config>, { transcription = true }: { transcription?: boolean } = {}): string[] {
  const missing: string[] = [];
  if (transcription && config.pipeline.transcribe.urls.length === 0) {
    missing.push(
      `no transcription service (TRANSCRIBE_URL unset, none started by \`${SERVICES_UP}\`): episodes without a transcript fail; \`${SERVICES_UP}\` starts the local one`,
    );
  }
  if (config.enrich.enabled && !config.enrich.nerUrl) {
    missing.push(
      `no NER service (NER_URL unset, no local transcription service): people come from named speaker labels only, and no entities are generated; \`${SERVICES_UP}\` starts the local one`,
    );
  }
  return missing;
}
