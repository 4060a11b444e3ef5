// Shapes of the search pipeline: its parameters, the public SearchResult (spec part 2) and the internal hits between stages.
import type { PassageKind } from '../store/documents.js';
import type { FilterScope } from '../store/filters.js';

export type { EpisodeFilters, FilterScope } from '../store/filters.js';

/** Validated search parameters (spec 4.2; the API parses and validates the query string). */
export interface SearchParams extends FilterScope {
  query: string;
  /** Keyword leg only; the embedder is never called. */
  fast: boolean;
  /** Episodes to return (decision 4: 1–50, default 10). */
  limit: number;
}

/** A matched term's character range in a text, `end` exclusive. */
export interface TermRange {
  start: number;
  end: number;
}

/**
 * Why a segment or an episode is in the result. A segment carries the legs that found it
 * plus what kind of passage it is; an episode carries the union of its segments' values,
 * plus `title` when its catalog row matched.
 */
export type MatchedVia = 'keyword' | 'semantic' | 'title' | 'chapter' | 'moment';

/** What each `matchedVia` value means; the OpenAPI document and the README quote this. */
export const MATCHED_VIA_DESCRIPTIONS: Readonly<Record<MatchedVia, string>> = {
  keyword:
    'Found by the keyword (BM25) leg: the words of the query, stemmed, occur in the segment text or in the title of the chapter it belongs to.',
  semantic:
    'Found by the semantic leg: the segment is among the nearest passages to the query by meaning (k-NN over passage embeddings).',
  title:
    "The episode's catalog row matched the words of the query (title, summary, description, chapter or key-moment titles). On a segment: the segment was not matched itself; it is the episode's best keyword passage for the query, or its opening passage, cited because the episode matched.",
  chapter: 'The segment is a chapter title (it spans the chapter), not transcript speech.',
  moment: 'The segment is a key-moment title, a self-contained claim at that moment, not transcript speech.',
};

/** The unit of citation (spec: MatchedSegment). */
export interface MatchedSegment {
  segmentId: string;
  text: string;
  startMs: number;
  endMs: number;
  speaker: string | null;
  /** Absolute citation URL; `t` is in milliseconds. */
  url: string;
  /** Same moment relative to the channel's library root: `episodes/<id>?t=<ms>`. */
  deepLink: string;
  matchedVia: MatchedVia[];
  /** Character ranges of `text` holding the query's words (as the keyword leg matched them, stemmed); may be empty. */
  highlights: TermRange[];
}

/** One ranked episode (spec: SearchResultEpisode). */
export interface SearchResultEpisode {
  episodeId: string;
  title: string;
  url: string;
  /** Fused score of the legs (`SEARCH_FUSION`, min-max by default): comparable within one response only. */
  score: number;
  matchedVia: MatchedVia[];
  /** Best-matching segments, best first, at most 3. */
  segments: MatchedSegment[];
  summary: string | null;
  publishedAt: string;
  durationMs: number | null;
}

/** Spec: SearchResult. */
export interface SearchResult {
  query: string;
  episodes: SearchResultEpisode[];
}

/**
 * The retrieval legs: `keyword` is BM25 over passages, `semantic` k-NN over passages, `title`
 * BM25 over episodes.
 */
export type LegName = 'keyword' | 'semantic' | 'title';

/** The passage fields search reads (never the embedding). */
export interface PassageHit {
  id: string;
  episodeId: string;
  kind: PassageKind;
  text: string;
  chapterTitle: string | null;
  startMs: number;
  endMs: number;
  speaker: string | null;
  /** Sentence and turn starts in `text`, flat `[charOffset, ms, …]` (absent in stores loaded before they existed). */
  marks?: number[];
  /** The query's terms in `text`, from the engine's highlighter (hydration only). */
  matches?: TermRange[];
}

/** The episode fields search reads. */
export interface EpisodeMeta {
  id: string;
  title: string;
  summary: string | null;
  publishedAt: string;
  durationMs: number | null;
}

/**
 * One ranked hit of one leg; `rank` starts at 1. A passage hit carries only what ranking
 * needs (from doc values); its text is fetched for the few passages shown, after ranking,
 * unless the leg was asked for it (`passage`, the playground).
 */
export type LegHit =
  | {
      type: 'passage';
      id: string;
      episodeId: string;
      startMs: number;
      /** From doc values: what the passage is and where it ends (absent in hand-made hits). */
      kind?: PassageKind;
      endMs?: number;
      /** From doc values: the version of the episode record the passage was derived from (absent in stores loaded before it was stored). */
      sourceHash?: string;
      rank: number;
      score: number;
      passage?: PassageHit;
    }
  | { type: 'episode'; id: string; episodeId: string; rank: number; score: number; episode: EpisodeMeta };

/** A leg's ranked hits, best first. */
export interface Leg {
  name: LegName;
  hits: LegHit[];
}

/** A hit after fusion: its fused score and its rank and raw score in every leg that found it. */
export type FusedHit = LegHit & {
  fusedScore: number;
  legs: Partial<Record<LegName, { rank: number; score: number }>>;
};

export type FusedPassage = Extract<FusedHit, { type: 'passage' }>;
export type FusedEpisode = Extract<FusedHit, { type: 'episode' }>;

/** One episode after grouping: its score, the legs that matched it, and its best passages. */
export interface EpisodeGroup {
  episodeId: string;
  score: number;
  /** Set when the title leg found the episode's catalog row. */
  title?: FusedEpisode;
  /** Best first, at most `maxSegments`. */
  passages: FusedPassage[];
}
