// Every setting, declared once where it lands in the configuration object: its variable, kind, default, range and meaning.
// loadConfig reads the environment through it, the Config type is computed from it, docs/configuration.md is generated from it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../ground/package-root.js';
import { computed, formerly, settingsOf, type Schema } from './tree.js';
import {
  ConfigError,
  address,
  addressList,
  choice,
  checkedUrl,
  custom,
  decimal,
  integer,
  isAddressOrRange,
  isLoopbackHost,
  optionalInteger,
  optionalText,
  readDate,
  readJwksSource,
  readOrigins,
  text,
  toggle,
  type Setting,
} from './values.js';

/** The `trust proxy` values we accept; never `true`, which lets any client pick its own IP. */
export type TrustProxy = false | number | readonly string[];

const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_PROXY_HOPS = 32;
const MAX_REPLICAS = 32;

/**
 * Shortest `JWT_HS_SECRET`: HS256 is as strong as its key, and a short one falls to an
 * offline guess from any one token (RFC 7518 §3.2 asks for at least 256 bits).
 */
export const MIN_HS_SECRET_BYTES = 32;

/** Default size of the hydration cache: a library of the qmsum evaluation's size is served from memory once searched (sizes in the variable's description). */
export const DEFAULT_HYDRATION_CACHE_MB = 64;

function readTrustProxy(raw: string, name: string): TrustProxy {
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
    throw new ConfigError(name, `expected false, a hop count, or a comma-separated list of IP addresses, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}; "${bad}" is none of these`);
  }
  return entries;
}

/** A replica count (`1`), or an auto-expand range (`0-1`, `1-all`) that OpenSearch keeps in step with the node count. */
function readReplicas(raw: string, name: string): number | string {
  if (/^\d+$/.test(raw) && Number(raw) <= MAX_REPLICAS) return Number(raw);
  const range = /^(\d+)-(\d+|all)$/.exec(raw);
  if (range && Number(range[1]) <= MAX_REPLICAS && (range[2] === 'all' || Number(range[1]) <= Number(range[2]))) return raw;
  throw new ConfigError(name, `expected a replica count 0..${MAX_REPLICAS} or an auto-expand range like 0-1 or 1-all, got "${raw}"`);
}

function readHsSecret(raw: string | undefined, name: string): string | undefined {
  if (raw !== undefined && Buffer.byteLength(raw, 'utf8') < MIN_HS_SECRET_BYTES) {
    throw new ConfigError(name, `expected at least ${MIN_HS_SECRET_BYTES} bytes (a random 256-bit secret), got ${Buffer.byteLength(raw, 'utf8')}`);
  }
  return raw;
}

/** `BACKUP_EVERY`: an interval in ms (`every`) or a cron pattern, as a BullMQ Job Scheduler takes them. */
function readBackupEvery(raw: string | undefined, name: string): { every: number } | { pattern: string } | undefined {
  if (raw === undefined || raw === 'off') return undefined;
  const interval = /^(\d+)(m|h|d)$/.exec(raw);
  if (interval) {
    const ms = Number(interval[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[interval[2] as 'm' | 'h' | 'd'];
    if (ms < 60_000) throw new ConfigError(name, `expected at least 1m, got "${raw}"`);
    return { every: ms };
  }
  if (/^[\d*,/-]+( [\d*,/-]+){4,5}$/.test(raw)) return { pattern: raw };
  throw new ConfigError(name, `expected an interval like 30m, 6h or 1d, a cron pattern like "0 3 * * *", or off; got "${raw}"`);
}

/** A key that seals webhook secrets at rest: its bytes in base64, and its id, stored beside every secret it seals. */
export interface SecretsKey {
  /** The first 8 hex digits of the key's SHA-256: names the key without revealing it. */
  id: string;
  base64: string;
}

/** `SECRETS_KEY` and `SECRETS_KEY_PREVIOUS`: 32 bytes, as 64 hex digits or base64 (the value itself never appears in a message). */
function readSecretsKey(raw: string | undefined, name: string): SecretsKey | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(name, `expected 32 random bytes as 64 hex digits or base64 (\`openssl rand -base64 32\`), got ${value.length} characters that are neither`);
  }
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), base64: bytes.toString('base64') };
}

function readIndexPrefix(raw: string, name: string): string {
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(raw)) throw new ConfigError(name, `expected lowercase letters, digits, "-", "_" or ".", got "${raw}"`);
  return raw;
}

/** An http(s) service URL without credentials, query or fragment (a key goes in its own variable, never in a URL that logs print). */
function readServiceUrl(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  const url = checkedUrl(raw, name, HTTP);
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw new ConfigError(name, `carries credentials; give the URL without them (a key has its own variable)`);
  if (parsed.search || parsed.hash) throw new ConfigError(name, `expected a base URL without query or fragment, got "${raw}"`);
  return url;
}

/** One service URL, or several comma-separated (each read as {@link readServiceUrl}, none twice). */
function readServiceUrls(raw: string | undefined, name: string): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const urls = raw.split(',').map((entry) => {
    if (!entry.trim()) throw new ConfigError(name, `expected comma-separated URLs without empty entries, got "${raw}"`);
    return readServiceUrl(entry.trim(), name)!;
  });
  const repeated = urls.find((u, i) => urls.indexOf(u) !== i);
  if (repeated) throw new ConfigError(name, `lists ${repeated} twice`);
  return urls;
}

/** A Bearer key is sent over https, or plain http to this machine only: anywhere else it would cross the network in the clear. */
function checkKeyTransport(key: string | undefined, url: string | undefined, name: string): string | undefined {
  if (key !== undefined && url !== undefined && new URL(url).protocol === 'http:' && !isLoopbackHost(new URL(url).hostname)) {
    throw new ConfigError(name, `would be sent in the clear to ${new URL(url).origin}; use an https URL (plain http only on loopback)`);
  }
  return key;
}

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const HTTP = ['http:', 'https:'] as const;

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
const localBaseUrl = (port: number) => `http://localhost:${port}`;

// Variables that more than one field reads.
const PORT = integer('PORT', 8080, 0, 65535, 'HTTP port of the API');
const PUBLIC_BASE_URL = address(
  'PUBLIC_BASE_URL',
  undefined,
  HTTP,
  'base URL the API is reached at: the 401 challenge, the OAuth metadata document, the default token audience',
  '`http://localhost:$PORT`',
);
const OPENSEARCH_URL = addressList(
  'OPENSEARCH_URL',
  'http://127.0.0.1:9200',
  HTTP,
  'OpenSearch node, or several comma-separated: requests are spread over them, and one a node refuses or drops goes to the next',
);
const INDEX_PREFIX = custom(
  'INDEX_PREFIX',
  { fallback: 'cca-', accepts: 'lowercase letters, digits, `-`, `_`, `.`' },
  'prefix of every index, alias and queue name',
  readIndexPrefix,
);
const MODEL_ID = text('MODEL_ID', 'Xenova/bge-small-en-v1.5', 'embedding model (model hub id)');
// Credentials in a service URL would be printed by every log line that names it (review 2026-11-27, item 16).
const TRANSCRIBE_URL = custom(
  'TRANSCRIBE_URL',
  {
    shown: 'unset (episodes without a transcript in their source fail: nothing transcribes them)',
    accepts: 'http or https URL without credentials, or several comma-separated',
  },
  'OpenAI-compatible transcription service (`POST <url>/v1/audio/transcriptions`); several comma-separated: each piece goes to the least busy, one that fails is passed over for a minute. `npm run services -- up` starts the local one and prints its URL',
  readServiceUrls,
);
const ENRICH_URL = custom(
  'ENRICH_URL',
  { shown: 'unset (titles and claims by the local method)', accepts: 'http or https URL without credentials' },
  'OpenAI-compatible chat service (`POST <url>/v1/chat/completions`: llama.cpp, Ollama, vLLM, a hosted one) that rewrites the titles and moment claims of generated chapters; it never chooses times',
  readServiceUrl,
);
const ENRICH_CHAPTER_MIN_SECONDS = integer('ENRICH_CHAPTER_MIN_SECONDS', 120, 10, 3600, 'shortest generated chapter (speech under 3 minutes may be one shorter chapter)');
const ENRICH_CHAPTER_MAX_SECONDS = integer('ENRICH_CHAPTER_MAX_SECONDS', 1200, 60, 6 * 3600, 'longest generated chapter; at least `ENRICH_CHAPTER_MIN_SECONDS`');

/**
 * Every setting the service, the worker and the scripts read, where it lands in the object
 * `loadConfig` returns. The documentation lists the variables in this order.
 */
export const SCHEMA = {
  // The API process
  port: PORT,
  host: text('HOST', '127.0.0.1', 'interface the API binds to'),
  /** `PUBLIC_BASE_URL`, else `http://localhost:$PORT`. */
  publicBaseUrl: computed([PUBLIC_BASE_URL, PORT], (url, port) => url ?? localBaseUrl(port)),
  logLevel: choice('LOG_LEVEL', 'info', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], 'pino log level'),
  /** Channels without a custom domain live at `<slug>.<baseDomain>`; their URLs use `scheme` and `port`. */
  channelSites: {
    baseDomain: computed([text('CHANNEL_BASE_DOMAIN', 'creators.example.com', 'channel hosts are `<slug>.<domain>` unless the channel has a custom domain')], (domain) =>
      domain.toLowerCase(),
    ),
    scheme: choice('CHANNEL_URL_SCHEME', 'https', ['https', 'http'], "scheme of the channel sites' URLs: episode `url`s, citations, the pages' own links (`http` for a local run)"),
    customDomains: toggle(
      'CHANNEL_CUSTOM_DOMAINS',
      true,
      "`off`: every channel's host is `<slug>.$CHANNEL_BASE_DOMAIN` only, in its URLs and in the hosts served (a local run, a staging copy whose custom domains lead to production)",
    ),
    port: optionalInteger('CHANNEL_URL_PORT', 1, 65535, "port in the channel sites' URLs (a local run: the API's `PORT`)", "unset (the scheme's own)"),
  },
  /** Node's HTTP server timeouts: a client that sends its headers (or its request) too slowly gets a JSON 408. */
  http: {
    headersTimeoutMs: integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000, "a client's headers must arrive within this, else a JSON 408"),
    requestTimeoutMs: integer('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000, 'a whole request must arrive within this, else a JSON 408'),
  },

  // Stores
  /** `OPENSEARCH_URL` normalised and joined again: what the client and child processes take. */
  opensearchUrl: computed([OPENSEARCH_URL], (nodes) => nodes.join(',')),
  /** Each node URL of `OPENSEARCH_URL`; the client spreads requests over them and routes around a dead one. */
  opensearchNodes: OPENSEARCH_URL,
  opensearchTimeoutMs: integer('OPENSEARCH_TIMEOUT_MS', 1500, 100, 600_000, "one request's budget over all its store reads; a store that does not answer in time is a 503"),
  redisUrl: address('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'], 'Redis: the ingest queue and the shared rate-limit counters (a password goes in the URL)'),
  indexPrefix: INDEX_PREFIX,
  /** How each new index is laid out over the nodes. */
  indexLayout: {
    shards: integer('INDEX_SHARDS', 1, 1, 1024, 'primary shards of every index created (ingest, worker, keys, reindex)'),
    replicas: custom(
      'INDEX_REPLICAS',
      { fallback: '0-1', accepts: `count 0–${MAX_REPLICAS}, or a range \`min-max\` (\`max\` a number or \`all\`)` },
      'replicas of every index created; a range follows the number of data nodes (none on one node, one on two or more)',
      readReplicas,
    ),
    vectorSource: choice(
      'INDEX_VECTOR_SOURCE',
      'derived',
      ['derived', 'stored'],
      'where a passages index created from now on keeps its vectors for `_source` reads: `derived` rebuilds them from the vector field (OpenSearch 2.19+), `stored` keeps them in `_source`',
    ),
  },
  queueName: computed(
    [optionalText('QUEUE_NAME', 'BullMQ queue of the indexer', { shown: '`$INDEX_PREFIX` + `ingest`' }), INDEX_PREFIX],
    (name, prefix) => name ?? `${prefix}ingest`,
  ),

  // The model
  modelId: MODEL_ID,
  modelDir: optionalText('MODEL_DIR', 'local model folder holding `<MODEL_ID>/…`; remote loading is off when set', { shown: 'unset (the hub)', accepts: 'folder path' }),
  /** Which embedder makes vectors, and how. */
  embedding: {
    kind: choice(
      'EMBEDDER',
      'local',
      ['local', 'openai'],
      '`local`: Transformers.js in this process (`MODEL_ID`/`MODEL_DIR`); `openai`: an OpenAI-compatible `POST /v1/embeddings` (`EMBEDDINGS_URL`)',
    ),
    pooling: choice('MODEL_POOLING', 'auto', ['auto', 'cls', 'mean'], 'pooling of a local model: `auto` is `cls` for bge models, `mean` for others (sentence-transformers)'),
    queryPrefix: optionalText('MODEL_QUERY_PREFIX', 'text put before every query embedded', { shown: 'the bge instruction for bge models, else none' }),
    passagePrefix: optionalText('MODEL_PASSAGE_PREFIX', 'text put before every passage embedded (e5 models want `passage: `)', { shown: 'none' }),
    remote: {
      url: custom(
        'EMBEDDINGS_URL',
        { shown: 'unset', accepts: 'http or https URL without credentials' },
        'OpenAI-compatible embeddings service (`POST <url>/v1/embeddings`) when `EMBEDDER=openai`',
        readServiceUrl,
      ),
      model: computed(
        [optionalText('EMBEDDINGS_MODEL', 'model named in each embeddings request when `EMBEDDER=openai`', { shown: '`$MODEL_ID`' }), MODEL_ID],
        (model, modelId) => model ?? modelId,
      ),
      apiKey: optionalText('EMBEDDINGS_API_KEY', 'Bearer key of the embeddings service'),
      timeoutMs: integer('EMBEDDINGS_TIMEOUT_MS', 30_000, 100, 600_000, 'longest one embeddings request may take (retried with backoff when transient)'),
    },
  },
  embedBatchSize: integer(
    'EMBED_BATCH_SIZE',
    1,
    1,
    512,
    'texts per model call when indexing (the int8 model quantizes per batch: 1 keeps a vector independent of its batch mates)',
  ),
  embedCacheDir: optionalText('EMBED_CACHE_DIR', 'persistent passage-vector cache, keyed by model and text', { accepts: 'folder path' }),
  /** The API's query embedding: worker processes, queue bound, input cap (see src/embedding/embedder-pool.ts). */
  queryEmbedding: {
    workers: integer('EMBED_QUERY_WORKERS', 1, 1, 64, "worker processes embedding the API's queries (each holds the model, ~150 MB)"),
    maxQueue: integer('EMBED_QUERY_QUEUE', 8, 0, 10_000, 'queries that may wait for a worker; past it a search runs keyword-only (`degraded: "embedder_busy"`)'),
    maxTokens: integer('EMBED_QUERY_MAX_TOKENS', 128, 8, 512, 'longest query embedded, in model tokens; the rest is cut'),
    timeoutMs: integer('EMBED_QUERY_TIMEOUT_MS', 500, 10, 60_000, 'longest a search waits for its query vector; past it, keyword-only'),
    nice: integer('EMBED_QUERY_NICE', 10, 0, 19, "OS nice value of the query-embedding workers; 0 runs them at the API's priority"),
  },

  // Access
  anonymousRead: choice('ANONYMOUS_READ', 'none', ['none', 'published'], '`published`: REST calls without a credential read published episodes'),
  rateLimit: {
    max: integer('RATE_LIMIT_MAX', 600, 1, 10_000_000, 'requests per credential (or per client IP without one) and window'),
    windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400, 'the rate-limit window'),
  },
  failedKeyLookupsPerIp: integer(
    'FAILED_KEY_LOOKUPS_PER_IP',
    30,
    1,
    10_000_000,
    'unknown or revoked API keys one IP may present per window; past it its failing lookups are 429, valid keys still pass',
  ),
  /** Express `trust proxy`: `false` (the socket address is the client), a hop count, or the proxies' addresses and ranges. */
  trustProxy: custom(
    'TRUST_PROXY',
    { fallback: 'false', accepts: `\`false\`, a hop count 0–${MAX_PROXY_HOPS}, or IPs, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}` },
    'Express `trust proxy`: which hops in front may name the client in `X-Forwarded-For` (`true` is refused: any client could forge its address)',
    readTrustProxy,
  ),
  jwt: {
    issuer: optionalText('JWT_ISSUER', 'required `iss` of OAuth access tokens (default: the one authorization server)'),
    audience: optionalText('JWT_AUDIENCE', 'required `aud` of OAuth access tokens (default: `PUBLIC_BASE_URL`)'),
    publicKeyFile: optionalText('JWT_PUBLIC_KEY_FILE', 'RS256/ES256 verification key, a PEM file', { accepts: 'file path' }),
    jwks: custom(
      'JWT_JWKS',
      { shown: 'unset', accepts: 'file path, https URL (http on loopback only)' },
      'verification keys as a JWKS file or URL, chosen by `kid`',
      readJwksSource,
    ),
    jwksMaxStaleSeconds: integer('JWT_JWKS_MAX_STALE_SECONDS', 3600, 0, 7 * 86_400, 'how long JWKS keys keep serving past their cache age while the JWKS URL cannot be fetched'),
    hsSecret: custom(
      'JWT_HS_SECRET',
      { shown: 'unset', accepts: `at least ${MIN_HS_SECRET_BYTES} bytes` },
      'development only: accept HS256 tokens signed with this secret (the API warns at start)',
      readHsSecret,
    ),
    clockSkewSeconds: integer('JWT_CLOCK_SKEW_SECONDS', 30, 0, 600, 'tolerance on `exp` and `nbf`'),
  },
  authorizationServers: custom(
    'OAUTH_AUTHORIZATION_SERVERS',
    { shown: 'empty', accepts: 'comma-separated URLs' },
    'authorization servers advertised in the RFC 9728 metadata document',
    (raw) => list(raw),
  ),
  /** Set when `API_V1_DEPRECATED_AT` is: /api/v1 then sends `Deprecation`, `Sunset` and `Link` headers. */
  deprecation: computed(
    [
      custom('API_V1_DEPRECATED_AT', { shown: 'unset', accepts: 'ISO 8601 date' }, 'marks `/api/v1` deprecated (`Deprecation` header)', readDate),
      custom('API_V1_SUNSET_AT', { shown: 'unset', accepts: 'ISO 8601 date' }, '`Sunset` header of a deprecated `/api/v1`', readDate),
      optionalText('API_V1_SUCCESSOR', '`Link: <…>; rel="successor-version"` of a deprecated `/api/v1`', { accepts: 'URL' }),
    ],
    (deprecatedAt, sunsetAt, successor) => (deprecatedAt ? { deprecatedAt, sunsetAt, successor } : undefined),
  ),

  // Search
  search: {
    fusion: choice('SEARCH_FUSION', 'minmax', ['rrf', 'minmax'], 'how legs are fused: weighted sum of min-max normalized scores, or reciprocal rank fusion'),
    rrfK: decimal('RRF_K', 60, 1, 'reciprocal rank fusion constant (`SEARCH_FUSION=rrf`)'),
    keywordWeight: formerly(decimal('SEARCH_KEYWORD_WEIGHT', 1, 0, 'weight of the keyword leg (either fusion)'), 'RRF_KEYWORD_WEIGHT'),
    semanticWeight: formerly(decimal('SEARCH_SEMANTIC_WEIGHT', 1, 0, 'weight of the semantic leg (either fusion)'), 'RRF_SEMANTIC_WEIGHT'),
    chapterHits: choice(
      'SEARCH_CHAPTER_HITS',
      'lend',
      ['absorb', 'lend', 'keep'],
      'a hit on a long chapter title: `lend` its score to the best passage inside and list it after, `absorb` (the same, chapter dropped), `keep`',
    ),
    candidates: integer('SEARCH_CANDIDATES', 100, 10, 1000, 'candidates each leg contributes before fusion'),
    queryCacheSize: integer('QUERY_VECTOR_CACHE_SIZE', 256, 0, 1_000_000, 'query vectors cached per channel and audience (LRU; 0: off)'),
    queryCacheChannels: integer('QUERY_VECTOR_CACHE_CHANNELS', 64, 1, 1_000_000, "channels with a query-vector cache; past it the least recently searched one's is dropped"),
    hydrationCacheMb: integer(
      'SEARCH_HYDRATION_CACHE_MB',
      DEFAULT_HYDRATION_CACHE_MB,
      0,
      65_536,
      'MB of shown passages and catalog rows kept in the API process, so a search showing them again needs no second round trip (0: off); the qmsum library (18k passages, 235 episodes) would take about 54 MB, analyzer terms included',
    ),
  },
  /** Admission control of searches (see src/http/admission.ts): past it a search is refused with 503 `search_busy`. */
  searchAdmission: {
    concurrency: integer('SEARCH_CONCURRENCY', 4, 1, 10_000, 'searches of callers with a credential running at once in one API process'),
    queue: integer(
      'SEARCH_QUEUE',
      32,
      0,
      10_000,
      'such searches that may wait for a place; past it 503 `search_busy` at once (429 `too_many_searches` for a caller already holding its equal split of the places)',
    ),
    anonymousConcurrency: integer('SEARCH_ANONYMOUS_CONCURRENCY', 2, 1, 10_000, 'anonymous searches (MCP, anonymous REST) running at once, in a share of their own'),
    anonymousQueue: integer('SEARCH_ANONYMOUS_QUEUE', 8, 0, 10_000, 'anonymous searches that may wait for a place of that share'),
    maxWaitMs: integer(
      'SEARCH_QUEUE_WAIT_MS',
      1000,
      1,
      60_000,
      'longest wait for a place, then 503 `search_busy` (429 `too_many_searches` for a caller over its split); the wait of a REST search is not counted in `OPENSEARCH_TIMEOUT_MS`, that of an MCP or page search is',
    ),
  },

  /** The per-channel MCP tool server (`/mcp` on channel hosts, `/channels/{slug}/mcp`). */
  mcp: {
    enabled: toggle('MCP_SERVER', true, '`off`: no MCP tool servers (`/mcp`, `/channels/{slug}/mcp`)'),
    rateLimitMax: integer('MCP_RATE_LIMIT_MAX', 120, 1, 10_000_000, 'MCP requests per client IP and window (its own budget, on top of `RATE_LIMIT_MAX`)'),
    allowedOrigins: custom(
      'MCP_ALLOWED_ORIGINS',
      { shown: 'unset', accepts: 'comma-separated origins `scheme://host[:port]`' },
      'browser origins allowed to call the tool servers besides the channel host and the API host',
      readOrigins,
    ),
  },

  /** The channel pages: their own per-IP budget. */
  pages: {
    rateLimitMax: integer('PAGES_RATE_LIMIT_MAX', 300, 1, 10_000_000, 'page requests (pages, twins, llms.txt) per client IP and window, a budget of their own (decision 20)'),
    rateLimitWindowSeconds: integer('PAGES_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400, 'the window of the page budget'),
  },

  languages: custom(
    'LANGUAGES',
    { fallback: 'en,es,de,fr,pt,it,nl', accepts: 'comma-separated BCP 47 primary subtags' },
    'languages analysed with their own analyzer (stemming, stop words); an episode in another language is analysed with the fallback and the ingest summary says so',
    (raw): readonly string[] => list(raw.toLowerCase()),
  ),

  changes: {
    retentionDays: integer(
      'CHANGES_RETENTION_DAYS',
      30,
      1,
      3650,
      'how long the change feed keeps a change; a cursor older than that is answered 410 `cursor_expired` (re-list the catalog)',
    ),
  },

  /** The keys that seal webhook signing secrets at rest (AES-256-GCM): the worker and `npm run webhooks` need them, the API does not. */
  secrets: {
    key: custom(
      'SECRETS_KEY',
      { shown: 'unset (the worker refuses to start while webhook endpoints exist)', accepts: '32 bytes: 64 hex digits or base64' },
      'seals webhook signing secrets in the store (AES-256-GCM; its id, the first 8 hex digits of its SHA-256, is stored beside each); the worker and `npm run webhooks` need it, the API does not. Make one with `openssl rand -base64 32`',
      readSecretsKey,
    ),
    previousKey: custom(
      'SECRETS_KEY_PREVIOUS',
      { shown: 'unset', accepts: '32 bytes: 64 hex digits or base64' },
      'the key before `SECRETS_KEY`, during a rotation: secrets sealed under it still open, and `npm run webhooks -- rotate-key` re-seals them under `SECRETS_KEY`',
      readSecretsKey,
    ),
  },

  /** Following sources and transcribing their episodes (the pipeline's worker and `npm run follow`). */
  pipeline: {
    libraryDir: text(
      'FOLLOW_LIBRARY_DIR',
      '.cache/follow',
      "where each followed channel's library folder is written (what the pipeline produced, so nothing is transcribed twice): a persistent volume in production",
      { accepts: 'folder path' },
    ),
    pollIntervalSeconds: integer(
      'FOLLOW_POLL_INTERVAL_SECONDS',
      900,
      1,
      7 * 86_400,
      'how often a followed source is polled; errors back off from it, `Retry-After` and `Cache-Control: max-age` can only lengthen it',
    ),
    maxBackoffSeconds: integer('FOLLOW_MAX_BACKOFF_SECONDS', 86_400, 1, 30 * 86_400, 'longest wait between polls of a source that keeps failing'),
    recentDays: integer(
      'FOLLOW_RECENT_DAYS',
      7,
      0,
      3650,
      'an episode published within this many days is `new`: transcribed before any backfill (older episodes), channels taking turns',
    ),
    recentItems: integer('FOLLOW_RECENT_ITEMS', 1, 0, 1000, "the newest this many episodes of each feed are `new` too, however old (a monthly show's latest)"),
    maxItemsPerPoll: integer(
      'FOLLOW_MAX_ITEMS_PER_POLL',
      100,
      1,
      100_000,
      'new items one poll takes from a feed, the newest first; the rest are taken by the next polls (the poll report says how many wait)',
    ),
    maxQueuedPerChannel: integer(
      'FOLLOW_MAX_QUEUED_PER_CHANNEL',
      50,
      1,
      100_000,
      'processing jobs one channel may have queued or running; the rest (its oldest backfill) wait for later polls',
    ),
    userAgent: computed(
      [
        optionalText('FOLLOW_USER_AGENT', 'User-Agent of every outbound request (feeds, transcripts, audio)', { shown: '`CreatorContentAPI/<version> (+$PUBLIC_BASE_URL)`' }),
        PUBLIC_BASE_URL,
        PORT,
      ],
      (agent, url, port) => agent ?? `CreatorContentAPI/${PACKAGE_VERSION} (+${url ?? localBaseUrl(port)})`,
    ),
    allowPrivate: toggle('OUTBOUND_ALLOW_PRIVATE', false, '`true`: outbound fetches may reach loopback, private and link-local addresses (tests and local demos only)', [
      'true',
      'false',
    ]),
    audioMaxBytes: integer('AUDIO_MAX_BYTES', 1024 ** 3, 1024, 64 * 1024 ** 3, 'largest audio file fetched for transcription (decoded bytes counted while streaming)'),
    audioMaxSeconds: integer('AUDIO_MAX_SECONDS', 6 * 3600, 1, 48 * 3600, 'longest audio transcribed'),
    audioMinBytesPerSecond: integer(
      'AUDIO_MIN_BYTES_PER_SECOND',
      16 * 1024,
      0,
      1024 ** 3,
      'slowest audio download kept (averaged over `AUDIO_RATE_WINDOW_SECONDS`, from the request on); a slower host fails the episode without a retry. `0`: no floor',
    ),
    audioRateWindowSeconds: integer('AUDIO_RATE_WINDOW_SECONDS', 60, 1, 3600, 'the window the audio download rate floor is measured over'),
    transcribe: {
      /** The first service (what NER_URL defaults to). */
      url: computed([TRANSCRIBE_URL], (urls) => urls?.[0]),
      /** Every service, in the order given (empty: none). */
      urls: computed([TRANSCRIBE_URL], (urls) => urls ?? []),
      model: text('TRANSCRIBE_MODEL', 'base', 'model named in each transcription request (`whisper-1` for OpenAI; the local service serves its own model whatever is asked)'),
      apiKey: optionalText('TRANSCRIBE_API_KEY', 'Bearer key of a remote transcription service'),
      maxUploadBytes: integer(
        'TRANSCRIBE_MAX_UPLOAD_BYTES',
        24 * 1024 ** 2,
        64 * 1024,
        1024 ** 3,
        'largest audio piece sent in one request; longer audio is cut at silences (OpenAI refuses more than 25 MB)',
      ),
      timeoutMs: integer('TRANSCRIBE_TIMEOUT_MS', 30 * 60_000, 1000, 6 * 3_600_000, 'longest one transcription request may take'),
      concurrency: integer(
        'TRANSCRIBE_CONCURRENCY',
        1,
        1,
        64,
        'requests at once on each transcription service from one worker; the worker processes this many episodes at once per service in `TRANSCRIBE_URL`',
      ),
    },
  },

  /** Enrichment: chapters, typed key moments, topics, people and entities generated for episodes that have none (issue 41). */
  enrich: {
    enabled: toggle('ENRICH', true, '`off`: the follow pipeline publishes transcribed episodes without generated chapters, moments, topics and entities'),
    chapterMinMs: computed([ENRICH_CHAPTER_MIN_SECONDS], (seconds) => seconds * 1000),
    chapterMaxMs: computed([ENRICH_CHAPTER_MAX_SECONDS, ENRICH_CHAPTER_MIN_SECONDS], (max, min) => {
      if (max < min) throw new ConfigError('ENRICH_CHAPTER_MAX_SECONDS', `expected at least ENRICH_CHAPTER_MIN_SECONDS (${min}), got ${max}`);
      return max * 1000;
    }),
    /** The language model's service; unset: the local method's titles and claims stay. */
    url: ENRICH_URL,
    model: optionalText('ENRICH_MODEL', 'model named in each chat request (Ollama and hosted services need one)', { shown: "unset (none sent: the server's own)" }),
    apiKey: computed([optionalText('ENRICH_API_KEY', 'Bearer key of the chat service (https, or http on loopback only)'), ENRICH_URL], (key, url) =>
      checkKeyTransport(key, url, 'ENRICH_API_KEY'),
    ),
    timeoutMs: integer(
      'ENRICH_TIMEOUT_MS',
      60_000,
      100,
      600_000,
      "longest the chat service may take over one chapter; past it that chapter keeps the local method's title and claims",
    ),
    /** Named-entity recognition (`POST <url>/v1/entities`); `NER_URL`, else `TRANSCRIBE_URL`'s service; unset: no people or entities. */
    nerUrl: computed(
      [
        custom(
          'NER_URL',
          { shown: '`$TRANSCRIBE_URL` (its first service), else unset (no people or entities)', accepts: 'http or https URL without credentials' },
          'named-entity recognition service (`POST <url>/v1/entities`): people and companies/products of generated episodes',
          readServiceUrl,
        ),
        TRANSCRIBE_URL,
      ],
      (ner, transcribe) => ner ?? transcribe?.[0]?.replace(/\/+$/, ''),
    ),
  },

  /** Prometheus `/metrics` listeners, off the public API port; the API and the worker each have their own. */
  metrics: {
    host: text('METRICS_HOST', '127.0.0.1', 'interface of the `/metrics` listeners'),
    apiPort: optionalInteger('METRICS_PORT', 0, 65535, "port of the API's `/metrics` listener", 'unset (none)'),
    workerPort: optionalInteger('WORKER_METRICS_PORT', 0, 65535, "port of the worker's `/metrics` listener (`npm run worker -- --metrics-port` overrides it)", 'unset (none)'),
  },

  /** Snapshots of every index of `INDEX_PREFIX` (`npm run backup`, `npm run restore`, the worker's schedule). */
  backup: {
    repository: text(
      'BACKUP_REPOSITORY',
      'cca-backups',
      'OpenSearch snapshot repository the backups go to (registered as `fs` at `BACKUP_LOCATION` when missing; an S3 one is registered by the operator)',
    ),
    location: text('BACKUP_LOCATION', 'cca-backups', "folder of a file-system repository, relative to the nodes' `path.repo` (or absolute inside it)", { accepts: 'folder path' }),
    keep: integer('BACKUP_KEEP', 7, 1, 1000, 'good backups of the prefix kept; older ones are deleted after each good one'),
    every: custom(
      'BACKUP_EVERY',
      { shown: 'unset (no scheduled backup)', accepts: 'an interval (`30m`, `6h`, `1d`) or a cron pattern (`0 3 * * *`)' },
      "the worker's backup schedule (a BullMQ Job Scheduler); unset: backups only by `npm run backup`",
      readBackupEvery,
    ),
  },
} satisfies Schema;

/** Every variable, by name, in the order of the documentation. */
export const ENV: ReadonlyMap<string, Setting<unknown>> = settingsOf(SCHEMA);

/** The configuration table of docs/configuration.md, from the declarations. */
export function configurationTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const formerNames = (setting: Setting<unknown>) =>
    (setting.aliases ?? []).map((alias) => `; \`${alias}\`, its deprecated former name, is read when this is unset (until the next release)`).join('');
  const rows = [...ENV.values()].map(
    (setting) => `| \`${setting.name}\` | ${cell(setting.shown)} | ${cell(setting.accepts)} | ${cell(setting.description + formerNames(setting))} |`,
  );
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
