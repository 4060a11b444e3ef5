// The one reader of the environment: typed, validated, frozen.
import { isIP } from 'node:net';

/** Every setting the service, the worker and the ops scripts read. */
export interface Config {
  /** HTTP port of the API. */
  port: number;
  /** Interface the API binds to. */
  host: string;
  /** Base URL the API is reached at, used in the 401 challenge and metadata document. */
  publicBaseUrl: string;
  /** OPENSEARCH_URL as given, normalised: one node URL, or several comma-separated (what the client and child processes take). */
  opensearchUrl: string;
  /** Each node URL of `opensearchUrl`; the client spreads requests over them and routes around a dead one. */
  opensearchNodes: readonly string[];
  /** Shards and replicas of every index this service creates. */
  indexLayout: IndexLayout;
  /** Per-request timeout to OpenSearch; a store that does not answer in time is a 503. */
  opensearchTimeoutMs: number;
  redisUrl: string;
  /** Prefix of every index and alias name, so test runs never touch each other's data. */
  indexPrefix: string;
  /** BullMQ queue name of the indexer. */
  queueName: string;
  /** Model hub id of the embedding model. */
  modelId: string;
  /** Folder holding `<modelId>/...` files; when set, remote model loading is off. */
  modelDir: string | undefined;
  embedBatchSize: number;
  /** The API's query embedding: worker processes, queue bound, input cap (see src/embedder-pool.ts). */
  queryEmbedding: {
    workers: number;
    /** Queries that may wait for a worker; past that a search runs keyword-only (`degraded: "embedder_busy"`). */
    maxQueue: number;
    /** Longest query embedded, in model tokens; the rest of a longer one is cut. */
    maxTokens: number;
    /** Longest a search waits for its query vector; past it, it runs keyword-only (`degraded: "embedder_busy"`). */
    timeoutMs: number;
    /** Nice value of the worker processes (0 = as the API; up to 19): the model yields the CPU to requests that need little of it. */
    nice: number;
  };
  /** Admission control of searches (see src/http/admission.ts): past it a search is refused with 503 `search_busy`. */
  searchAdmission: {
    /** Searches of callers with a credential (REST) running at once in this process. */
    concurrency: number;
    /** Searches that may wait for a place. */
    queue: number;
    /**
     * Anonymous searches (MCP tool calls, anonymous REST) running at once, in a share of
     * their own: a flood of them never takes a place a member's search needs.
     */
    anonymousConcurrency: number;
    /** Anonymous searches that may wait for a place of that share. */
    anonymousQueue: number;
    /** Longest wait for a place; the wait counts against the request's store budget. */
    maxWaitMs: number;
  };
  /** Folder of the persistent passage-vector cache (see src/embedding-cache.ts); unset: no cache. */
  embedCacheDir: string | undefined;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** Channels without a custom domain live at `<slug>.<channelBaseDomain>`. */
  channelBaseDomain: string;
  /** `none`: every REST call needs a credential. `published`: anonymous calls read published episodes. */
  anonymousRead: 'none' | 'published';
  rateLimit: { max: number; windowSeconds: number };
  /**
   * API keys refused after a store lookup per client IP and rate-limit window; past it the
   * IP's credentials are refused with 429 before any lookup, until the window ends.
   */
  failedKeyLookupsPerIp: number;
  /**
   * Express `trust proxy`: which hops in front of the API may name the client in
   * `X-Forwarded-For`, so anonymous callers get one rate-limit bucket each behind a
   * reverse proxy. `false`: none (the socket address is the client); a number: that many
   * hops; a list: proxies at those addresses, CIDR ranges or named ranges.
   */
  trustProxy: TrustProxy;
  jwt: {
    issuer: string | undefined;
    audience: string | undefined;
    /** PEM file holding the RS256/ES256 public key. */
    publicKeyFile: string | undefined;
    /** JWKS file path or https URL (http only on loopback). */
    jwks: string | undefined;
    /** Longest a JWKS key is used past its cache age while refetching fails (the JWKS host is down). */
    jwksMaxStaleSeconds: number;
    /** Shared HS256 secret, for development only: at least {@link MIN_HS_SECRET_BYTES} bytes. */
    hsSecret: string | undefined;
    clockSkewSeconds: number;
  };
  /** Authorization servers advertised in the RFC 9728 metadata document. */
  authorizationServers: string[];
  /** When set, /api/v1 is deprecated: `Deprecation`, `Sunset` and `Link` headers are sent. */
  deprecation: { deprecatedAt: Date; sunsetAt: Date | undefined; successor: string | undefined } | undefined;
  search: {
    /** How legs are fused: reciprocal rank fusion, or a weighted sum of min-max or z-score normalized scores. */
    fusion: 'rrf' | 'minmax' | 'zscore';
    rrfK: number;
    /** Per-leg weights of the fusion (either kind). */
    keywordWeight: number;
    semanticWeight: number;
    /** What becomes of chapter-title hits (see `absorbChapterHits`). */
    chapterHits: 'absorb' | 'lend' | 'keep';
    /** Candidates each leg contributes before fusion. */
    candidates: number;
    /** Query vectors cached per channel. */
    queryCacheSize: number;
    /** Channels with a query-vector cache; the least recently searched one's is dropped past it. Default 64. */
    queryCacheChannels?: number;
    /** MB of passages and catalog rows a search showed, kept to skip the hydration read (0: off). Default {@link DEFAULT_HYDRATION_CACHE_MB}. */
    hydrationCacheMb?: number;
  };
  /** The per-channel MCP tool server (`/mcp` on channel hosts, `/channels/{slug}/mcp`); off: those paths do not exist. */
  mcp: {
    enabled: boolean;
    /** Tool-server requests per client IP and rate-limit window: anonymous, so a smaller budget than a key's. */
    rateLimitMax: number;
    /** Browser origins allowed besides the channel's host and the API's (`scheme://host[:port]`). */
    allowedOrigins: string[];
  };
  /** Node's HTTP server timeouts: a client that sends its headers (or its request) too slowly gets a JSON 408. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /**
   * Prometheus `/metrics` listeners, off the public API port. A port left unset runs
   * no listener; the API and the worker each have their own, so both fit on one host.
   */
  metrics: { host: string; apiPort: number | undefined; workerPort: number | undefined };
}

/**
 * How each new index is laid out over the nodes. `replicas` is a fixed count, or an auto-expand
 * range `min-max` (`max` a number or `all`) that follows the number of data nodes.
 */
export interface IndexLayout {
  shards: number;
  replicas: number | string;
  /**
   * Where a k-NN index keeps its vectors for reads of `_source`: `derived` leaves them out
   * of the stored JSON and rebuilds them from the vector field on read (OpenSearch 2.19's
   * `index.knn.derived_source.enabled`, experimental there, the default from 3.0); `stored`
   * keeps them in `_source` as before (and sends no setting, for an OpenSearch older than 2.19).
   */
  vectorSource?: 'derived' | 'stored';
}

/**
 * One shard per index (the libraries are small: OpenSearch's guidance is 10-50 GB per shard),
 * and replicas that follow the cluster: none on one node (which stays green), one as soon as
 * there are two nodes or more, so a three-node cluster survives the loss of any node.
 */
export const DEFAULT_INDEX_LAYOUT: Readonly<Required<IndexLayout>> = Object.freeze({ shards: 1, replicas: '0-1', vectorSource: 'derived' });

/**
 * Default size of the hydration cache: the qmsum library (18k passages, 235 episodes)
 * would take about 54 MB (the 9k its dev queries show took 27 MB, their analyzer terms
 * included), so a library of that size is served from memory once searched.
 */
export const DEFAULT_HYDRATION_CACHE_MB = 64;

/**
 * Shortest `JWT_HS_SECRET`: HS256 is as strong as its key, and a short one falls to an
 * offline guess from any one token (RFC 7518 §3.2 asks for at least 256 bits).
 */
export const MIN_HS_SECRET_BYTES = 32;

/** The `trust proxy` values we accept; never `true`, which lets any client pick its own IP. */
export type TrustProxy = false | number | readonly string[];

/** A bad environment variable: the message names it and says what it should be. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v.trim() === '' ? fallback : v.trim();
}

function optional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `expected ${min}..${max}, got ${n}`);
  return n;
}

function num(env: Env, name: string, fallback: number, min: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new ConfigError(name, `expected a number >= ${min}, got "${raw}"`);
  return n;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** One or more URLs, comma-separated; each is checked and loses its trailing slashes. */
function urlList(env: Env, name: string, fallback: string, protocols: string[]): string[] {
  const entries = str(env, name, fallback).split(',').map((s) => s.trim());
  if (entries.some((e) => e === '')) throw new ConfigError(name, `expected comma-separated URLs without empty entries, got "${str(env, name, fallback)}"`);
  const urls = entries.map((entry) => url({ [name]: entry }, name, fallback, protocols));
  const repeated = urls.find((u, i) => urls.indexOf(u) !== i);
  if (repeated) throw new ConfigError(name, `lists ${repeated} twice`);
  return urls;
}

const MAX_REPLICAS = 32;

/** A replica count (`1`), or an auto-expand range (`0-1`, `1-all`) that OpenSearch keeps in step with the node count. */
function replicas(env: Env, name: string, fallback: number | string): number | string {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (/^\d+$/.test(raw) && Number(raw) <= MAX_REPLICAS) return Number(raw);
  const range = /^(\d+)-(\d+|all)$/.exec(raw);
  if (range && Number(range[1]) <= MAX_REPLICAS && (range[2] === 'all' || Number(range[1]) <= Number(range[2]))) return raw;
  throw new ConfigError(name, `expected a replica count 0..${MAX_REPLICAS} or an auto-expand range like 0-1 or 1-all, got "${raw}"`);
}

/** Hosts a plain-http URL may name: a JWKS fetched over http from elsewhere could be swapped on the way. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A JWKS file path, an https URL, or an http URL on loopback only. */
function jwksSource(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return raw;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a file path or an https URL, got "${raw}"`);
  }
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && (LOOPBACK_HOSTS.has(parsed.hostname) || parsed.hostname.startsWith('127.')))) return raw;
  throw new ConfigError(name, `expected an https URL (http only on loopback), got "${raw}"`);
}

/** Comma-separated origins (`scheme://host[:port]`), each normalised by URL. */
function origins(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let parsed: URL;
      try {
        parsed = new URL(entry);
      } catch {
        throw new ConfigError(name, `expected origins like https://app.example.com, got "${entry}"`);
      }
      if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(name, `expected an origin (scheme://host[:port], no path), got "${entry}"`);
      }
      return parsed.origin;
    });
}

function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  return optional(env, name) === undefined ? undefined : int(env, name, 0, min, max);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function date(env: Env, name: string): Date | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  const d = new Date(raw);
  if (Number.isNaN(d.getTime())) throw new ConfigError(name, `expected an ISO 8601 date, got "${raw}"`);
  return d;
}

const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_PROXY_HOPS = 32;

/** An IP address, or a CIDR range with a prefix length of 1 or more (`/0` would trust everyone). */
function isAddressOrRange(entry: string): boolean {
  const [address = '', length, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (length === undefined) return true;
  return /^\d+$/.test(length) && Number(length) >= 1 && Number(length) <= (family === 4 ? 32 : 128);
}

function trustProxy(env: Env, name: string): TrustProxy {
  const raw = str(env, name, 'false');
  if (raw === 'false') return false;
  if (raw === 'true') {
    throw new ConfigError(name, `"true" trusts any X-Forwarded-For, which every client can forge; give the number of proxies in front of the API (e.g. 1) or their addresses`);
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError(name, `expected a hop count 0..${MAX_PROXY_HOPS}, got ${hops}`);
    return hops === 0 ? false : hops;
  }
  const entries = raw.split(',').map((s) => s.trim());
  const bad = entries.find((e) => !TRUST_PROXY_NAMES.includes(e) && !isAddressOrRange(e));
  if (bad !== undefined) {
    throw new ConfigError(
      name,
      `expected false, a hop count, or a comma-separated list of IP addresses, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}; "${bad}" is none of these`,
    );
  }
  return entries;
}

function hsSecret(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw !== undefined && Buffer.byteLength(raw, 'utf8') < MIN_HS_SECRET_BYTES) {
    throw new ConfigError(name, `expected at least ${MIN_HS_SECRET_BYTES} bytes (a random 256-bit secret), got ${Buffer.byteLength(raw, 'utf8')}`);
  }
  return raw;
}

/**
 * Reads and validates the environment once. Throws a {@link ConfigError} naming the
 * first bad variable; returns a frozen object otherwise.
 */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const indexPrefix = str(env, 'INDEX_PREFIX', 'cca-');
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(indexPrefix)) {
    throw new ConfigError('INDEX_PREFIX', `expected lowercase letters, digits, "-", "_" or ".", got "${indexPrefix}"`);
  }
  const deprecatedAt = date(env, 'API_V1_DEPRECATED_AT');
  const opensearchNodes = urlList(env, 'OPENSEARCH_URL', 'http://127.0.0.1:9200', ['http:', 'https:']);
  const config: Config = {
    port,
    host: str(env, 'HOST', '127.0.0.1'),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']),
    opensearchUrl: opensearchNodes.join(','),
    opensearchNodes,
    indexLayout: {
      shards: int(env, 'INDEX_SHARDS', DEFAULT_INDEX_LAYOUT.shards, 1, 1024),
      replicas: replicas(env, 'INDEX_REPLICAS', DEFAULT_INDEX_LAYOUT.replicas),
      vectorSource: oneOf(env, 'INDEX_VECTOR_SOURCE', DEFAULT_INDEX_LAYOUT.vectorSource, ['derived', 'stored'] as const),
    },
    opensearchTimeoutMs: int(env, 'OPENSEARCH_TIMEOUT_MS', 1500, 100, 600_000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    indexPrefix,
    queueName: str(env, 'QUEUE_NAME', `${indexPrefix}ingest`),
    modelId: str(env, 'MODEL_ID', 'Xenova/bge-small-en-v1.5'),
    modelDir: optional(env, 'MODEL_DIR'),
    embedBatchSize: int(env, 'EMBED_BATCH_SIZE', 1, 1, 512),
    queryEmbedding: {
      workers: int(env, 'EMBED_QUERY_WORKERS', 1, 1, 64),
      maxQueue: int(env, 'EMBED_QUERY_QUEUE', 8, 0, 10_000),
      maxTokens: int(env, 'EMBED_QUERY_MAX_TOKENS', 128, 8, 512),
      timeoutMs: int(env, 'EMBED_QUERY_TIMEOUT_MS', 500, 10, 60_000),
      nice: int(env, 'EMBED_QUERY_NICE', 10, 0, 19),
    },
    searchAdmission: {
      concurrency: int(env, 'SEARCH_CONCURRENCY', 4, 1, 10_000),
      queue: int(env, 'SEARCH_QUEUE', 32, 0, 10_000),
      maxWaitMs: int(env, 'SEARCH_QUEUE_WAIT_MS', 1000, 1, 60_000),
      anonymousConcurrency: int(env, 'SEARCH_ANONYMOUS_CONCURRENCY', 2, 1, 10_000),
      anonymousQueue: int(env, 'SEARCH_ANONYMOUS_QUEUE', 8, 0, 10_000),
    },
    embedCacheDir: optional(env, 'EMBED_CACHE_DIR'),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const),
    channelBaseDomain: str(env, 'CHANNEL_BASE_DOMAIN', 'creators.example.com').toLowerCase(),
    anonymousRead: oneOf(env, 'ANONYMOUS_READ', 'none', ['none', 'published'] as const),
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 600, 1, 10_000_000),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    },
    failedKeyLookupsPerIp: int(env, 'FAILED_KEY_LOOKUPS_PER_IP', 30, 1, 10_000_000),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    jwt: {
      issuer: optional(env, 'JWT_ISSUER'),
      audience: optional(env, 'JWT_AUDIENCE'),
      publicKeyFile: optional(env, 'JWT_PUBLIC_KEY_FILE'),
      jwks: jwksSource(env, 'JWT_JWKS'),
      jwksMaxStaleSeconds: int(env, 'JWT_JWKS_MAX_STALE_SECONDS', 3600, 0, 7 * 86_400),
      hsSecret: hsSecret(env, 'JWT_HS_SECRET'),
      clockSkewSeconds: int(env, 'JWT_CLOCK_SKEW_SECONDS', 30, 0, 600),
    },
    authorizationServers: (optional(env, 'OAUTH_AUTHORIZATION_SERVERS') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    deprecation: deprecatedAt
      ? {
          deprecatedAt,
          sunsetAt: date(env, 'API_V1_SUNSET_AT'),
          successor: optional(env, 'API_V1_SUCCESSOR'),
        }
      : undefined,
    search: {
      fusion: oneOf(env, 'SEARCH_FUSION', 'minmax', ['rrf', 'minmax', 'zscore'] as const),
      rrfK: num(env, 'RRF_K', 60, 1),
      chapterHits: oneOf(env, 'SEARCH_CHAPTER_HITS', 'lend', ['absorb', 'lend', 'keep'] as const),
      keywordWeight: num(env, 'RRF_KEYWORD_WEIGHT', 1, 0),
      semanticWeight: num(env, 'RRF_SEMANTIC_WEIGHT', 1, 0),
      candidates: int(env, 'SEARCH_CANDIDATES', 100, 10, 1000),
      queryCacheSize: int(env, 'QUERY_VECTOR_CACHE_SIZE', 256, 0, 1_000_000),
      queryCacheChannels: int(env, 'QUERY_VECTOR_CACHE_CHANNELS', 64, 1, 1_000_000),
      hydrationCacheMb: int(env, 'SEARCH_HYDRATION_CACHE_MB', DEFAULT_HYDRATION_CACHE_MB, 0, 65_536),
    },
    mcp: {
      enabled: oneOf(env, 'MCP_SERVER', 'on', ['on', 'off'] as const) === 'on',
      rateLimitMax: int(env, 'MCP_RATE_LIMIT_MAX', 120, 1, 10_000_000),
      allowedOrigins: origins(env, 'MCP_ALLOWED_ORIGINS'),
    },
    http: {
      headersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      requestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    },
    metrics: {
      host: str(env, 'METRICS_HOST', '127.0.0.1'),
      apiPort: optionalInt(env, 'METRICS_PORT', 0, 65535),
      workerPort: optionalInt(env, 'WORKER_METRICS_PORT', 0, 65535),
    },
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
