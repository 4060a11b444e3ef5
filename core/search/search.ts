// Hybrid search of one channel: numbered pure stages around two round trips (every leg in one `_msearch`, then what the answer shows).
import type { Config } from '../config/load.js';
import type { Embedder } from '../embedding/embedder.js';
import { EmbedderUnavailableError } from '../embedding/embedder-pool.js';
import type { ChannelSites } from '../ground/channel-urls.js';
import type { ChannelDoc } from '../store/documents.js';
import type { Client, IndexAliases } from '../store/opensearch.js';
import { buildEpisodeQuery, EPISODE_LEG_CANDIDATES, episodePriors, toEpisodeScores, type EpisodeScore } from './episode-leg.js';
import { convexFusion, reciprocalRankFusion } from './fusion.js';
import { absorbChapterHits, groupByEpisode, LONG_CHAPTER_MS } from './group.js';
import { planHydration, type HydratePlan } from './hydrate.js';
import { defaultHydrationCache, type HydrationCache } from './hydration-cache.js';
import { buildKeywordQuery, type KeywordQueryOptions } from './keyword-query.js';
import { buildKnnQuery } from './knn-query.js';
import { runMsearch, toEpisodeHits, toPassageHits, type RawHit, type SearchRequest } from './msearch.js';
import { defaultQueryCache, type QueryVectorCache } from '../embedding/query-cache.js';
import { boundQueryTerms } from './query-terms.js';
import { toSearchResult } from './result.js';
import type { DegradedReason, EpisodeGroup, FusedHit, Leg, LegName, SearchParams, SearchResult } from './types.js';

/**
 * Weight of the title leg relative to the keyword weight. The leg exists so that an
 * episode whose catalog row matches is found even when no passage does; as a ranking
 * signal it is coarse (a whole episode, generic summary words), and at full weight it
 * pushed episodes ahead of the ones holding the cited moment (docs/relevance.md,
 * Experiments: title leg weight).
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

export type { DegradedReason } from './types.js';

/** The API's search answer: the public SearchResult, whose `degraded` says when the semantic leg was skipped. */
export type SearchAnswer = SearchResult;

/** Where a search's time went: returned with every answer (the metrics and benchmarks read it). */
export interface SearchTimings {
  /** A query vector was found: the semantic leg ran. */
  embedded: boolean;
  /** The store was searched (not for an empty query). */
  searched: boolean;
  /** Getting the query vector, from the cache or the model. */
  embedMs: number;
  /** The first round trip: every leg. */
  msearchMs: number;
  /** The second round trip: what the answer shows and the hydration cache lacked. */
  hydrateMs: number;
  totalMs: number;
}

/** What {@link runSearch} returns. */
export interface SearchOutcome {
  result: SearchAnswer;
  timings: SearchTimings;
}

/** How hits are ranked: the configured settings ({@link configuredRanking}), or an evaluation's. */
export interface Ranking {
  /** A weighted sum of min-max normalized scores, or reciprocal rank fusion. */
  fusion: 'rrf' | 'minmax';
  /** The RRF constant (`fusion: 'rrf'`). */
  rrfK: number;
  /** Per-leg weights, either fusion. */
  weights: Record<LegName, number>;
  /** Chapter-title hits: `lend` their score to the best speech passage inside and follow it, `absorb` (the same, chapter dropped), or `keep` them as they are. See `absorbChapterHits`. */
  chapterHits: 'absorb' | 'lend' | 'keep';
  /** Chapters longer than this (ms) are handed over. */
  longChapterMs: number;
  /** Segments an episode shows at most. */
  maxSegments: number;
  /** Weight of the episode leg's prior on the episodes found (0: no episode leg). See `episodePriors`. */
  episodeWeight: number;
}

/** Per-leg weights: the title leg weighs {@link TITLE_WEIGHT_RATIO} × the keyword leg. */
export function legWeights(keyword: number, semantic: number): Record<LegName, number> {
  return { keyword, semantic, title: TITLE_WEIGHT_RATIO * keyword };
}

/** The ranking this deployment is configured with. */
export function configuredRanking(settings: Config['search']): Ranking {
  return {
    fusion: settings.fusion,
    rrfK: settings.rrfK,
    weights: legWeights(settings.keywordWeight, settings.semanticWeight),
    chapterHits: settings.chapterHits,
    longChapterMs: LONG_CHAPTER_MS,
    maxSegments: 3,
    episodeWeight: settings.episodeWeight,
  };
}

/** The query as answered (trimmed) and the parameters the engine gets (its words bounded); undefined for an empty query, which searches nothing. */
export function prepareQuery(params: SearchParams): { query: string; bounded: SearchParams } | undefined {
  const query = params.query.trim();
  // The engine gets a bounded copy of the words (its clause limit); the answer echoes the query as asked.
  return query === '' ? undefined : { query, bounded: { ...params, query: boundQueryTerms(query) } };
}

/**
 * The query vector of the semantic leg, cached per channel and audience (so no caller can
 * time whether another channel or audience searched this text). No model: nothing. Every
 * embedder worker busy, or the model failing: no vector and why, so the search answers
 * keyword-only and says so rather than queue or fail. With `early`, a cached vector comes back
 * before the index guard has checked it, the check running as `confirmed` (see {@link firstRoundTrip}).
 */
export async function embedQuery(
  deps: SearchDeps,
  channel: ChannelDoc,
  query: string,
  { early = false }: { early?: boolean } = {},
): Promise<{ vector?: number[]; degraded?: DegradedReason; confirmed?: Promise<void> }> {
  const { embedder, settings } = deps;
  if (!embedder) return {};
  const cache = deps.queryCache ?? defaultQueryCache(embedder, settings.queryCacheSize, settings.queryCacheChannels);
  const scope = `${channel.id}\u0000${deps.audience ?? 'members'}`;
  try {
    return early ? await cache.embedEarly(embedder, query, scope) : { vector: await cache.embed(embedder, query, scope) };
  } catch (error) {
    if (!(error instanceof EmbedderUnavailableError)) throw error;
    return { degraded: degradedBy(error) };
  }
}

/** How a search says its semantic leg was left out. */
const degradedBy = (error: EmbedderUnavailableError): DegradedReason => (error.reason === 'busy' ? 'embedder_busy' : 'embedder_failed');

/**
 * The first round trip: every leg in one `_msearch`. A cached query vector may come with the index guard's check still
 * running (`confirmed`), so the check and the search overlap: what the search found counts once the check passes.
 * Refused (the alias now points at an index another embedder built, after a reindex's swap), the vector's answer is
 * dropped unread and the legs go again without it: keyword-only, `degraded`, as when the check came first.
 */
async function firstRoundTrip(
  deps: SearchDeps,
  build: (vector: number[] | undefined) => LegsPlan,
  vector: number[] | undefined,
  confirmed: Promise<void> | undefined,
): Promise<{ legs: LegsPlan; answers: RawHit[][]; degraded?: DegradedReason }> {
  const refusal = confirmed?.then(
    () => undefined,
    (error: unknown) => (error instanceof EmbedderUnavailableError ? error : Promise.reject(error)),
  );
  const legs = build(vector);
  const searched = roundTrip(deps, legs.searches).then(
    (answers) => ({ answers }),
    (error: unknown) => ({ error }),
  );
  const [refused, outcome] = await Promise.all([refusal, searched]);
  if (refused) {
    const keywordOnly = build(undefined);
    return { legs: keywordOnly, answers: await roundTrip(deps, keywordOnly.searches), degraded: degradedBy(refused) };
  }
  if ('error' in outcome) throw outcome.error;
  return { legs, answers: outcome.answers };
}

/** The searches of the first round trip, in `_msearch` order, and how to read their answers back into legs. */
export interface LegsPlan {
  searches: SearchRequest[];
  read(answers: RawHit[][]): Leg[];
  /** The episode leg's ranking (empty when it did not run). */
  readEpisodes(answers: RawHit[][]): EpisodeScore[];
}

/**
 * Builds the legs: BM25 over passages and over episodes' catalog rows (the title leg),
 * unless `keyword` is false, and k-NN over passages when there is a `vector`; with `keyword`
 * and `episodeCandidates` (default 0: none), BM25 over the whole speech of each episode of at least `episodeMinMs`
 * (default `EPISODE_LEG_MIN_MS`; the episode leg).
 * `keywordOptions` and `withText` are the evaluation's (fields, framing, text with every hit).
 */
export function buildLegs(
  deps: Pick<SearchDeps, 'aliases' | 'languages'>,
  channel: ChannelDoc,
  params: SearchParams,
  {
    keyword = true,
    vector,
    candidates,
    keywordOptions,
    withText,
    episodeCandidates = 0,
    episodeMinMs,
  }: {
    keyword?: boolean;
    vector?: number[] | undefined;
    candidates: number;
    keywordOptions?: KeywordQueryOptions;
    withText?: boolean;
    episodeCandidates?: number;
    episodeMinMs?: number | undefined;
  },
): LegsPlan {
  const searches: SearchRequest[] = [];
  const readers: Array<(hits: RawHit[]) => Leg> = [];
  if (keyword) {
    const languages = deps.languages ? { languages: deps.languages } : {};
    const kw = buildKeywordQuery(params, channel, { candidates }, { ...languages, ...keywordOptions, withText });
    searches.push({ index: deps.aliases.passages, body: kw.passages }, { index: deps.aliases.episodes, body: kw.episodes });
    readers.push(
      (h) => ({ name: 'keyword', hits: toPassageHits(h) }),
      (h) => ({ name: 'title', hits: toEpisodeHits(h) }),
    );
  }
  if (vector) {
    searches.push({ index: deps.aliases.passages, body: buildKnnQuery(vector, params, channel, candidates, { withText }) });
    readers.push((h) => ({ name: 'semantic', hits: toPassageHits(h) }));
  }
  const legCount = searches.length;
  if (keyword && episodeCandidates > 0) {
    const options = {
      candidates: episodeCandidates,
      ...(episodeMinMs !== undefined ? { minMs: episodeMinMs } : {}),
      ...(deps.languages ? { languages: deps.languages } : {}),
      ...(keywordOptions?.dropFraming === false ? { dropFraming: false } : {}),
    };
    searches.push({ index: deps.aliases.transcripts, body: buildEpisodeQuery(params, channel, options) });
  }
  return {
    searches,
    read: (answers) => readers.map((read, i) => read(answers[i] ?? [])),
    readEpisodes: (answers) => (searches.length > legCount ? toEpisodeScores(answers[legCount] ?? []) : []),
  };
}

/** One `_msearch` on the request's store budget, cancelled when its caller has gone; none for no searches. */
export function roundTrip(deps: SearchDeps, searches: readonly SearchRequest[]): Promise<RawHit[][]> {
  return runMsearch(deps.client, searches, deps.storeTimeoutMs?.(), deps.signal);
}

/**
 * Ranks the legs' hits, pure: fuses them, hands long chapter hits to the speech inside, groups by episode, each
 * episode found raised by its prior from the episode leg (`episodes`, see `episodePriors`).
 */
export function rankHits(legs: readonly Leg[], limit: number, ranking: Ranking, episodes: readonly EpisodeScore[] = []): { fused: FusedHit[]; groups: EpisodeGroup[] } {
  const { weights } = ranking;
  let fused = ranking.fusion === 'rrf' ? reciprocalRankFusion(legs, { k: ranking.rrfK, weights }) : convexFusion(legs, { weights });
  if (ranking.chapterHits !== 'keep') fused = absorbChapterHits(fused, { keepChapters: ranking.chapterHits === 'lend', minSpanMs: ranking.longChapterMs });
  const priors = episodePriors(episodes, { weight: ranking.episodeWeight, fusion: ranking.fusion, k: ranking.rrfK });
  return { fused, groups: groupByEpisode(fused, limit, ranking.maxSegments, priors) };
}

/** Episodes the episode leg asks for under `ranking`: none when its weight is 0. */
export function episodeCandidates(ranking: Pick<Ranking, 'episodeWeight'>): number {
  return ranking.episodeWeight > 0 ? EPISODE_LEG_CANDIDATES : 0;
}

/** Plans the second round trip with the process's hydration cache (see `planHydration`); `passageFields` are the evaluation's. */
export function planShown(deps: SearchDeps, params: SearchParams, channel: ChannelDoc, groups: readonly EpisodeGroup[], passageFields?: readonly string[]): HydratePlan {
  const cache = deps.hydrationCache ?? defaultHydrationCache(deps.client, deps.settings.hydrationCacheMb);
  return planHydration(deps.aliases, params, channel, groups, { passageFields, cache, ...(deps.languages ? { languages: deps.languages } : {}) });
}

/**
 * Searches one channel as configured: what the API, the pages and MCP call. The evaluation
 * composes the same stages with its tuning and a full trace (`evalSearch`, scripts/eval).
 */
export async function runSearch(deps: SearchDeps, channel: ChannelDoc, params: SearchParams): Promise<SearchOutcome> {
  const started = performance.now();
  const timings: SearchTimings = { embedded: false, searched: false, embedMs: 0, msearchMs: 0, hydrateMs: 0, totalMs: 0 };
  const asked = prepareQuery(params);
  if (!asked) return { result: { query: '', episodes: [] }, timings };
  const { query, bounded } = asked;

  // 1. The query vector, unless `fast` (or no model): the semantic leg needs it.
  let vector: number[] | undefined;
  let degraded: DegradedReason | undefined;
  let confirmed: Promise<void> | undefined;
  let t = performance.now();
  if (!params.fast && deps.embedder) {
    ({ vector, degraded, confirmed } = await embedQuery(deps, channel, query, { early: true }));
    timings.embedMs = performance.now() - t;
  }

  // 2. Every leg in one round trip (beside the index check of a cached vector; without the vector when it is refused).
  const ranking = configuredRanking(deps.settings);
  const build = (v: number[] | undefined) => buildLegs(deps, channel, bounded, { vector: v, candidates: deps.settings.candidates, episodeCandidates: episodeCandidates(ranking) });
  t = performance.now();
  const { legs, answers, degraded: refused } = await firstRoundTrip(deps, build, vector, confirmed);
  degraded = refused ?? degraded;
  timings.embedded = vector !== undefined && refused === undefined;
  timings.msearchMs = performance.now() - t;
  timings.searched = legs.searches.length > 0;

  // 3. Rank, pure: fuse, hand long chapter hits to the speech inside, group by episode (raised by the episode leg).
  const { groups } = rankHits(legs.read(answers), bounded.limit, ranking, legs.readEpisodes(answers));

  // 4. The text and catalog rows shown, and a citation for title-only episodes: the second and last round trip, for what the cache lacks.
  const plan = planShown(deps, bounded, channel, groups);
  t = performance.now();
  const hydrated = plan.read(await roundTrip(deps, plan.searches));
  timings.hydrateMs = performance.now() - t;

  // 5. The answer, each segment cited from the sentence where its answer begins.
  const result = toSearchResult({ query, groups, ...hydrated, channel, channelSites: deps.channelSites });
  timings.totalMs = performance.now() - started;
  return { result: degraded ? { ...result, degraded } : result, timings };
}
