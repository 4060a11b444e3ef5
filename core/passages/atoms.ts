// The atoms passages are packed from (a whole segment, a sentence or a word, with its sentence marks), chapter
// boundaries they never cross, and the greedy packing itself.
import type { ChapterRecord, SegmentRecord } from '../library/checks.js';

/** The smallest piece of speech that is packed: a whole segment, a sentence or a word. */
/** Passage lengths, in ms of transcript time. */
export interface PassageOptions {
  /** A passage shorter than this is merged with its neighbour when the result still fits `maxMs`. */
  minMs?: number;
  /** A passage is closed at the first sentence end once it is this long. */
  targetMs?: number;
  /** Never longer than this, unless one word is. */
  maxMs?: number;
}

export interface Atom {
  text: string;
  s: number;
  e: number;
  speaker: string | null;
  /** A passage may end after this atom without cutting a sentence (segment ends always qualify). */
  sentenceEnd: boolean;
  /** Position in reading order, so atoms with equal start keep their order. */
  order: number;
  /** Sentence starts inside `text`: `[charOffset, ms]`. */
  marks: Array<[number, number]>;
}

export const SENTENCE_END = /[.!?…]["'”’)\]]*$/;

/**
 * Share of a passage's speech time that makes a speaker one of its `mainSpeakers`. Not
 * every speaker: in a four-person meeting nearly every passage has all four, and
 * someone's "Yeah." should not make a passage theirs. On the qmsum dev queries, matching
 * every speaker gave hybrid nDCG@10 at most +0.002 (and less on the product meetings'
 * speaker queries), this share +0.002 to +0.007 (0.15: +0.001; 0.4: about the same).
 */
export const MAIN_SPEAKER_SHARE = 0.25;

export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Sorted, distinct start and end times of every chapter: overlapping chapters give more boundaries. */
export function chapterBoundaries(chapters: readonly ChapterRecord[]): number[] {
  return [...new Set(chapters.flatMap((c) => [c.startMs, c.endMs]))].sort((a, b) => a - b);
}

/** Index of the zone holding time `t`: the number of boundaries at or before it. */
export function zoneOf(boundaries: readonly number[], t: number): number {
  let lo = 0;
  let hi = boundaries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (boundaries[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Is there a boundary strictly inside (s, e)? */
export function crossesBoundary(boundaries: readonly number[], s: number, e: number): boolean {
  return zoneOf(boundaries, s) !== zoneOf(boundaries, Math.max(s, e - 1));
}

/**
 * Pieces of `text` (sentences, or words) with times shared out by character length
 * over [s, e], for segments that must be split but carry no word timings.
 */
function interpolate(text: string, s: number, e: number, pattern: RegExp): { text: string; s: number; e: number }[] {
  const pieces: { text: string; s: number; e: number }[] = [];
  const span = e - s;
  for (const m of text.matchAll(pattern)) {
    const piece = m[0].trim();
    if (piece === '') continue;
    const c0 = m.index!;
    const c1 = c0 + m[0].trimEnd().length;
    pieces.push({ text: piece, s: s + Math.round((span * c0) / text.length), e: s + Math.round((span * c1) / text.length) });
  }
  return pieces;
}

const SENTENCES = /[^.!?…]+(?:[.!?…]+["'”’)\]]*|$)\s*/g;
const WORDS = /\S+\s*/g;

/**
 * Sentence starts of a whole segment's (normalized) text with their times: the start of
 * the sentence's first word when the segment's word timings match its words one to one,
 * else shared out by character length over [s, e].
 */
export function sentenceMarks(text: string, words: readonly { s: number }[], s: number, e: number): Array<[number, number]> {
  const tokenStarts = [...text.matchAll(/\S+/g)].map((m) => m.index!);
  const timed = words.length === tokenStarts.length;
  const marks: Array<[number, number]> = [];
  let token = 0;
  for (const m of text.matchAll(SENTENCES)) {
    const c0 = m.index! + (m[0].length - m[0].trimStart().length);
    if (c0 >= text.length) continue;
    while (token < tokenStarts.length && tokenStarts[token]! < c0) token++;
    const ms = timed && token < words.length ? words[token]!.s : s + Math.round(((e - s) * c0) / Math.max(1, text.length));
    marks.push([c0, Math.min(e, Math.max(s, ms))]);
  }
  return marks.length > 0 && marks[0]![0] === 0 ? marks : [[0, s], ...marks];
}

/**
 * Turns one segment into atoms: itself when it fits, else its words (timed or interpolated). A segment
 * whose word times were interpolated (a caption cue) is cited from its start only: its one mark is the cue.
 */
export function segmentAtoms(seg: SegmentRecord, boundaries: readonly number[], maxMs: number, order: () => number, interpolated: boolean): Atom[] {
  const speaker = seg.speakerLabel ?? null;
  const text = normalize(seg.text);
  const words = (seg.words ?? []).filter((w) => normalize(w.t) !== '');
  if (text === '' && words.length === 0) return [];
  const fits = seg.endMs - seg.startMs <= maxMs && !crossesBoundary(boundaries, seg.startMs, seg.endMs);
  if (fits && text !== '') {
    const marks: Array<[number, number]> = interpolated ? [[0, seg.startMs]] : sentenceMarks(text, words, seg.startMs, seg.endMs);
    return [{ text, s: seg.startMs, e: seg.endMs, speaker, sentenceEnd: true, order: order(), marks }];
  }
  let pieces: { text: string; s: number; e: number }[];
  if (words.length > 0) {
    pieces = words.map((w) => ({ text: normalize(w.t), s: w.s, e: w.e }));
  } else {
    pieces = [];
    for (const sentence of interpolate(text, seg.startMs, seg.endMs, SENTENCES)) {
      // A sentence that alone is too long, or straddles a chapter boundary, goes word by word.
      const split = sentence.e - sentence.s > maxMs || crossesBoundary(boundaries, sentence.s, sentence.e);
      pieces.push(...(split ? interpolate(sentence.text, sentence.s, sentence.e, WORDS) : [sentence]));
    }
  }
  return pieces.map((p, i) => ({
    ...p,
    speaker,
    sentenceEnd: i === pieces.length - 1 || SENTENCE_END.test(p.text),
    order: order(),
    // A piece opens a sentence when it opens the segment or follows a sentence end (only the segment's start when its times were interpolated).
    marks: i === 0 ? [[0, interpolated ? seg.startMs : p.s]] : !interpolated && SENTENCE_END.test(pieces[i - 1]!.text) ? [[0, p.s]] : [],
  }));
}

/**
 * Greedy packing of time-ordered atoms into groups: a group closes at the first
 * sentence end once it reaches `targetMs`; an atom that would push it past `maxMs`
 * starts a new group, cutting back to the last sentence end when that leaves at
 * least `minMs`. A short last group is merged into the previous one when it fits.
 */
export function packAtoms<T extends { s: number; e: number; sentenceEnd: boolean }>(atoms: readonly T[], { minMs, targetMs, maxMs }: Required<PassageOptions>): T[][] {
  const groups: T[][] = [];
  const endOf = (g: readonly T[]): number => g.reduce((m, a) => Math.max(m, a.e), -Infinity);
  const spanOf = (g: readonly T[]): number => endOf(g) - g[0]!.s;
  let cur: T[] = [];
  for (const atom of atoms) {
    for (;;) {
      if (cur.length === 0) {
        cur.push(atom);
        break;
      }
      const last = cur[cur.length - 1]!;
      if (spanOf(cur) >= targetMs && last.sentenceEnd) {
        groups.push(cur);
        cur = [];
        continue;
      }
      if (Math.max(endOf(cur), atom.e) - cur[0]!.s <= maxMs) {
        cur.push(atom);
        break;
      }
      // Over the limit: end at the last sentence end that leaves a long enough passage.
      let cut = -1;
      for (let j = cur.length - 2; j >= 0; j--) {
        if (cur[j]!.sentenceEnd && spanOf(cur.slice(0, j + 1)) >= minMs) {
          cut = j;
          break;
        }
      }
      if (cut < 0) {
        groups.push(cur);
        cur = [];
      } else {
        groups.push(cur.slice(0, cut + 1));
        cur = cur.slice(cut + 1);
      }
    }
  }
  if (cur.length > 0) groups.push(cur);
  if (groups.length >= 2) {
    const tail = groups[groups.length - 1]!;
    const prev = groups[groups.length - 2]!;
    if (spanOf(tail) < minMs && spanOf([...prev, ...tail]) <= maxMs) {
      groups.splice(groups.length - 2, 2, [...prev, ...tail]);
    }
  }
  return groups;
}
