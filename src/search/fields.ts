// The fields search asks for and matches on: what each read returns and the keyword legs' fields with their boosts.
import type { QueryClause } from '../store/filters.js';

/** Passage fields a response cites; the 384 floats of `embedding` never travel. */
export const PASSAGE_SOURCE = ['id', 'episodeId', 'kind', 'text', 'chapterTitle', 'startMs', 'endMs', 'speaker', 'marks'] as const;

/**
 * The `_source` filter of a passage read: `fields`, and the vector named as excluded. On an
 * index with derived vectors (`INDEX_VECTOR_SOURCE=derived`) an includes list alone still
 * has the engine rebuild the 384 floats of every hit before filtering them away: reading 25
 * passages took 7.6 ms p50 that way and 4.7 ms with the exclusion (qmsum; 3.3 ms with no
 * `_source` at all). On a stored-vector index the exclusion changes nothing.
 */
export function passageSource(fields: readonly string[] = PASSAGE_SOURCE): QueryClause {
  return { includes: [...fields], excludes: ['embedding'] };
}

/**
 * What a leg returns per passage: doc values only. Loading `_source` means parsing each
 * hit's stored JSON, embedding included (~8 KB); for 100 candidates that tripled the
 * time of a leg (BM25 p50 21 → 53 ms, k-NN 33 → 57 ms on qmsum). Text is fetched later
 * for the few passages shown. `withText` (the playground) fetches it with the leg.
 * `sourceHash` (the episode record's version) keys the hydration cache.
 */
export function legSource(withText = false): QueryClause {
  return { _source: withText ? passageSource() : false, docvalue_fields: ['episodeId', 'startMs', 'endMs', 'kind', 'sourceHash'] };
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
