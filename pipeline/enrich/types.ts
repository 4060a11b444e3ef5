// The shapes the enrichment stages hand each other: chapters, typed key moments, topics, people and entities made from a transcript.
import type { ChapterRecord, KeyMomentRecord, SegmentRecord } from '../../core/contract/library-format.js';

/** A key moment that enrichment wrote: every time is a transcript segment's or a timed word's start or end. */
export type GeneratedMoment = KeyMomentRecord & { generated: true };

/** A chapter that enrichment wrote: starts on a segment start, ends on the next chapter's start (the last: the speech's end). */
export type GeneratedChapter = Omit<ChapterRecord, 'moments'> & { generated: true; moments: GeneratedMoment[] };

/** A facet name enrichment made (`topics.json`, `people.json`, `entities.json`). */
export interface GeneratedFacet {
  id: string;
  name: string;
  generated: true;
}

/** The key moment types of the contract's open list that the local method decides between. */
export const MOMENT_TYPES = ['qa', 'quote', 'story', 'prediction', 'insight', 'debate'] as const;
export type MomentType = (typeof MOMENT_TYPES)[number];

/** Vectors for texts: the configured embedder's `embedPassages` (unit length). */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

/** Bounds of generated chapters. */
export interface ChapterBounds {
  /** Shortest chapter, ms (default 2 minutes); a short talk's (one voice, under `shortBelowMs`) is shorter, see {@link minChapterMs}. */
  minMs: number;
  /** Longest chapter, ms (default 20 minutes). */
  maxMs: number;
  /** Speech shorter than this gets one chapter, ms (default 90 s: three chapters of a short talk's shortest). */
  singleBelowMs: number;
  /** Speech of one voice shorter than this is a short talk (a tutorial, a clip), cut between its sentences, ms (default 15 minutes). */
  shortBelowMs: number;
  /** Shortest chapter of a short talk, ms, unless a tenth of the talk is longer (default 30 s). */
  shortMinMs: number;
}

export const DEFAULT_CHAPTER_BOUNDS: Readonly<ChapterBounds> = Object.freeze({
  minMs: 2 * 60_000,
  maxMs: 20 * 60_000,
  singleBelowMs: 90_000,
  shortBelowMs: 15 * 60_000,
  shortMinMs: 30_000,
});

/**
 * Fewest chapters that make a table of contents: YouTube and Spotify both ask for three. An episode cut into fewer gets
 * one chapter over all of its speech, which holds its moments and is no table of contents.
 */
export const MIN_TOC_CHAPTERS = 3;

/**
 * The shortest chapter of speech `durationMs` long: `minMs`, but for a short talk (under `shortBelowMs`) a tenth of its
 * length and at least `shortMinMs` (never more than `minMs`): a 5-minute tutorial's steps last half a minute or so, an
 * hour-long meeting's subjects several minutes.
 */
export function minChapterMs(bounds: ChapterBounds, durationMs: number): number {
  if (durationMs >= bounds.shortBelowMs) return bounds.minMs;
  return Math.min(bounds.minMs, Math.max(bounds.shortMinMs, Math.round(durationMs / 10)));
}

/**
 * What a language model is asked to write for one chapter the local method already cut: a title and one claim per
 * chosen moment. It never sees or returns a time.
 */
export interface ChapterBrief {
  /** The chapter's transcript (possibly shortened to fit the model's context). */
  transcript: string;
  /** BCP 47 of the speech. */
  language: string;
  /** The local method's title, kept when the model's answer is refused. */
  localTitle: string;
  /** The moments the local method chose, in order: the speaker's own words of each span, and its type. */
  moments: { type: MomentType; text: string; localTitle: string }[];
}

/** The model's answer for one chapter, after checking against the schema. */
export interface ChapterWriting {
  title: string;
  /** One claim per moment of the brief, same order. */
  claims: string[];
}

/** A language model that writes titles and claims; `null` means "fall back to the local text" (bad, slow or refused answer). */
export interface ChapterWriter {
  write(brief: ChapterBrief, signal?: AbortSignal): Promise<ChapterWriting | null>;
}

/** A named entity as the NER service reports it. */
export interface NamedEntity {
  text: string;
  /** spaCy's label: PERSON, ORG, PRODUCT, GPE, … */
  label: string;
}

/** Named-entity recognition over texts (one list per text, same order). */
export type RecogniseEntities = (texts: string[], opts: { language: string; signal?: AbortSignal }) => Promise<NamedEntity[][]>;

/** Segments as enrichment reads them. */
export type EnrichSegment = Pick<SegmentRecord, 'startMs' | 'endMs' | 'text' | 'speakerLabel' | 'words' | 'wordsInterpolated'>;
