// Chapter boundaries of a transcript: a learned boundary model over the cohesion of its speech passages (a short talk's
// sentences), with discourse and instructional cues and pauses. The evaluation's dials and its older TextTiling method
// are scripts/eval/segmentation-knobs.ts.
import { DEFAULT_CHAPTER_BOUNDS, MIN_TOC_CHAPTERS, minChapterMs, type ChapterBounds, type EnrichSegment } from './types.js';
import { hasCue, opensStep } from './cohesion.js';
import { BOUNDARY_DECODING, BOUNDARY_MODEL } from './boundary-weights.js';
import { SHORT_TALK_DECODING, SHORT_TALK_MODEL } from './short-talk-weights.js';
import { boundaryProbability, gapFeatureRows, shortGapFeatureRows, type BoundaryModel, type ShortGapFeature } from './boundary-model.js';
import { buildPassages } from '../../core/passages/passages.js';
import type { SegmentRecord } from '../../core/library/checks.js';

/** A passage of speech (the unit search packs) compared as one block, in the segments `[first, last]` (indexes into the episode's segments); `startMs` is its first segment's start. */
export interface Block {
  first: number;
  last: number;
  startMs: number;
  endMs: number;
  text: string;
}

/** A chapter as segment indexes: `[first, last]` inclusive, with the times the chapter covers. */
export interface ChapterSpan {
  first: number;
  last: number;
  startMs: number;
  endMs: number;
}

/** What the segmenter is told about a transcript; its decoding is the measured one (boundary-weights.ts, short-talk-weights.ts). */
export interface SegmentOptions {
  bounds?: Partial<ChapterBounds> | undefined;
  language?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** How a short talk's cut is decoded: the measured defaults; scripts/eval varies them. */
export interface ShortTalkDecoding {
  /** A boundary needs at least this probability. */
  minProbability: number;
  /** At most this many boundaries per minute of the talk (rounded up). */
  perMinute: number;
  /** A talk whose steps are cued gets at least three chapters. */
  cuedSteps: boolean;
  /** A boundary moves to a step cue in the unit before or after it. */
  refine: boolean;
}

export const SHORT_TALK_CUT: Readonly<ShortTalkDecoding> = Object.freeze({
  minProbability: SHORT_TALK_DECODING.minProbability,
  perMinute: SHORT_TALK_DECODING.perMinute,
  cuedSteps: true,
  refine: true,
});

/**
 * The blocks of a transcript: the passages search packs from its speech alone (20–60 s, cut at sentence ends), so their
 * vectors are the ones loading the episode embeds anyway (with the passage-vector cache, enrichment and loading embed
 * each text once). Each block knows the segments it starts and ends in.
 */
export function blocksOf(segments: readonly EnrichSegment[]): Block[] {
  const passages = buildPassages({ id: 'enrich', transcript: { formatVersion: 1, segments: segments as SegmentRecord[] }, chapters: [] }).filter((p) => p.kind === 'transcript');
  const starts = segments.map((s) => s.startMs);
  /** Index of the last segment starting at or before `ms` (0 when none). */
  const at = (ms: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= ms) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return passages
    .sort((a, b) => a.startMs - b.startMs)
    .map((p) => {
      const first = at(p.startMs);
      return { first, last: Math.max(first, at(Math.max(p.startMs, p.endMs - 1))), startMs: segments[first]!.startMs, endMs: p.endMs, text: p.text };
    });
}

/**
 * Picks boundaries (block indexes) from boundary probabilities: the likeliest first, each at least `spacingMs` from the
 * others and `minMs` from the ends, while at least `minProbability` and at most `baseCount` + `perHour` per hour of speech
 * (rounded up); then any chapter longer than `maxMs` is cut at its likeliest gap.
 */
export function pickByProbability(
  blocks: readonly Block[],
  probabilities: readonly number[],
  {
    minMs,
    maxMs,
    endMs,
    minProbability,
    perHour,
    baseCount = 0,
    spacingMs = minMs,
  }: { minMs: number; maxMs: number; endMs: number; minProbability: number; perHour: number; baseCount?: number; spacingMs?: number },
): number[] {
  const n = blocks.length;
  if (n < 2) return [];
  const startMs = blocks[0]!.startMs;
  const gaps = Array.from({ length: n - 1 }, (_, i) => i + 1).filter((g) => Number.isFinite(probabilities[g]!));
  const byScore = [...gaps].sort((a, b) => probabilities[b]! - probabilities[a]! || a - b);
  const maxCount = Math.ceil(baseCount + ((endMs - startMs) / 3_600_000) * perHour);
  const space = Math.max(minMs, spacingMs);
  const chosen: number[] = [];
  for (const g of byScore) {
    if (chosen.length >= maxCount || probabilities[g]! < minProbability) break;
    const at = blocks[g]!.startMs;
    if (at - startMs < minMs || endMs - at < minMs) continue;
    if (chosen.every((c) => Math.abs(blocks[c]!.startMs - at) >= space)) chosen.push(g);
  }
  return splitLong(blocks, probabilities, chosen, { minMs, maxMs, endMs });
}

/**
 * Cuts every chapter longer than `maxMs` at its highest-scoring gap that leaves both parts at least `minMs` (among those
 * that add no more chapters than the length needs, when there are any), until none is too long or no such gap is left. Returns the boundaries (block indexes), sorted.
 */
export function splitLong(
  blocks: readonly Block[],
  scores: readonly number[],
  picked: readonly number[],
  { minMs, maxMs, endMs }: { minMs: number; maxMs: number; endMs: number },
): number[] {
  const n = blocks.length;
  const chosen = [...picked].sort((a, b) => a - b);
  for (;;) {
    const edges = [0, ...chosen, n];
    let split: number | undefined;
    for (let i = 0; i + 1 < edges.length && split === undefined; i++) {
      const from = edges[i]!;
      const to = edges[i + 1]!;
      const s = blocks[from]!.startMs;
      const e = to < n ? blocks[to]!.startMs : endMs;
      if (e - s <= maxMs) continue;
      // Prefer a cut that needs no more chapters than the span must have (a cut near one end leaves the rest to cut again).
      const needed = Math.ceil((e - s) / maxMs);
      let best: number | undefined;
      let bestEven = false;
      for (let g = from + 1; g < to; g++) {
        if (!Number.isFinite(scores[g]!)) continue;
        const at = blocks[g]!.startMs;
        if (at - s < minMs || e - at < minMs) continue;
        const even = Math.ceil((at - s) / maxMs) + Math.ceil((e - at) / maxMs) <= needed;
        if (best === undefined || (even && !bestEven) || (even === bestEven && scores[g]! > scores[best]!)) {
          best = g;
          bestEven = even;
        }
      }
      split = best;
    }
    if (split === undefined) break;
    chosen.push(split);
    chosen.sort((a, b) => a - b);
  }
  return chosen;
}

/**
 * Moves a boundary at the start of block `g` to a nearby segment start (within a third of the blocks on either side)
 * where a discourse cue opens a turn, the nearest such one; otherwise to the nearest speaker change or longest pause
 * there is none of, it stays.
 */
function refine(segments: readonly EnrichSegment[], blocks: readonly Block[], g: number, lo: number, hi: number): number {
  const at = blocks[g]!.first;
  const from = Math.max(lo, blocks[g - 1]!.first + Math.ceil((blocks[g - 1]!.last - blocks[g - 1]!.first + 1) / 2));
  const to = Math.min(hi, blocks[g]!.first + Math.floor((blocks[g]!.last - blocks[g]!.first + 1) / 2));
  let best: number | undefined;
  for (let i = from; i <= to; i++) {
    if (!hasCue(segments[i]!.text)) continue;
    if (best === undefined || Math.abs(i - at) < Math.abs(best - at)) best = i;
  }
  return best ?? at;
}

/** Chapter spans from boundary segment indexes (sorted, unique, each > 0): they cover every segment, in order. */
export function spansFromStarts(segments: readonly EnrichSegment[], starts: readonly number[]): ChapterSpan[] {
  const firsts = [0, ...starts];
  return firsts.map((first, i) => {
    const last = i + 1 < firsts.length ? firsts[i + 1]! - 1 : segments.length - 1;
    const endMs = i + 1 < firsts.length ? segments[firsts[i + 1]!]!.startMs : Math.max(...segments.slice(first).map((s) => s.endMs));
    return { first, last, startMs: segments[first]!.startMs, endMs };
  });
}

/** The learned model's boundary probability of every gap (`-Infinity` where a passage starts inside the previous one's first segment). */
export function learnedProbabilities(segments: readonly EnrichSegment[], blocks: readonly Block[], language?: string, model: BoundaryModel = BOUNDARY_MODEL): number[] {
  const rows = gapFeatureRows(segments, blocks, language);
  return [0, ...rows.map((row, i) => (blocks[i + 1]!.first > blocks[i]!.first ? boundaryProbability(row, model) : -Infinity))];
}

/**
 * Chapter start segments of picked boundaries (block indexes, sorted): each moved to a discourse cue nearby when `refineCues`
 * and the move keeps every chapter at least `minMs`.
 */
export function startsOf(segments: readonly EnrichSegment[], blocks: readonly Block[], picked: readonly number[], minMs: number, refineCues = true): number[] {
  const startMs = segments[0]!.startMs;
  const endMs = Math.max(...segments.map((s) => s.endMs));
  const starts: number[] = [];
  for (const [i, g] of picked.entries()) {
    const lo = (starts[starts.length - 1] ?? 0) + 1;
    const s = refineCues ? refine(segments, blocks, g, lo, segments.length - 1) : blocks[g]!.first;
    // A refined start keeps the minimum length to the previous start and to the next boundary's passage; else the passage start stands.
    const prev = starts.length > 0 ? segments[starts[starts.length - 1]!]!.startMs : startMs;
    const next = i + 1 < picked.length ? blocks[picked[i + 1]!]!.startMs : endMs;
    const chosen = segments[s]!.startMs - prev >= minMs && next - segments[s]!.startMs >= minMs ? s : blocks[g]!.first;
    if (chosen > (starts[starts.length - 1] ?? 0)) starts.push(chosen);
  }
  return starts;
}

/**
 * The units a short talk is cut between: its segments, one a unit (a tutorial's segments are its sentences, 4 s at the
 * median). Joining segments shorter than 1–3 s to their neighbour made Pk worse on the tutorials (docs/relevance.md).
 */
export function unitsOf(segments: readonly EnrichSegment[]): Block[] {
  return segments.map((s, i) => ({ first: i, last: i, startMs: s.startMs, endMs: s.endMs, text: s.text }));
}

/** The short-talk model's boundary probability of every gap between units (`probabilities[g]`: the gap before unit g; [0] unused). */
export function shortTalkProbabilities(
  segments: readonly EnrichSegment[],
  units: readonly Block[],
  language?: string,
  model: BoundaryModel<ShortGapFeature> = SHORT_TALK_MODEL,
): number[] {
  return [0, ...shortGapFeatureRows(segments, units, language).map((row) => boundaryProbability(row, model))];
}

/**
 * Where the chapters of a short talk start (segment indexes, sorted): the likeliest gaps between units, at least the
 * talk's shortest chapter apart and from its ends, each above `minProbability`, at most `perMinute` a minute (a chapter
 * over `maxMs` cut at its likeliest gap, as {@link pickByProbability} does); when fewer
 * than two are found and `cuedSteps`, the likeliest gaps a step cue opens are added up to two (a talk of three cued steps
 * gets three chapters); then each start moves to a step cue in the unit before or after it, when `refine` and the move
 * keeps the spacing.
 */
export function shortTalkStarts(
  segments: readonly EnrichSegment[],
  units: readonly Block[],
  probabilities: readonly number[],
  {
    minMs,
    maxMs = Infinity,
    endMs,
    minProbability,
    perMinute,
    language,
    cuedSteps = true,
    refine = true,
  }: { minMs: number; maxMs?: number; endMs: number; minProbability: number; perMinute: number; language?: string | undefined; cuedSteps?: boolean; refine?: boolean },
): number[] {
  const n = units.length;
  if (n < 2) return [];
  const startMs = units[0]!.startMs;
  const cued = units.map((u) => opensStep(segments[u.first]!.text, language));
  const picked = pickByProbability(units, probabilities, { minMs, maxMs, endMs, minProbability, perHour: perMinute * 60, spacingMs: minMs });
  const fits = (at: number, taken: readonly number[], skip = -1): boolean =>
    at - startMs >= minMs && endMs - at >= minMs && taken.every((c, i) => i === skip || Math.abs(units[c]!.startMs - at) >= minMs);
  if (cuedSteps && picked.length < MIN_TOC_CHAPTERS - 1) {
    const byScore = Array.from({ length: n - 1 }, (_, i) => i + 1).sort((a, b) => probabilities[b]! - probabilities[a]! || a - b);
    for (const g of byScore) {
      if (picked.length >= MIN_TOC_CHAPTERS - 1) break;
      if (cued[g] && !picked.includes(g) && fits(units[g]!.startMs, picked)) picked.push(g);
    }
  }
  picked.sort((a, b) => a - b);
  if (refine) {
    // The model finds the valley to a sentence or so; a step cue says which sentence opens the step.
    for (const [i, g] of picked.entries()) {
      if (cued[g]) continue;
      const near = [g - 1, g + 1].filter((h) => h >= 1 && h < n && cued[h] && !picked.includes(h) && fits(units[h]!.startMs, picked, i));
      if (near.length > 0) picked[i] = near.sort((a, b) => probabilities[b]! - probabilities[a]! || a - b)[0]!;
    }
    picked.sort((a, b) => a - b);
  }
  return picked.map((g) => units[g]!.first);
}

/**
 * Whether one voice holds the speech: no segment has a speaker label (a tutorial's voice-over), or one speaker has at
 * least 90 % of the labelled speech time (a diarised monologue with a stray second label). The short-talk model was
 * fitted on monologues; a short meeting's turns are no steps, and the long-talk model, fitted on meetings, cuts it.
 */
export function oneVoice(segments: readonly EnrichSegment[]): boolean {
  const time = new Map<string, number>();
  for (const s of segments) {
    const who = s.speakerLabel?.trim();
    if (who) time.set(who, (time.get(who) ?? 0) + Math.max(1, s.endMs - s.startMs));
  }
  const total = [...time.values()].reduce((a, b) => a + b, 0);
  return total === 0 || Math.max(...time.values()) >= 0.9 * total;
}

/** Chapter starts as published: none (one chapter, no table of contents) when they would make fewer than {@link MIN_TOC_CHAPTERS} chapters. */
export function tocStarts(starts: readonly number[]): number[] {
  return starts.length + 1 < MIN_TOC_CHAPTERS ? [] : [...starts];
}

/** A short talk's chapter starts (segment indexes) with the short-talk model under this decoding: the cut {@link segmentTranscript} makes of one. */
export function shortTalkCut(segments: readonly EnrichSegment[], bounds: ChapterBounds, decoding: Readonly<ShortTalkDecoding> = SHORT_TALK_CUT, language?: string): number[] {
  const units = unitsOf(segments);
  if (units.length < 3) return [];
  const endMs = Math.max(...segments.map((s) => s.endMs));
  return shortTalkStarts(segments, units, shortTalkProbabilities(segments, units, language), {
    minMs: minChapterMs(bounds, endMs - segments[0]!.startMs),
    maxMs: bounds.maxMs,
    endMs,
    minProbability: decoding.minProbability,
    perMinute: decoding.perMinute,
    language,
    cuedSteps: decoding.cuedSteps,
    refine: decoding.refine,
  });
}

/**
 * Where a long talk's chapters start (segment indexes, sorted), from the boundary probabilities of the gaps between its
 * passages: picked by {@link pickByProbability} under the bounds and the decoding, moved to a cue nearby ({@link startsOf}).
 */
export function learnedStarts(
  segments: readonly EnrichSegment[],
  blocks: readonly Block[],
  probabilities: readonly number[],
  bounds: ChapterBounds,
  decoding: { minProbability: number; perHour: number; baseCount: number; spacingMs: number },
  refine = true,
): number[] {
  const endMs = Math.max(...segments.map((s) => s.endMs));
  const { minProbability, perHour, baseCount, spacingMs } = decoding;
  const picked = pickByProbability(blocks, probabilities, { minMs: bounds.minMs, maxMs: bounds.maxMs, endMs, minProbability, perHour, baseCount, spacingMs });
  return startsOf(segments, blocks, picked, bounds.minMs, refine);
}

/**
 * Which cut a transcript gets, and its starts (segment indexes): under `singleBelowMs` of speech, none (one chapter);
 * under `shortBelowMs` with one voice ({@link oneVoice}) a short talk, cut between its sentences by `cut.short`; else cut
 * between its passages by `cut.long` (with fewer than three passages, none). The evaluation decodes the same tree with
 * its own dials.
 */
export function chapterCut(
  segments: readonly EnrichSegment[],
  blocks: readonly Block[],
  bounds: ChapterBounds,
  cut: { short: () => number[]; long: () => number[] },
): { starts: number[]; shortTalk: boolean } {
  const duration = Math.max(...segments.map((s) => s.endMs)) - segments[0]!.startMs;
  const shortTalk = duration < bounds.shortBelowMs && oneVoice(segments);
  if (duration < bounds.singleBelowMs) return { starts: [], shortTalk };
  if (shortTalk) return { starts: cut.short(), shortTalk };
  return { starts: blocks.length < 3 ? [] : cut.long(), shortTalk };
}

/**
 * Chapters of a transcript (segments sorted by start), cut by {@link chapterCut} with the measured decoding. A short
 * talk's fewer than three chapters become one ({@link MIN_TOC_CHAPTERS}). Every chapter starts on a segment start; each
 * ends where the next starts; the last ends at the speech's end. Nothing is embedded: the learned models read words,
 * cues, speakers and pauses.
 */
export function segmentTranscript(segments: readonly EnrichSegment[], options: SegmentOptions = {}): ChapterSpan[] {
  if (segments.length === 0) return [];
  const bounds = { ...DEFAULT_CHAPTER_BOUNDS, ...options.bounds };
  const blocks = blocksOf(segments);
  options.signal?.throwIfAborted();
  const { starts, shortTalk } = chapterCut(segments, blocks, bounds, {
    short: () => shortTalkCut(segments, bounds, SHORT_TALK_CUT, options.language),
    long: () => learnedStarts(segments, blocks, learnedProbabilities(segments, blocks, options.language), bounds, BOUNDARY_DECODING),
  });
  // The table-of-contents rule (fewer than three chapters published as one) holds for short talks only: on meetings
  // it took the second chapter of 18 short QMSum dev meetings and made Pk worse (0.3435 → 0.3454, docs/relevance.md).
  return spansFromStarts(segments, shortTalk ? tocStarts(starts) : starts);
}
