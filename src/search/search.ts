// Hybrid search of one channel: build the legs, one `_msearch`, fuse, group, hydrate, cite.
import type { Config } from '../config.js';
import type { Embedder } from '../embedder.js';
import { EmbedderUnavailableError } from '../embedder-pool.js';
import type { ChannelSites } from '../channel-urls.js';
import type { ChannelDoc } from '../store/documents.js';
import type { Client, IndexAliases } from '../store/opensearch.js';
import { convexFusion, reciprocalRankFusion, type ScoreNormalization } from './fusion.js';
import { absorbChapterHits, groupByEpisode } from './group.js';
import { planHydration } from './hydrate.js';
import { defaultHydrationCache, type HydrationCache } from './hydration-cache.js';
import { buildKeywordQuery, type KeywordQueryOptions } from './keyword-query.js';
import { buildKnnQuery } from './knn-query.js';
import type { LandingOptions } from './landing.js';
import { runMsearch, toEpisodeHits, toPassageHits, type RawHit, type SearchRequest } from './msearch.js';
import { defaultQueryCache, type QueryVectorCache } from './query-cache.js';
import { boundQueryTerms } from './query-terms.js';
import { toSearchResult } from './result.js';
import type { EpisodeGroup, FusedHit, Leg, LegName, SearchParams, SearchResult } from './types.js';

/**
 * Weight of the title leg relative to the keyword weight. The leg exists so that an
 * episode whose catalog row matches is found even when no passage does; as a ranking
 * signal it is coarse (a whole episode, generic summary words), and at full weight it
 * pushed episodes ahead of the ones holding the cited moment: on the qmsum dev queries
 * nDCG@10 went from 0.50 (weight 1) to 0.55 (0.1).
 */
export const TITLE_WEIGHT_RATIO = 0.1;

/** What a search needs, made once per process and passed in. */
export interface SearchDeps {
  client: Client;
  /** Undefined when the deployment runs without a model: every search is then keyword-only. */
  embedder: Embedder | undefined;
  aliases: IndexAliases;
  settings: Config['search'];
  channelSites: ChannelSites;
  /** Defaults to one process-wide cache per embedder, sized by `settings.queryCacheSize`. */
  queryCache?: QueryVectorCache;
  /** Defaults to one process-wide cache per client, sized by `settings.hydrationCacheMb`. */
  hydrationCache?: HydrationCache;
  /**
   * Time left of the request's store budget, asked before each round trip (throws when it
   * is spent), so a search's two round trips share one budget. Default: the client's timeout each.
   */
  storeTimeoutMs?: () => number;
  /** Aborts the search when its caller has gone (the client disconnected): the round trip in flight is cancelled and no other starts. */
  signal?: AbortSignal | undefined;
  /**
   * Who is searching: the channel's `members` (a credential let in) or `anonymous` callers.
   * Query vectors are cached per channel and audience, so no caller can time another
   * audience's queries. Default `members` (the harness and benchmarks).
   */
  audience?: 'members' | 'anonymous';
  /** LANGUAGES: the languages searched in sub-fields of their own (see `buildKeywordQuery`); default `en,es,de,fr,pt,it,nl`. */
  languages?: readonly string[];
}

/**
 * Why a search that asked for the semantic leg ran keyword-only: `embedder_busy` (every
 * embedder worker busy and its queue full) or `embedder_failed` (the model failed on the query).
 */
export type DegradedReason = 'embedder_busy' | 'embedder_failed';

/** The API's search answer: the result, plus `degraded` when the semantic leg was skipped. */
export type SearchAnswer = SearchResult & { degraded?: DegradedReason };

/**
 * Tuning knobs beyond the public parameters, for the relevance harness, the playground
 * and the benchmark. Every one defaults to the configured behaviour.
 */
export interface SearchOptions {
  /** Passage legs to run. `keyword` brings the title leg with it. Default both (`fast`: keyword). */
  legs?: readonly ('keyword' | 'semantic')[];
  rrfK?: number;
  /** How legs are fused: reciprocal rank fusion, or a weighted sum of min-max or z-score normalized scores. */
  fusion?: 'rrf' | ScoreNormalization;
  /** Per-leg fusion weights (either kind); `title` defaults to {@link TITLE_WEIGHT_RATIO} × the keyword weight. */
  weights?: Partial<Record<LegName, number>>;
  /** Passages each leg contributes (and k of k-NN). */
  candidates?: number;
  /** Fetch passage text with every leg's hits (the playground shows them); slower. */
  withText?: boolean;
  keyword?: KeywordQueryOptions;
  episodeScore?: 'max' | 'sum';
  /**
   * Chapter-title hits: `absorb` hands their score to the best speech passage inside the
   * chapter and drops them, `lend` hands it over and keeps them after that passage, `keep`
   * leaves them alone (cited at the chapter start). See `absorbChapterHits`.
   */
  chapterHits?: 'absorb' | 'lend' | 'keep';
  /** Chapters longer than this (ms) are handed over; default `LONG_CHAPTER_MS`. */
  longChapterMs?: number;
  /** Weight of an episode's further passages in its score (see `groupByEpisode`). */
  support?: number;
  maxSegments?: number;
  /** Where citations begin; `{ off: true }` cites passage starts (the eval's before/after). */
  landing?: LandingOptions;
}

/** Everything a search saw on its way, for the playground and the benchmark. */
export interface SearchTrace {
  legs: Leg[];
  fused: FusedHit[];
  groups: EpisodeGroup[];
  /** The first round trip, as sent (vectors included). */
  searches: SearchRequest[];
  embedded: boolean;
  timings: { embedMs: number; msearchMs: number; hydrateMs: number; totalMs: number };
  /** Passages and catalog rows shown: from the hydration cache, and read from the store (0 of them: no second round trip). */
  hydration: { cached: number; fetched: number };
}

/** Searches one channel: the function the API's search route calls. */
export async function searchChannel(deps: SearchDeps, channel: ChannelDoc, params: SearchParams): Promise<SearchAnswer> {
  return (await runSearch(deps, channel, params)).result;
}

/** {@link searchChannel} with tuning options, returning the trace as well. */
export async function runSearch(deps: SearchDeps, channel: ChannelDoc, params: SearchParams, options: SearchOptions = {}): Promise<{ result: SearchAnswer; trace: SearchTrace }> {
  const started = performance.now();
  const query = params.query.trim();
  const trace: SearchTrace = {
    legs: [],
    fused: [],
    groups: [],
    searches: [],
    embedded: false,
    timings: { embedMs: 0, msearchMs: 0, hydrateMs: 0, totalMs: 0 },
    hydration: { cached: 0, fetched: 0 },
  };
  if (query === '') return { result: { query: '', episodes: [] }, trace };
  // The engine gets a bounded copy of the words (its clause limit); the answer echoes the query as asked.
  const p: SearchParams = { ...params, query: boundQueryTerms(query) };
  const { settings } = deps;
  const candidates = options.candidates ?? settings.candidates;
  const wanted = new Set(options.legs ?? (params.fast ? ['keyword'] : ['keyword', 'semantic']));
  if (params.fast) wanted.delete('semantic');
  if (!deps.embedder) wanted.delete('semantic');

  // 1. Build the legs; the semantic leg needs the query vector first.
  const searches: SearchRequest[] = [];
  const readers: Array<(hits: RawHit[]) => Leg> = [];
  if (wanted.has('keyword')) {
    const languages = deps.languages ? { languages: deps.languages } : {};
    const kw = buildKeywordQuery(p, channel, { candidates }, { ...languages, ...options.keyword, withText: options.withText });
    searches.push({ index: deps.aliases.passages, body: kw.passages }, { index: deps.aliases.episodes, body: kw.episodes });
    readers.push(
      (h) => ({ name: 'keyword', hits: toPassageHits(h) }),
      (h) => ({ name: 'title', hits: toEpisodeHits(h) }),
    );
  }
  let degraded: DegradedReason | undefined;
  if (wanted.has('semantic') && deps.embedder) {
    const t = performance.now();
    const cache = deps.queryCache ?? defaultQueryCache(deps.embedder, settings.queryCacheSize, settings.queryCacheChannels);
    // Scoped by channel: no caller can time whether another channel searched this text.
    const vector = await cache.embed(deps.embedder, query, `${channel.id}\u0000${deps.audience ?? 'members'}`).catch((error: unknown) => {
      // Embedder workers saturated or failing: answer keyword-only, and say so, rather than queue or fail.
      if (!(error instanceof EmbedderUnavailableError)) throw error;
      degraded = error.reason === 'busy' ? 'embedder_busy' : 'embedder_failed';
      return undefined;
    });
    trace.embedded = vector !== undefined;
    trace.timings.embedMs = performance.now() - t;
    if (vector) {
      searches.push({ index: deps.aliases.passages, body: buildKnnQuery(vector, p, channel, candidates, { withText: options.withText }) });
      readers.push((h) => ({ name: 'semantic', hits: toPassageHits(h) }));
    }
  }
  trace.searches = searches;

  // 2. One round trip for every leg.
  let t = performance.now();
  const answers = await runMsearch(deps.client, searches, deps.storeTimeoutMs?.(), deps.signal);
  trace.timings.msearchMs = performance.now() - t;
  trace.legs = readers.map((read, i) => read(answers[i] ?? []));

  // 3. Fuse and group: pure.
  const fusion = {
    k: options.rrfK ?? settings.rrfK,
    weights: {
      keyword: settings.keywordWeight,
      semantic: settings.semanticWeight,
      title: TITLE_WEIGHT_RATIO * (options.weights?.keyword ?? settings.keywordWeight),
      ...options.weights,
    },
  };
  const method = options.fusion ?? settings.fusion;
  trace.fused = method === 'rrf' ? reciprocalRankFusion(trace.legs, fusion) : convexFusion(trace.legs, { normalization: method, weights: fusion.weights });
  const chapterHits = options.chapterHits ?? settings.chapterHits;
  if (chapterHits !== 'keep') trace.fused = absorbChapterHits(trace.fused, { keepChapters: chapterHits === 'lend', minSpanMs: options.longChapterMs });
  trace.groups = groupByEpisode(trace.fused, p.limit, options.maxSegments ?? 3, { episodeScore: options.episodeScore, support: options.support });

  // 4. Text of the passages shown, catalog rows, a citation for title-only episodes: the second and last round trip, for what the cache lacks.
  const cache = deps.hydrationCache ?? defaultHydrationCache(deps.client, settings.hydrationCacheMb);
  const plan = planHydration(deps.aliases, p, channel, trace.groups, {
    passageFields: options.keyword?.passageFields,
    cache,
    ...(deps.languages ? { languages: deps.languages } : {}),
  });
  trace.hydration = plan.counts;
  t = performance.now();
  const hydrated = plan.read(await runMsearch(deps.client, plan.searches, deps.storeTimeoutMs?.(), deps.signal));
  trace.timings.hydrateMs = performance.now() - t;

  const result = toSearchResult({
    query,
    groups: trace.groups,
    ...hydrated,
    channel,
    channelSites: deps.channelSites,
    landing: options.landing,
  });
  trace.timings.totalMs = performance.now() - started;
  return { result: degraded ? { ...result, degraded } : result, trace };
}

/** A search sent before the request's credential and channel were checked (see `startEarlySearch` in routes/search.ts). */
export interface EarlySearch {
  /** The channel as read when the credential was last let in; the search ran over it. */
  channel: ChannelDoc;
  params: SearchParams;
  outcome: Promise<{ result: SearchAnswer; trace: SearchTrace }>;
  /** Set once the route has decided whether to use it; until then a refusal throws it away. */
  settled?: boolean;
}
