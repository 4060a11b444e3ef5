// The fields search asks for and matches on: what each read returns and the keyword legs' fields with their boosts.
import type { QueryClause } from '../store/filters.js';

/** Passage fields a response cites; the vector (`embedding`) never travels. */
export const PASSAGE_SOURCE = ['id', 'episodeId', 'kind', 'text', 'chapterTitle', 'startMs', 'endMs', 'speaker', 'marks'] as const;

/**
 * The `_source` filter of a passage read: `fields`, and the vector named as excluded. On an
 * index with derived vectors (`INDEX_VECTOR_SOURCE=derived`) an includes list alone still
 * has the engine rebuild every hit's vector before filtering it away (docs/performance.md,
 * "Choices in the search code"). On a stored-vector index the exclusion changes nothing.
 */
export function passageSource(fields: readonly string[] = PASSAGE_SOURCE): QueryClause {
  return { includes: [...fields], excludes: ['embedding'] };
}

/**
 * What a leg returns per passage: doc values only. Loading `_source` means parsing each
 * candidate's stored JSON, embedding included, which made a leg several times slower
 * (docs/performance.md, "Choices in the search code"). Text is fetched later for the few
 * passages shown. `withText` (the playground) fetches it with the leg. `sourceHash` (the
 * episode record's version) keys the hydration cache.
 */
export function legSource(withText = false): QueryClause {
  return { _source: withText ? passageSource() : false, docvalue_fields: ['episodeId', 'startMs', 'endMs', 'kind', 'sourceHash'] };
}

/** Episode fields the pipeline reads. */
export const EPISODE_SOURCE = ['id', 'title', 'summary', 'publishedAt', 'durationMs'] as const;

/**
 * Passage fields of the keyword leg, with boosts. `mainSpeakers` lets "what did Kirsty
 * Williams say about …" find the passages where she speaks: the name is in no text, and
 * the embedded text is left alone (vectors are keyed by it). Measured, boosts included, in
 * docs/relevance.md (Experiments: main speakers).
 */
export const DEFAULT_PASSAGE_FIELDS: readonly string[] = ['text', 'chapterTitle', 'mainSpeakers'];
/**
 * Passage fields that only raise the keyword score of a passage its words (or title or speakers) matched, never find
 * one alone: the title of the generated chapter a speech passage lies in, at a low boost (docs/relevance.md,
 * "Generated structure": it lifts the speech of the right part of a long meeting without a passage of its own).
 */
export const DEFAULT_PASSAGE_BOOST_FIELDS: readonly string[] = ['generatedContext^0.3'];
/** Episode fields of the title leg: a title match is the strongest catalog signal. */
export const DEFAULT_EPISODE_FIELDS: readonly string[] = ['title^3', 'summary', 'description', 'chapterTitles', 'momentTitles'];
