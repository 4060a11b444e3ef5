// Shapes of the search pipeline: its parameters, the public SearchResult (spec part 2) and the internal hits between stages.
import { Type, type Static } from '@sinclair/typebox';
import type { EpisodeDoc, PassageDoc, PassageKind } from '../store/documents.js';
import { FilterScopeSchema } from '../store/filters.js';

export type { EpisodeFilters, FilterScope } from '../store/filters.js';

/**
 * The bounds every way in to search takes a query under (REST, the MCP tool, the channel's search page), written once:
 * the OpenAPI document, the tool's input schema and the page read them from here.
 */
export const SEARCH_LIMITS = Object.freeze({
  /** Longest query, in characters (code points): longer is a 400 on REST and in a tool call; a page cuts it. */
  queryChars: 1000,
  /** Most episodes one search returns (decision 4). */
  maxEpisodes: 50,
  /** Episodes a REST search returns when `limit` is not given (decision 4). */
  restEpisodes: 10,
  /** Episodes a tool call returns when `limit` is not given: an assistant quotes them all. */
  toolEpisodes: 5,
  /** Episodes the channel's search page shows. */
  pageEpisodes: 10,
});

/**
 * A search as the pipeline takes it (spec 4.2), whichever way it came in: each surface decodes its own input into
 * this (REST `searchParams` in src/routes/search.ts, the tool's `toSearchParams` in src/mcp/search-tool.ts, the
 * page's `pageSearchParams` in src/pages/router.ts); the MCP tool's input schema is derived from it.
 */
export const SearchParamsSchema = Type.Composite([
  Type.Object({
    query: Type.String({ minLength: 1, maxLength: SEARCH_LIMITS.queryChars, pattern: '\\S', description: 'What to look for: trimmed, never blank.' }),
    fast: Type.Boolean({ description: 'Keyword leg only; the embedder is never called.' }),
    limit: Type.Integer({ minimum: 1, maximum: SEARCH_LIMITS.maxEpisodes, description: 'Episodes to return.' }),
  }),
  FilterScopeSchema,
]);
/** Validated search parameters: see {@link SearchParamsSchema}. */
export type SearchParams = Static<typeof SearchParamsSchema>;

/** A matched term's character range in a text, `end` exclusive. */
export interface TermRange {
  start: number;
  end: number;
}

export { MATCHED_VIA_DESCRIPTIONS, type DegradedReason, type MatchedSegment, type MatchedVia, type SearchResult, type SearchResultEpisode } from '../contract/shapes.js';

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
