// The one reader of the environment: typed, validated, frozen. Each variable is declared once, in config/schema.ts.
import { readEnv, type TrustProxy } from './config/schema.js';
import type { Env } from './config/values.js';
import type { ChannelSites } from './channel-urls.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

export { ConfigError } from './config/values.js';
export { DEFAULT_HYDRATION_CACHE_MB, MIN_HS_SECRET_BYTES, type TrustProxy } from './config/schema.js';

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
    /** Longest wait for a place. REST waits before its store budget starts; MCP and page searches wait inside theirs. */
    maxWaitMs: number;
  };
  /** Folder of the persistent passage-vector cache (see src/embedding-cache.ts); unset: no cache. */
  embedCacheDir: string | undefined;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** Channels without a custom domain live at `<slug>.<baseDomain>`; their URLs use `scheme` and `port`. */
  channelSites: ChannelSites;
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
  /** The channel pages (decision 20): their own per-IP budget. */
  pages: { rateLimitMax: number; rateLimitWindowSeconds: number };
  /** Following sources and transcribing their episodes (the pipeline's worker and `npm run follow`). */
  pipeline: PipelineConfig;
  /** The change feed: days a change is kept. */
  changes: { retentionDays: number };
  /** Which embedder makes vectors, and how (issue: the embedder a deployment chooses). */
  embedding: {
    kind: 'local' | 'openai';
    pooling: 'auto' | 'cls' | 'mean';
    queryPrefix: string | undefined;
    passagePrefix: string | undefined;
    remote: { url: string | undefined; model: string; apiKey: string | undefined; timeoutMs: number };
  };
  /** Languages analysed with their own analyzer (LANGUAGES). */
  languages: readonly string[];
  /** Node's HTTP server timeouts: a client that sends its headers (or its request) too slowly gets a JSON 408. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /**
   * Prometheus `/metrics` listeners, off the public API port. A port left unset runs
   * no listener; the API and the worker each have their own, so both fit on one host.
   */
  metrics: { host: string; apiPort: number | undefined; workerPort: number | undefined };
}

/** The feed-following pipeline: polling, outbound fetching and transcription. */
export interface PipelineConfig {
  /** Folder holding one library folder per followed channel; relative to the working directory when not absolute. */
  libraryDir: string;
  pollIntervalSeconds: number;
  maxBackoffSeconds: number;
  /** User-Agent of every outbound request. */
  userAgent: string;
  /** Outbound fetches may reach loopback and private addresses (tests, local demos). */
  allowPrivate: boolean;
  audioMaxBytes: number;
  audioMaxSeconds: number;
  transcribe: { url: string | undefined; model: string; apiKey: string | undefined; maxUploadBytes: number; timeoutMs: number; concurrency: number };
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
 * Reads and validates the environment once, through the declarations of config/schema.ts.
 * Throws a `ConfigError` naming the first bad variable; returns a frozen object otherwise.
 */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const v = readEnv(env);
  const deprecatedAt = v.API_V1_DEPRECATED_AT;
  const config: Config = {
    port: v.PORT,
    host: v.HOST,
    publicBaseUrl: v.PUBLIC_BASE_URL ?? `http://localhost:${v.PORT}`,
    opensearchUrl: v.OPENSEARCH_URL.join(','),
    opensearchNodes: v.OPENSEARCH_URL,
    indexLayout: { shards: v.INDEX_SHARDS, replicas: v.INDEX_REPLICAS, vectorSource: v.INDEX_VECTOR_SOURCE },
    opensearchTimeoutMs: v.OPENSEARCH_TIMEOUT_MS,
    redisUrl: v.REDIS_URL,
    indexPrefix: v.INDEX_PREFIX,
    queueName: v.QUEUE_NAME ?? `${v.INDEX_PREFIX}ingest`,
    modelId: v.MODEL_ID,
    modelDir: v.MODEL_DIR,
    embedBatchSize: v.EMBED_BATCH_SIZE,
    queryEmbedding: {
      workers: v.EMBED_QUERY_WORKERS,
      maxQueue: v.EMBED_QUERY_QUEUE,
      maxTokens: v.EMBED_QUERY_MAX_TOKENS,
      timeoutMs: v.EMBED_QUERY_TIMEOUT_MS,
      nice: v.EMBED_QUERY_NICE,
    },
    searchAdmission: {
      concurrency: v.SEARCH_CONCURRENCY,
      queue: v.SEARCH_QUEUE,
      maxWaitMs: v.SEARCH_QUEUE_WAIT_MS,
      anonymousConcurrency: v.SEARCH_ANONYMOUS_CONCURRENCY,
      anonymousQueue: v.SEARCH_ANONYMOUS_QUEUE,
    },
    embedCacheDir: v.EMBED_CACHE_DIR,
    logLevel: v.LOG_LEVEL,
    channelSites: { baseDomain: v.CHANNEL_BASE_DOMAIN.toLowerCase(), scheme: v.CHANNEL_URL_SCHEME, port: v.CHANNEL_URL_PORT, customDomains: v.CHANNEL_CUSTOM_DOMAINS === 'on' },
    anonymousRead: v.ANONYMOUS_READ,
    rateLimit: { max: v.RATE_LIMIT_MAX, windowSeconds: v.RATE_LIMIT_WINDOW_SECONDS },
    failedKeyLookupsPerIp: v.FAILED_KEY_LOOKUPS_PER_IP,
    trustProxy: v.TRUST_PROXY,
    jwt: {
      issuer: v.JWT_ISSUER,
      audience: v.JWT_AUDIENCE,
      publicKeyFile: v.JWT_PUBLIC_KEY_FILE,
      jwks: v.JWT_JWKS,
      jwksMaxStaleSeconds: v.JWT_JWKS_MAX_STALE_SECONDS,
      hsSecret: v.JWT_HS_SECRET,
      clockSkewSeconds: v.JWT_CLOCK_SKEW_SECONDS,
    },
    authorizationServers: v.OAUTH_AUTHORIZATION_SERVERS,
    deprecation: deprecatedAt ? { deprecatedAt, sunsetAt: v.API_V1_SUNSET_AT, successor: v.API_V1_SUCCESSOR } : undefined,
    search: {
      fusion: v.SEARCH_FUSION,
      rrfK: v.RRF_K,
      chapterHits: v.SEARCH_CHAPTER_HITS,
      keywordWeight: v.RRF_KEYWORD_WEIGHT,
      semanticWeight: v.RRF_SEMANTIC_WEIGHT,
      candidates: v.SEARCH_CANDIDATES,
      queryCacheSize: v.QUERY_VECTOR_CACHE_SIZE,
      queryCacheChannels: v.QUERY_VECTOR_CACHE_CHANNELS,
      hydrationCacheMb: v.SEARCH_HYDRATION_CACHE_MB,
    },
    mcp: { enabled: v.MCP_SERVER === 'on', rateLimitMax: v.MCP_RATE_LIMIT_MAX, allowedOrigins: v.MCP_ALLOWED_ORIGINS },
    pages: { rateLimitMax: v.PAGES_RATE_LIMIT_MAX, rateLimitWindowSeconds: v.PAGES_RATE_LIMIT_WINDOW_SECONDS },
    http: { headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS },
    metrics: { host: v.METRICS_HOST, apiPort: v.METRICS_PORT, workerPort: v.WORKER_METRICS_PORT },
    changes: { retentionDays: v.CHANGES_RETENTION_DAYS },
    embedding: {
      kind: v.EMBEDDER,
      pooling: v.MODEL_POOLING,
      queryPrefix: v.MODEL_QUERY_PREFIX,
      passagePrefix: v.MODEL_PASSAGE_PREFIX,
      remote: { url: v.EMBEDDINGS_URL, model: v.EMBEDDINGS_MODEL ?? v.MODEL_ID, apiKey: v.EMBEDDINGS_API_KEY, timeoutMs: v.EMBEDDINGS_TIMEOUT_MS },
    },
    languages: v.LANGUAGES,
    pipeline: {
      libraryDir: v.FOLLOW_LIBRARY_DIR ?? '.cache/follow',
      pollIntervalSeconds: v.FOLLOW_POLL_INTERVAL_SECONDS,
      maxBackoffSeconds: v.FOLLOW_MAX_BACKOFF_SECONDS,
      userAgent: v.FOLLOW_USER_AGENT ?? `CreatorContentAPI/${PACKAGE_VERSION} (+${v.PUBLIC_BASE_URL ?? `http://localhost:${v.PORT}`})`,
      allowPrivate: v.OUTBOUND_ALLOW_PRIVATE === 'true',
      audioMaxBytes: v.AUDIO_MAX_BYTES,
      audioMaxSeconds: v.AUDIO_MAX_SECONDS,
      transcribe: {
        url: v.TRANSCRIBE_URL,
        model: v.TRANSCRIBE_MODEL,
        apiKey: v.TRANSCRIBE_API_KEY,
        maxUploadBytes: v.TRANSCRIBE_MAX_UPLOAD_BYTES,
        timeoutMs: v.TRANSCRIBE_TIMEOUT_MS,
        concurrency: v.TRANSCRIBE_CONCURRENCY,
      },
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
