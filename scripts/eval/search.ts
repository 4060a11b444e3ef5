// The evaluation's search: the product's stages (core/search/search.ts) under tuning knobs, with everything they saw.
import { episodePriors, toEpisodeScores, type EpisodeScore } from '../../core/search/episode-leg.js';
import { groupByEpisode, LONG_CHAPTER_MS } from '../../core/search/group.js';
import { keywordText, type KeywordQueryOptions } from '../../core/search/keyword-query.js';
import type { LandingOptions } from '../../core/search/landing.js';
import type { SearchRequest } from '../../core/search/msearch.js';
import { buildFilters } from '../../core/store/filters.js';
import { toSearchResult } from '../../core/search/result.js';
import {
  buildLegs,
  configuredRanking,
  embedQuery,
  episodeCandidates,
  legWeights,
  planShown,
  prepareQuery,
  rankHits,
  roundTrip,
  type DegradedReason,
  type Ranking,
  type SearchAnswer,
  type SearchDeps,
  type SearchTimings,
} from '../../core/search/search.js';
import type { EpisodeGroup, FusedHit, Leg, LegName, SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';

/**
 * What an evaluation may change beyond the configuration; each one left out is as configured
 * (or as the product has it), so `{}` searches exactly as `runSearch` does.
 */
export interface Tuning {
  /** Passage legs to run. `keyword` brings the title leg with it. Default both (`fast`: keyword). */
  legs?: readonly ('keyword' | 'semantic')[];
  /** Passages each leg contributes (and k of k-NN). */
  candidates?: number;
  fusion?: Ranking['fusion'];
  rrfK?: number;
  /** Per-leg weights; `title` defaults to `TITLE_WEIGHT_RATIO` × the keyword weight. */
  weights?: Partial<Record<LegName, number>>;
  chapterHits?: Ranking['chapterHits'];
  longChapterMs?: number;
  maxSegments?: number;
  /** Fields, `multi_match` type, title-leg depth, question framing of the keyword legs. */
  keyword?: KeywordQueryOptions;
  /** Fetch passage text with every leg's hits (the playground shows them); slower. */
  withText?: boolean;
  /** Where citations begin; `{ off: true }` cites passage starts (the eval's before/after). */
  landing?: LandingOptions;
  /** Weight of the episode leg's prior (0: no episode leg); default as configured. */
  episodeWeight?: number;
  /** Episodes the episode leg ranks; default `EPISODE_LEG_CANDIDATES`. */
  episodeCandidates?: number;
  /** Experiment: the episode leg over these fields of the episode rows (written by `episode-fields.ts`) instead of the transcripts' `speech`. */
  episodeFields?: readonly string[];
  /** Only episodes of at least this much speech get a prior (with `episodeFields`: this duration); default `EPISODE_LEG_MIN_MS` (`episodeFields`: 0). */
  episodeMinMs?: number;
  /** Experiment: passages of episodes outside the episode leg's top `episodeTop` are dropped. */
  episodeTop?: number;
}

/** Everything a search saw on its way: each leg's hits, the fusion, the groups, the first round trip as sent. */
export interface SearchTrace {
  legs: Leg[];
  /** The episode leg's ranking (empty when it did not run). */
  episodes: EpisodeScore[];
  fused: FusedHit[];
  groups: EpisodeGroup[];
  /** The first round trip, as sent (vectors included). */
  searches: SearchRequest[];
  embedded: boolean;
  timings: SearchTimings;
  /** Passages and catalog rows shown: from the hydration cache, and read from the store (0 of them: no second round trip). */
  hydration: { cached: number; fetched: number };
}

/** Experiment: the episode leg over fields of the episode rows (every filter applies there), read as the transcripts' one is. */
function episodeRowsSearch(deps: SearchDeps, channel: ChannelDoc, params: SearchParams, fields: readonly string[], size: number, minMs = 0): SearchRequest {
  const must = [{ multi_match: { query: keywordText(params.query), fields: [...fields], type: 'most_fields' } }];
  const filter = [buildFilters(params, channel, { episodeIdField: 'id' }), ...(minMs > 0 ? [{ range: { durationMs: { gte: minMs } } }] : [])];
  return { index: deps.aliases.episodes, body: { size, track_total_hits: false, _source: false, query: { bool: { must, filter } } } };
}

/** The configured ranking with a tuning's changes. */
export function tunedRanking(settings: SearchDeps['settings'], tuning: Tuning): Ranking {
  const configured = configuredRanking(settings);
  const w = tuning.weights ?? {};
  return {
    fusion: tuning.fusion ?? configured.fusion,
    rrfK: tuning.rrfK ?? configured.rrfK,
    weights: { ...legWeights(w.keyword ?? settings.keywordWeight, w.semantic ?? settings.semanticWeight), ...w },
    chapterHits: tuning.chapterHits ?? configured.chapterHits,
    longChapterMs: tuning.longChapterMs ?? LONG_CHAPTER_MS,
    maxSegments: tuning.maxSegments ?? configured.maxSegments,
    episodeWeight: tuning.episodeWeight ?? configured.episodeWeight,
  };
}

/**
 * `runSearch` under a tuning, returning its trace as well: the same stages in the same
 * order (a test holds the two to the same answers), timed the same way.
 */
export async function evalSearch(deps: SearchDeps, channel: ChannelDoc, params: SearchParams, tuning: Tuning = {}): Promise<{ result: SearchAnswer; trace: SearchTrace }> {
  const started = performance.now();
  const timings: SearchTimings = { embedded: false, searched: false, embedMs: 0, msearchMs: 0, hydrateMs: 0, totalMs: 0 };
  const trace: SearchTrace = { legs: [], episodes: [], fused: [], groups: [], searches: [], embedded: false, timings, hydration: { cached: 0, fetched: 0 } };
  const asked = prepareQuery(params);
  if (!asked) return { result: { query: '', episodes: [] }, trace };
  const { query, bounded } = asked;
  const wanted = new Set(tuning.legs ?? ['keyword', 'semantic']);
  if (params.fast) wanted.delete('semantic');

  let vector: number[] | undefined;
  let degraded: DegradedReason | undefined;
  let t = performance.now();
  if (wanted.has('semantic') && deps.embedder) {
    ({ vector, degraded } = await embedQuery(deps, channel, query));
    timings.embedMs = performance.now() - t;
    timings.embedded = trace.embedded = vector !== undefined;
  }

  const ranking = tunedRanking(deps.settings, tuning);
  const episodes = tuning.episodeCandidates ?? episodeCandidates(ranking);
  const legs = buildLegs(deps, channel, bounded, {
    keyword: wanted.has('keyword'),
    vector,
    candidates: tuning.candidates ?? deps.settings.candidates,
    keywordOptions: tuning.keyword,
    withText: tuning.withText,
    episodeCandidates: tuning.episodeFields ? 0 : episodes,
    episodeMinMs: tuning.episodeMinMs,
  });
  const fieldsLeg =
    tuning.episodeFields && wanted.has('keyword') && episodes > 0 ? episodeRowsSearch(deps, channel, bounded, tuning.episodeFields, episodes, tuning.episodeMinMs) : undefined;
  trace.searches = fieldsLeg ? [...legs.searches, fieldsLeg] : legs.searches;
  t = performance.now();
  const answers = await roundTrip(deps, trace.searches);
  trace.legs = legs.read(answers);
  trace.episodes = fieldsLeg ? toEpisodeScores(answers[legs.searches.length] ?? []) : legs.readEpisodes(answers);
  timings.msearchMs = performance.now() - t;
  timings.searched = trace.searches.length > 0;

  ({ fused: trace.fused, groups: trace.groups } = rankHits(trace.legs, bounded.limit, ranking, trace.episodes));
  if (tuning.episodeTop !== undefined && trace.episodes.length > 0) {
    const top = new Set(trace.episodes.slice(0, tuning.episodeTop).map((e) => e.episodeId));
    const priors = episodePriors(trace.episodes, { weight: ranking.episodeWeight, fusion: ranking.fusion, k: ranking.rrfK });
    trace.groups = groupByEpisode(
      trace.fused.filter((h) => top.has(h.episodeId)),
      bounded.limit,
      ranking.maxSegments,
      priors,
    );
  }

  const plan = planShown(deps, bounded, channel, trace.groups, tuning.keyword?.passageFields);
  trace.hydration = plan.counts;
  t = performance.now();
  const hydrated = plan.read(await roundTrip(deps, plan.searches));
  timings.hydrateMs = performance.now() - t;

  const result = toSearchResult({ query, groups: trace.groups, ...hydrated, channel, channelSites: deps.channelSites, landing: tuning.landing });
  timings.totalMs = performance.now() - started;
  return { result: degraded ? { ...result, degraded } : result, trace };
}
