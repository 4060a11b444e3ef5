// Shapes of the search pipeline: its parameters, the public SearchResult (spec part 2) and the internal hits between stages.
import type { EpisodeDoc, PassageDoc, PassageKind } from '../store/documents.js';
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

export { MATCHED_VIA_DESCRIPTIONS, type MatchedSegment, type MatchedVia, type SearchResult, type SearchResultEpisode } from '../contract/shapes.js';

/**
 * The retrieval legs: `keyword` is BM25 over passages, `semantic` k-NN over passages, `title`
 * BM25 over episodes.
 */
export type LegName = 'keyword' | 'semantic' | 'title';

/** The passage fields search reads (never the embedding); `marks` is absent in stores loaded before it existed. */
export type PassageHit = Pick<PassageDoc, 'id' | 'episodeId' | 'kind' | 'text' | 'chapterTitle' | 'startMs' | 'endMs' | 'speaker'> &
  Partial<Pick<PassageDoc, 'marks'>> & {
    /** The query's terms in `text`, from the engine's highlighter (hydration only). */
    matches?: TermRange[];
  };

/** The episode fields search reads. */
export type EpisodeMeta = Pick<EpisodeDoc, 'id' | 'title' | 'summary' | 'publishedAt' | 'durationMs'>;

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
