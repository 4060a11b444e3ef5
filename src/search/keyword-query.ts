// The keyword leg: BM25 over passage text, chapter titles and main speakers, and over episode catalog rows.
import type { Config } from '../config.js';
import type { ChannelDoc } from '../store/documents.js';
import { buildFilters, type QueryClause } from './filters.js';
import type { SearchParams } from './search.js';

/** Passage fields a response cites; the 384 floats of `embedding` never travel. */
export const PASSAGE_SOURCE = ['id', 'episodeId', 'kind', 'text', 'chapterTitle', 'startMs', 'endMs', 'speaker', 'marks'] as const;

/**
 * What a leg returns per passage: doc values only. Loading `_source` means parsing each
 * hit's stored JSON, embedding included (~8 KB); for 100 candidates that tripled the
 * time of a leg (BM25 p50 21 → 53 ms, k-NN 33 → 57 ms on qmsum). Text is fetched later
 * for the few passages shown. `withText` (the playground) fetches it with the leg.
 */
export function legSource(withText = false): QueryClause {
  return { _source: withText ? [...PASSAGE_SOURCE] : false, docvalue_fields: ['episodeId', 'startMs', 'endMs', 'kind'] };
}

/** Episode fields the pipeline reads. */
export const EPISODE_SOURCE = ['id', 'title', 'summary', 'publishedAt', 'durationMs'] as const;

/**
 * Passage fields of the keyword leg, with boosts. `mainSpeakers` lets "what did Kirsty
 * Williams say about …" find the passages where she speaks: the name is in no text, and
 * the embedded text is left alone (vectors are keyed by it). On the qmsum dev queries
 * hybrid nDCG@10 0.5580 → 0.5638 (+0.002 to +0.007 over five loads), +0.012 on "what did
 * someone think/say" queries; boosts 0.3 to 2 did no better than none, see the README.
 */
export const DEFAULT_PASSAGE_FIELDS: readonly string[] = ['text', 'chapterTitle', 'mainSpeakers'];
/** Episode fields of the title leg: a title match is the strongest catalog signal. */
export const DEFAULT_EPISODE_FIELDS: readonly string[] = ['title^3', 'summary', 'description', 'chapterTitles', 'momentTitles'];

export interface KeywordQueryOptions {
  /** `multi_match` fields over passages; default {@link DEFAULT_PASSAGE_FIELDS}. */
  passageFields?: readonly string[];
  /** `multi_match` fields over episodes; default {@link DEFAULT_EPISODE_FIELDS}. */
  episodeFields?: readonly string[];
  /**
   * `multi_match` type of both searches; default `most_fields`: a passage whose words
   * and chapter title both match outranks one matching in one field only (on the qmsum
   * dev queries +0.01 to +0.03 nDCG@10 over `best_fields`, see the README).
   */
  type?: 'best_fields' | 'most_fields' | 'cross_fields';
  /** Episodes the title leg returns; default 20 (deeper ranks add almost nothing under RRF). */
  episodeCandidates?: number;
  /** Return passage text with the hits (see {@link legSource}); default false. */
  withText?: boolean;
  /**
   * Leave a question's framing words out of the BM25 query (see {@link keywordText});
   * default true: keyword MRR +0.018 / +0.041 on tutorialvqa (with chapters / speech only),
   * hybrid +0.016 on tutorialvqa speech only, qmsum unchanged within 0.003.
   */
  dropFraming?: boolean;
}

/**
 * Interrogatives, auxiliaries and pronouns that the english analyzer keeps but that say
 * nothing about the answer: in "how do farmers keep soil healthy", "how" and "do" matched a
 * short key-moment title ("… they do not use …") and outranked the soil episode.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'how what which who whom whose why when where do does did done doing i me my you your we our us can could would should shall might must were been am'.split(' '),
);

/** The words of `query` the keyword leg matches: without its question framing, unless nothing else is left. */
export function keywordText(query: string): string {
  const kept = query.split(/\s+/).filter((w) => w !== '' && !QUESTION_WORDS.has(w.toLowerCase().replace(/[^a-z']/g, '')));
  return kept.length > 0 ? kept.join(' ') : query;
}

/** Request bodies of the keyword leg: one over passages, one over episodes. */
export interface KeywordQuery {
  passages: QueryClause;
  episodes: QueryClause;
}

/**
 * Builds both keyword searches. The episodes search finds an episode whose title or
 * summary matches even when none of its passages does.
 */
export function buildKeywordQuery(
  params: SearchParams,
  channel: ChannelDoc,
  settings: Pick<Config['search'], 'candidates'>,
  {
    passageFields = DEFAULT_PASSAGE_FIELDS,
    episodeFields = DEFAULT_EPISODE_FIELDS,
    type = 'most_fields',
    episodeCandidates = 20,
    withText = false,
    dropFraming = true,
  }: KeywordQueryOptions = {},
): KeywordQuery {
  const text = dropFraming ? keywordText(params.query) : params.query;
  const match = (fields: readonly string[]) => ({ multi_match: { query: text, fields: [...fields], type } });
  return {
    passages: {
      size: settings.candidates,
      track_total_hits: false,
      ...legSource(withText),
      query: { bool: { must: [match(passageFields)], filter: [buildFilters(params, channel)] } },
    },
    episodes: {
      size: episodeCandidates,
      track_total_hits: false,
      _source: [...EPISODE_SOURCE],
      query: { bool: { must: [match(episodeFields)], filter: [buildFilters(params, channel, { episodeIdField: 'id' })] } },
    },
  };
}
