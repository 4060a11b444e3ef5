// The keyword leg: BM25 over passage text, chapter titles and main speakers, and over episode catalog rows.
import type { Config } from '../config/load.js';
import type { ChannelDoc } from '../store/documents.js';
import { DEFAULT_EPISODE_FIELDS, DEFAULT_PASSAGE_BOOST_FIELDS, DEFAULT_PASSAGE_FIELDS, EPISODE_SOURCE, legSource } from './fields.js';
import { buildFilters, type QueryClause } from '../store/filters.js';
import { analysisOf, DEFAULT_LANGUAGES, languageFields } from '../store/languages.js';
import type { SearchParams } from './types.js';

export interface KeywordQueryOptions {
  /** `multi_match` fields over passages; default {@link DEFAULT_PASSAGE_FIELDS}. */
  passageFields?: readonly string[];
  /**
   * Passage fields that raise the score of a passage `passageFields` found but never find one alone (a `should`
   * clause); default {@link DEFAULT_PASSAGE_BOOST_FIELDS}.
   */
  passageBoostFields?: readonly string[];
  /** `multi_match` fields over episodes; default {@link DEFAULT_EPISODE_FIELDS}. */
  episodeFields?: readonly string[];
  /**
   * `multi_match` type of both searches; default `most_fields`: a passage whose words
   * and chapter title both match outranks one matching in one field only (docs/relevance.md,
   * Experiments: `most_fields`).
   */
  type?: 'best_fields' | 'most_fields' | 'cross_fields';
  /** Episodes the title leg returns; default 20 (deeper ranks add almost nothing to the fusion). */
  episodeCandidates?: number;
  /** Return passage text with the hits (see {@link legSource}); default false. */
  withText?: boolean;
  /**
   * Leave a question's framing words out of the BM25 query (see {@link keywordText});
   * default true (docs/relevance.md, Experiments: question framing).
   */
  dropFraming?: boolean;
  /**
   * LANGUAGES (default `en,es,de,fr,pt,it,nl`): a channel in one of them is searched in its language's
   * sub-fields (`text.es`), analysed by that language's analyzer; one in another language in the fallback's.
   */
  languages?: readonly string[];
}

/**
 * Interrogatives, auxiliaries and pronouns that the english analyzer keeps but that say
 * nothing about the answer: in "how do farmers keep soil healthy", "how" and "do" matched a
 * short key-moment title ("… they do not use …") and outranked the soil episode.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'how what which who whom whose why when where do does did done doing i me my you your we our us can could would should shall might must were been am'.split(' '),
);

/**
 * The words of `query` the keyword leg matches: without its (English) question framing, unless nothing else is
 * left. A query in another language is left whole: its analyzer drops that language's stop words.
 */
export function keywordText(query: string, language = 'en'): string {
  if (language !== 'en') return query;
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
    passageBoostFields = DEFAULT_PASSAGE_BOOST_FIELDS,
    episodeFields = DEFAULT_EPISODE_FIELDS,
    type = 'most_fields',
    episodeCandidates = 20,
    withText = false,
    dropFraming = true,
    languages = DEFAULT_LANGUAGES,
  }: KeywordQueryOptions = {},
): KeywordQuery {
  // An English channel (no language, or `en`) keeps the base fields: its queries are exactly what they were.
  const analysis = analysisOf(channel.language, { languages });
  passageFields = languageFields(passageFields, analysis);
  passageBoostFields = languageFields(passageBoostFields, analysis);
  episodeFields = languageFields(episodeFields, analysis);
  const text = dropFraming ? keywordText(params.query, analysis.language) : params.query;
  const match = (fields: readonly string[]) => ({ multi_match: { query: text, fields: [...fields], type } });
  return {
    passages: {
      size: settings.candidates,
      track_total_hits: false,
      ...legSource(withText),
      query: {
        bool: {
          must: [match(passageFields)],
          ...(passageBoostFields.length > 0 ? { should: [match(passageBoostFields)] } : {}),
          filter: [buildFilters(params, channel)],
        },
      },
    },
    episodes: {
      size: episodeCandidates,
      track_total_hits: false,
      _source: [...EPISODE_SOURCE],
      query: { bool: { must: [match(episodeFields)], filter: [buildFilters(params, channel, { episodeIdField: 'id' })] } },
    },
  };
}
