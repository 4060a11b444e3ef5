// Every environment variable, declared once: its kind, default, range and meaning. loadConfig reads through it; docs/configuration.md is generated from it.
import {
  ConfigError,
  address,
  addressList,
  choice,
  custom,
  decimal,
  integer,
  isAddressOrRange,
  optionalInteger,
  optionalText,
  readDate,
  readJwksSource,
  readOrigins,
  text,
  type VarSpec,
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

/**
 * Default size of the hydration cache: the qmsum library (18k passages, 235 episodes)
 * would take about 54 MB (the 9k its dev queries show took 27 MB, their analyzer terms
 * included), so a library of that size is served from memory once searched.
 */
export const DEFAULT_HYDRATION_CACHE_MB = 64;

function readTrustProxy(raw: string | undefined, name: string): TrustProxy {
  if (raw === undefined || raw === 'false') return false;
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
function readReplicas(raw: string | undefined, name: string): number | string {
  if (raw === undefined) return '0-1';
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

function readIndexPrefix(raw: string | undefined, name: string): string {
  const prefix = raw ?? 'cca-';
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(prefix)) throw new ConfigError(name, `expected lowercase letters, digits, "-", "_" or ".", got "${prefix}"`);
  return prefix;
}

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const HTTP = ['http:', 'https:'] as const;

/** The variables, grouped as the documentation shows them. */
export const ENV = {
  // The API process
  PORT: integer(8080, 0, 65535, 'HTTP port of the API'),
  HOST: text('127.0.0.1', 'interface the API binds to'),
  PUBLIC_BASE_URL: address(
    undefined,
    HTTP,
    'base URL the API is reached at: the 401 challenge, the OAuth metadata document, the default token audience',
    '`http://localhost:$PORT`',
  ),
  LOG_LEVEL: choice('info', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], 'pino log level'),
  CHANNEL_BASE_DOMAIN: text('creators.example.com', 'channel hosts are `<slug>.<domain>` unless the channel has a custom domain'),
  CHANNEL_URL_SCHEME: choice('https', ['https', 'http'], "scheme of the channel sites' URLs: episode `url`s, citations, the pages' own links (`http` for a local run)"),
  CHANNEL_CUSTOM_DOMAINS: choice(
    'on',
    ['on', 'off'],
    "`off`: every channel's host is `<slug>.$CHANNEL_BASE_DOMAIN` only, in its URLs and in the hosts served (a local run, a staging copy whose custom domains lead to production)",
  ),
  CHANNEL_URL_PORT: optionalInteger(1, 65535, "port in the channel sites' URLs (a local run: the API's `PORT`)", "unset (the scheme's own)"),
  HTTP_HEADERS_TIMEOUT_MS: integer(10_000, 100, 600_000, "a client's headers must arrive within this, else a JSON 408"),
  HTTP_REQUEST_TIMEOUT_MS: integer(30_000, 100, 3_600_000, 'a whole request must arrive within this, else a JSON 408'),
  // Stores
  OPENSEARCH_URL: addressList(
    'http://127.0.0.1:9200',
    HTTP,
    'OpenSearch node, or several comma-separated: requests are spread over them, and one a node refuses or drops goes to the next',
  ),
  OPENSEARCH_TIMEOUT_MS: integer(1500, 100, 600_000, "one request's budget over all its store reads; a store that does not answer in time is a 503"),
  REDIS_URL: address('redis://127.0.0.1:6379', ['redis:', 'rediss:'], 'Redis: the ingest queue and the shared rate-limit counters (a password goes in the URL)'),
  INDEX_PREFIX: custom('`cca-`', 'lowercase letters, digits, `-`, `_`, `.`', 'prefix of every index, alias and queue name', readIndexPrefix),
  INDEX_SHARDS: integer(1, 1, 1024, 'primary shards of every index created (ingest, worker, keys, reindex)'),
  INDEX_REPLICAS: custom(
    '`0-1`',
    `count 0–${MAX_REPLICAS}, or a range \`min-max\` (\`max\` a number or \`all\`)`,
    'replicas of every index created; a range follows the number of data nodes (none on one node, one on two or more)',
    readReplicas,
  ),
  INDEX_VECTOR_SOURCE: choice(
    'derived',
    ['derived', 'stored'],
    'where a passages index created from now on keeps its vectors for `_source` reads: `derived` rebuilds them from the vector field (OpenSearch 2.19+), `stored` keeps them in `_source`',
  ),
  QUEUE_NAME: optionalText('BullMQ queue of the indexer', { shown: '`$INDEX_PREFIX` + `ingest`' }),
  // The model
  MODEL_ID: text('Xenova/bge-small-en-v1.5', 'embedding model (model hub id)'),
  MODEL_DIR: optionalText('local model folder holding `<MODEL_ID>/…`; remote loading is off when set', { shown: 'unset (the hub)', accepts: 'folder path' }),
  EMBEDDER: choice(
    'local',
    ['local', 'openai'],
    '`local`: Transformers.js in this process (`MODEL_ID`/`MODEL_DIR`); `openai`: an OpenAI-compatible `POST /v1/embeddings` (`EMBEDDINGS_URL`)',
  ),
  MODEL_POOLING: choice('auto', ['auto', 'cls', 'mean'], 'pooling of a local model: `auto` is `cls` for bge models, `mean` for others (sentence-transformers)'),
  MODEL_QUERY_PREFIX: optionalText('text put before every query embedded', { shown: 'the bge instruction for bge models, else none' }),
  MODEL_PASSAGE_PREFIX: optionalText('text put before every passage embedded (e5 models want `passage: `)', { shown: 'none' }),
  EMBEDDINGS_URL: optionalText('OpenAI-compatible embeddings service (`POST <url>/v1/embeddings`) when `EMBEDDER=openai`', { accepts: 'URL' }),
  EMBEDDINGS_MODEL: optionalText('model named in each embeddings request when `EMBEDDER=openai`', { shown: '`$MODEL_ID`' }),
  EMBEDDINGS_API_KEY: optionalText('Bearer key of the embeddings service'),
  EMBEDDINGS_TIMEOUT_MS: integer(30_000, 100, 600_000, 'longest one embeddings request may take (retried with backoff when transient)'),
  EMBED_BATCH_SIZE: integer(1, 1, 512, 'texts per model call when indexing (the int8 model quantizes per batch: 1 keeps a vector independent of its batch mates)'),
  EMBED_CACHE_DIR: optionalText('persistent passage-vector cache, keyed by model and text', { accepts: 'folder path' }),
  EMBED_QUERY_WORKERS: integer(1, 1, 64, "worker processes embedding the API's queries (each holds the model, ~150 MB)"),
  EMBED_QUERY_QUEUE: integer(8, 0, 10_000, 'queries that may wait for a worker; past it a search runs keyword-only (`degraded: "embedder_busy"`)'),
  EMBED_QUERY_MAX_TOKENS: integer(128, 8, 512, 'longest query embedded, in model tokens; the rest is cut'),
  EMBED_QUERY_TIMEOUT_MS: integer(500, 10, 60_000, 'longest a search waits for its query vector; past it, keyword-only'),
  EMBED_QUERY_NICE: integer(10, 0, 19, "OS nice value of the query-embedding workers; 0 runs them at the API's priority"),
  // Access
  ANONYMOUS_READ: choice('none', ['none', 'published'], '`published`: REST calls without a credential read published episodes'),
  RATE_LIMIT_MAX: integer(600, 1, 10_000_000, 'requests per credential (or per client IP without one) and window'),
  RATE_LIMIT_WINDOW_SECONDS: integer(60, 1, 86_400, 'the rate-limit window'),
  FAILED_KEY_LOOKUPS_PER_IP: integer(30, 1, 10_000_000, 'unknown or revoked API keys one IP may present per window; past it its failing lookups are 429, valid keys still pass'),
  TRUST_PROXY: custom(
    '`false`',
    `\`false\`, a hop count 0–${MAX_PROXY_HOPS}, or IPs, CIDR ranges, ${TRUST_PROXY_NAMES.join(', ')}`,
    'Express `trust proxy`: which hops in front may name the client in `X-Forwarded-For` (`true` is refused: any client could forge its address)',
    readTrustProxy,
  ),
  JWT_ISSUER: optionalText('required `iss` of OAuth access tokens (default: the one authorization server)'),
  JWT_AUDIENCE: optionalText('required `aud` of OAuth access tokens (default: `PUBLIC_BASE_URL`)'),
  JWT_PUBLIC_KEY_FILE: optionalText('RS256/ES256 verification key, a PEM file', { accepts: 'file path' }),
  JWT_JWKS: custom('unset', 'file path, https URL (http on loopback only)', 'verification keys as a JWKS file or URL, chosen by `kid`', readJwksSource),
  JWT_JWKS_MAX_STALE_SECONDS: integer(3600, 0, 7 * 86_400, 'how long JWKS keys keep serving past their cache age while the JWKS URL cannot be fetched'),
  JWT_HS_SECRET: custom('unset', `at least ${MIN_HS_SECRET_BYTES} bytes`, 'development only: accept HS256 tokens signed with this secret (the API warns at start)', readHsSecret),
  JWT_CLOCK_SKEW_SECONDS: integer(30, 0, 600, 'tolerance on `exp` and `nbf`'),
  OAUTH_AUTHORIZATION_SERVERS: custom('empty', 'comma-separated URLs', 'authorization servers advertised in the RFC 9728 metadata document', (raw) => list(raw)),
  API_V1_DEPRECATED_AT: custom('unset', 'ISO 8601 date', 'marks `/api/v1` deprecated (`Deprecation` header)', readDate),
  API_V1_SUNSET_AT: custom('unset', 'ISO 8601 date', '`Sunset` header of a deprecated `/api/v1`', readDate),
  API_V1_SUCCESSOR: optionalText('`Link: <…>; rel="successor-version"` of a deprecated `/api/v1`', { accepts: 'URL' }),
  // Search
  SEARCH_FUSION: choice('minmax', ['rrf', 'minmax', 'zscore'], 'how legs are fused: weighted sum of min-max or z-score normalized scores, or reciprocal rank fusion'),
  RRF_K: decimal(60, 1, 'reciprocal rank fusion constant (`SEARCH_FUSION=rrf`)'),
  RRF_KEYWORD_WEIGHT: decimal(1, 0, 'weight of the keyword leg (either fusion)'),
  RRF_SEMANTIC_WEIGHT: decimal(1, 0, 'weight of the semantic leg (either fusion)'),
  SEARCH_CHAPTER_HITS: choice(
    'lend',
    ['absorb', 'lend', 'keep'],
    'a hit on a long chapter title: `lend` its score to the best passage inside and list it after, `absorb` (the same, chapter dropped), `keep`',
  ),
  SEARCH_CANDIDATES: integer(100, 10, 1000, 'candidates each leg contributes before fusion'),
  QUERY_VECTOR_CACHE_SIZE: integer(256, 0, 1_000_000, 'query vectors cached per channel and audience (LRU; 0: off)'),
  QUERY_VECTOR_CACHE_CHANNELS: integer(64, 1, 1_000_000, "channels with a query-vector cache; past it the least recently searched one's is dropped"),
  SEARCH_HYDRATION_CACHE_MB: integer(
    DEFAULT_HYDRATION_CACHE_MB,
    0,
    65_536,
    'MB of shown passages and catalog rows kept in the API process, so a search showing them again needs no second round trip (0: off)',
  ),
  SEARCH_CONCURRENCY: integer(4, 1, 10_000, 'searches of callers with a credential running at once in one API process'),
  SEARCH_QUEUE: integer(
    32,
    0,
    10_000,
    'such searches that may wait for a place; past it 503 `search_busy` at once (429 `too_many_searches` for a caller already holding its equal split of the places)',
  ),
  SEARCH_ANONYMOUS_CONCURRENCY: integer(2, 1, 10_000, 'anonymous searches (MCP, anonymous REST) running at once, in a share of their own'),
  SEARCH_ANONYMOUS_QUEUE: integer(8, 0, 10_000, 'anonymous searches that may wait for a place of that share'),
  SEARCH_QUEUE_WAIT_MS: integer(
    1000,
    1,
    60_000,
    'longest wait for a place, then 503 `search_busy` (429 `too_many_searches` for a caller over its split); the wait of a REST search is not counted in `OPENSEARCH_TIMEOUT_MS`, that of an MCP or page search is',
  ),
  // MCP
  MCP_SERVER: choice('on', ['on', 'off'], '`off`: no MCP tool servers (`/mcp`, `/channels/{slug}/mcp`)'),
  MCP_RATE_LIMIT_MAX: integer(120, 1, 10_000_000, 'MCP requests per client IP and window (its own budget, on top of `RATE_LIMIT_MAX`)'),
  MCP_ALLOWED_ORIGINS: custom(
    'unset',
    'comma-separated origins `scheme://host[:port]`',
    'browser origins allowed to call the tool servers besides the channel host and the API host',
    readOrigins,
  ),
  // Channel pages
  PAGES_RATE_LIMIT_MAX: integer(300, 1, 10_000_000, 'page requests (pages, twins, llms.txt) per client IP and window, a budget of their own (decision 20)'),
  PAGES_RATE_LIMIT_WINDOW_SECONDS: integer(60, 1, 86_400, 'the window of the page budget'),
  // Languages
  LANGUAGES: custom(
    '`en,es,de,fr,pt,it,nl`',
    'comma-separated BCP 47 primary subtags',
    'languages analysed with their own analyzer (stemming, stop words); an episode in another language is analysed with the fallback and the ingest summary says so',
    (raw) =>
      (raw ?? 'en,es,de,fr,pt,it,nl')
        .split(',')
        .map((l) => l.trim().toLowerCase())
        .filter(Boolean),
  ),
  // Change feed
  CHANGES_RETENTION_DAYS: integer(30, 1, 3650, 'how long the change feed keeps a change; a cursor older than that is answered 410 `cursor_expired` (re-list the catalog)'),
  // Following feeds and transcribing
  FOLLOW_LIBRARY_DIR: optionalText(
    "where each followed channel's library folder is written (what the pipeline produced, so nothing is transcribed twice): a persistent volume in production",
    {
      shown: '`.cache/follow`',
      accepts: 'folder path',
    },
  ),
  FOLLOW_POLL_INTERVAL_SECONDS: integer(
    900,
    1,
    7 * 86_400,
    'how often a followed source is polled; errors back off from it, `Retry-After` and `Cache-Control: max-age` can only lengthen it',
  ),
  FOLLOW_MAX_BACKOFF_SECONDS: integer(86_400, 1, 30 * 86_400, 'longest wait between polls of a source that keeps failing'),
  FOLLOW_USER_AGENT: optionalText('User-Agent of every outbound request (feeds, transcripts, audio)', { shown: '`CreatorContentAPI/<version> (+$PUBLIC_BASE_URL)`' }),
  OUTBOUND_ALLOW_PRIVATE: choice('false', ['false', 'true'], '`true`: outbound fetches may reach loopback, private and link-local addresses (tests and local demos only)'),
  AUDIO_MAX_BYTES: integer(1024 ** 3, 1024, 64 * 1024 ** 3, 'largest audio file fetched for transcription (decoded bytes counted while streaming)'),
  AUDIO_MAX_SECONDS: integer(6 * 3600, 1, 48 * 3600, 'longest audio transcribed'),
  TRANSCRIBE_URL: optionalText('OpenAI-compatible transcription service (`POST <url>/v1/audio/transcriptions`); `npm run services -- up` starts the local one and prints its URL', {
    shown: 'unset (episodes without a transcript in their source fail: nothing transcribes them)',
    accepts: 'URL',
  }),
  TRANSCRIBE_MODEL: text('base', 'model named in each transcription request (`whisper-1` for OpenAI; the local service serves its own model whatever is asked)'),
  TRANSCRIBE_API_KEY: optionalText('Bearer key of a remote transcription service'),
  TRANSCRIBE_MAX_UPLOAD_BYTES: integer(
    24 * 1024 ** 2,
    64 * 1024,
    1024 ** 3,
    'largest audio piece sent in one request; longer audio is cut at silences (OpenAI refuses more than 25 MB)',
  ),
  TRANSCRIBE_TIMEOUT_MS: integer(30 * 60_000, 1000, 6 * 3_600_000, 'longest one transcription request may take'),
  TRANSCRIBE_CONCURRENCY: integer(1, 1, 64, 'episodes transcribed at once by one worker'),
  // Metrics
  METRICS_HOST: text('127.0.0.1', 'interface of the `/metrics` listeners'),
  METRICS_PORT: optionalInteger(0, 65535, "port of the API's `/metrics` listener", 'unset (none)'),
  WORKER_METRICS_PORT: optionalInteger(0, 65535, "port of the worker's `/metrics` listener (`npm run worker -- --metrics-port` overrides it)", 'unset (none)'),
} satisfies Record<string, VarSpec<unknown>>;

export type EnvName = keyof typeof ENV;

/** Every variable read: the value of each name, typed by its declaration. */
export type EnvValues = { [K in EnvName]: ReturnType<(typeof ENV)[K]['read']> };

/** Reads every declared variable from `env`; throws a ConfigError naming the first bad one. */
export function readEnv(env: Record<string, string | undefined>): EnvValues {
  const values = {} as Record<string, unknown>;
  for (const [name, spec] of Object.entries(ENV) as [EnvName, VarSpec<unknown>][]) values[name] = spec.read(env[name], name);
  return values as EnvValues;
}

/** The configuration table of docs/configuration.md, from the declarations. */
export function configurationTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = (Object.entries(ENV) as [EnvName, VarSpec<unknown>][]).map(
    ([name, spec]) => `| \`${name}\` | ${cell(spec.shown)} | ${cell(spec.accepts)} | ${cell(spec.description)} |`,
  );
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
