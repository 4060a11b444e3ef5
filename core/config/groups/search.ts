// Search and what serves it: tuning, admission, MCP, the pages, the languages analysed.
import { choice, custom, decimal, integer, readOrigins, toggle } from '../values.js';
import { formerly, type Schema } from '../tree.js';
import { DEFAULT_HYDRATION_CACHE_MB, list } from '../readers.js';

export const SEARCH = {
  // Search
  search: {
    fusion: choice('SEARCH_FUSION', 'minmax', ['rrf', 'minmax'], 'how legs are fused: weighted sum of min-max normalized scores, or reciprocal rank fusion'),
    rrfK: decimal('RRF_K', 60, 1, 'reciprocal rank fusion constant (`SEARCH_FUSION=rrf`)'),
    keywordWeight: formerly(decimal('SEARCH_KEYWORD_WEIGHT', 1, 0, 'weight of the keyword leg (either fusion)'), 'RRF_KEYWORD_WEIGHT'),
    semanticWeight: formerly(decimal('SEARCH_SEMANTIC_WEIGHT', 1, 0, 'weight of the semantic leg (either fusion)'), 'RRF_SEMANTIC_WEIGHT'),
    episodeWeight: decimal(
      'SEARCH_EPISODE_WEIGHT',
      0.3,
      0,
      'weight of the episode leg (BM25 over the whole speech of each episode of 20 minutes or more), added to the score of the episodes the other legs found (either fusion; 0: off)',
    ),
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
} satisfies Schema;
