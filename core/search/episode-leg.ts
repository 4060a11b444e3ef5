// The episode leg: BM25 over each episode's whole speech, a prior on the episodes the passage legs found.
import type { QueryClause } from '../store/filters.js';
import type { ChannelDoc } from '../store/documents.js';
import { analysisOf, DEFAULT_LANGUAGES, languageFields } from '../store/languages.js';
import { minMaxScores } from './fusion.js';
import { keywordText } from './keyword-query.js';
import type { RawHit } from './msearch.js';
import type { SearchParams } from './types.js';

/**
 * Episodes the episode leg returns. A channel of a few hundred episodes needs no more: past the first twenty an
 * episode's prior is near 0 under either fusion.
 */
export const EPISODE_LEG_CANDIDATES = 20;

/**
 * Episodes shorter than this get no prior. A short episode is about one thing and its passages speak for it; the
 * whole-speech score adds nothing to theirs and, on tutorials of 2–10 minutes, favoured the one repeating the query's
 * words over the one answering it (docs/relevance.md, "The episode leg"). Among long episodes (meetings, interviews)
 * it tells the one about the question from those mentioning it.
 */
export const EPISODE_LEG_MIN_MS = 20 * 60_000;

/** An episode as the episode leg ranked it. */
export interface EpisodeScore {
  episodeId: string;
  /** From 1. */
  rank: number;
  score: number;
}

/**
 * The filters the transcripts index can apply: channel, archived, published, `episodeIds`. The others (topics,
 * people, year, collection) live on episodes and passages only; the leg never brings an episode on its own (see
 * {@link episodePriors}), so an episode outside them is never shown through it.
 */
function transcriptFilters(params: SearchParams, channel: Pick<ChannelDoc, 'id'>, minMs: number): QueryClause {
  const filter: QueryClause[] = [{ term: { channelId: channel.id } }, { term: { archived: false } }];
  if (minMs > 0) filter.push({ range: { speechMs: { gte: minMs } } });
  if (params.publishedOnly) filter.push({ term: { status: 'published' } });
  if (params.episodeIds && params.episodeIds.length > 0) filter.push({ terms: { episodeId: [...new Set(params.episodeIds)] } });
  return { bool: { filter, must_not: [{ term: { status: 'archived' } }] } };
}

/**
 * The episode leg's search over the transcripts index: BM25 of the query's words (framing dropped, as the keyword
 * leg does) against the whole `speech` of each episode of at least `minMs`, in the channel's language's sub-field. Whole-document BM25
 * rewards the episode that is about the query (its words recur through it) over one that mentions them once in a
 * passage as rich: which meeting of a hundred on the same subject a question was written about.
 */
export function buildEpisodeQuery(
  params: SearchParams,
  channel: Pick<ChannelDoc, 'id' | 'language'>,
  {
    candidates = EPISODE_LEG_CANDIDATES,
    minMs = EPISODE_LEG_MIN_MS,
    dropFraming = true,
    languages = DEFAULT_LANGUAGES,
  }: { candidates?: number; minMs?: number; dropFraming?: boolean; languages?: readonly string[] } = {},
): QueryClause {
  const analysis = analysisOf(channel.language, { languages });
  const [field = 'speech'] = languageFields(['speech'], analysis);
  const text = dropFraming ? keywordText(params.query, analysis.language) : params.query;
  return {
    size: candidates,
    track_total_hits: false,
    // No stored field, not even `_id`: a transcript's stored fields share compressed blocks with its whole `_source`
    // (every word and its times), which fetching `_id` decompresses, about 8 ms of a 10 ms leg on a meetings channel.
    // The episode's id comes from doc values instead.
    stored_fields: '_none_',
    docvalue_fields: ['episodeId'],
    query: { bool: { must: [{ match: { [field]: { query: text } } }], filter: [transcriptFilters(params, channel, minMs)] } },
  };
}

/** The episode leg's answer, best first. */
export function toEpisodeScores(hits: readonly RawHit[]): EpisodeScore[] {
  return hits.map((h, i) => ({ episodeId: String(h.fields?.episodeId?.[0] ?? h._id), rank: i + 1, score: h._score ?? 0 }));
}

/**
 * What each episode the leg ranked adds to its group's score: `weight` × its min-max normalised score (the
 * `minmax` fusion), or `weight` / (k + rank) (`rrf`), on the scale of the legs it joins. Only a group the passage or
 * title legs formed receives it (`groupByEpisode`): the prior reorders the episodes found, and a citation is always
 * a passage that matched.
 */
export function episodePriors(scores: readonly EpisodeScore[], { weight, fusion, k }: { weight: number; fusion: 'rrf' | 'minmax'; k: number }): Map<string, number> {
  if (weight === 0 || scores.length === 0) return new Map();
  const values = fusion === 'rrf' ? scores.map((s) => weight / (k + s.rank)) : minMaxScores(scores.map((s) => s.score)).map((n) => weight * n);
  return new Map(scores.map((s, i) => [s.episodeId, values[i]!]));
}
