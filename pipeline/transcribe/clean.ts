// Cleaning word times before indexing: Whisper's known timing faults repaired, its failed segments dropped (pure).
import type { RawSegment, RawTranscript, RawWord, TimedSegment, TimedWord } from './types.js';

/** The limits of the cleaning; the defaults are Whisper's own decoding thresholds. */
export interface CleanOptions {
  /** Above this gzip compression ratio a segment is a repetition loop (Whisper's `compression_ratio_threshold`). */
  maxCompressionRatio?: number;
  /** Below this average log probability, together with `minNoSpeechProb`, a segment is noise read as words. */
  minAvgLogprob?: number;
  minNoSpeechProb?: number;
  /** No spoken word lasts longer: a longer one has swallowed a silence (faster-whisper #125, #294). */
  maxWordMs?: number;
}

const toMs = (seconds: number) => Math.round(seconds * 1000);
const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
const sameText = (a: string, b: string) => a.trim().toLowerCase().replace(/\s+/g, ' ') === b.trim().toLowerCase().replace(/\s+/g, ' ');

/** Whether a segment fails Whisper's own quality checks: a repetition loop, or noise decoded as words. */
export function failsThresholds(s: RawSegment, { maxCompressionRatio = 2.4, minAvgLogprob = -1, minNoSpeechProb = 0.6 }: CleanOptions = {}): boolean {
  if (s.compressionRatio !== undefined && s.compressionRatio > maxCompressionRatio) return true;
  return s.avgLogprob !== undefined && s.noSpeechProb !== undefined && s.avgLogprob < minAvgLogprob && s.noSpeechProb > minNoSpeechProb;
}

/** The index of the segment a word belongs to: the one holding its midpoint, else the nearest. */
export function owningSegment(word: RawWord, segments: RawSegment[]): number {
  const mid = (word.start + word.end) / 2;
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  segments.forEach((s, i) => {
    const distance = mid < s.start ? s.start - mid : mid > s.end ? mid - s.end : 0;
    if (distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  });
  return best;
}

/**
 * A segment's words with times clamped to `[0, durationMs]`, starts monotonic and each start
 * ≤ its end. A word longer than `maxWordMs` has absorbed a silence: the first word of a
 * segment keeps its end (Whisper stamps the first word after a pause early), any other keeps its start.
 */
export function cleanWords(words: RawWord[], durationMs: number, { maxWordMs = 2000 }: CleanOptions = {}): TimedWord[] {
  const out: TimedWord[] = [];
  for (const w of words) {
    const t = w.word.trim();
    if (!t) continue;
    let s = clamp(toMs(w.start), 0, durationMs);
    let e = clamp(toMs(w.end), 0, durationMs);
    if (e < s) e = s;
    if (e - s > maxWordMs) {
      if (out.length === 0) s = e - maxWordMs;
      else e = s + maxWordMs;
    }
    const previous = out.at(-1);
    if (previous && s < previous.s) s = previous.s;
    if (e < s) e = s;
    out.push({ t, s, e });
  }
  return out;
}

/**
 * Turns a normalised answer (times in seconds, already offset to the whole file) into clean
 * segments in milliseconds: segments failing Whisper's thresholds dropped with their words,
 * repeated identical consecutive segments collapsed into the first, words grouped under their
 * segments, every time clamped to the duration and monotonic. A segment with words spans them.
 */
export function cleanTranscript(raw: Pick<RawTranscript, 'segments' | 'words'>, durationMs: number, options: CleanOptions = {}): TimedSegment[] {
  const segments = [...raw.segments].sort((a, b) => a.start - b.start);
  const keep = segments.map((s) => !failsThresholds(s, options) && s.text.trim() !== '');
  let lastKept: RawSegment | undefined;
  segments.forEach((s, i) => {
    if (!keep[i]) return;
    if (lastKept && sameText(lastKept.text, s.text)) keep[i] = false;
    else lastKept = s;
  });

  const wordsBySegment = segments.map((): RawWord[] => []);
  for (const word of [...raw.words].sort((a, b) => a.start - b.start)) {
    const owner = owningSegment(word, segments);
    if (owner >= 0) wordsBySegment[owner]!.push(word);
  }

  const out: TimedSegment[] = [];
  segments.forEach((s, i) => {
    if (!keep[i]) return;
    const words = cleanWords(wordsBySegment[i]!, durationMs, options);
    const previous = out.at(-1);
    // Words may not go back before the previous segment's words.
    const floor = previous ? (previous.words.at(-1)?.s ?? previous.startMs) : 0;
    for (const w of words) {
      if (w.s < floor) w.s = floor;
      if (w.e < w.s) w.e = w.s;
    }
    let startMs = words.length ? words[0]!.s : clamp(toMs(s.start), 0, durationMs);
    let endMs = words.length ? Math.max(...words.map((w) => w.e)) : clamp(toMs(s.end), 0, durationMs);
    if (previous && startMs < previous.startMs) startMs = previous.startMs;
    if (endMs < startMs) endMs = startMs;
    out.push({ startMs, endMs, text: s.text.trim(), words });
  });
  return out;
}
