// Transcription quality against reference speech: word error rate over normalised words, and how far each matching word starts from its forced-aligned start.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A word of the reference, with its forced-aligned start and end (ms). */
export interface ReferenceWord {
  t: string;
  startMs: number;
  endMs: number;
}

/** A transcribed word; `startMs` is missing for the second and later parts of a word that normalising split. */
export interface HeardWord {
  t: string;
  startMs?: number;
}

const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
/** Written forms a reading's text spells out. */
const ABBREVIATIONS: Record<string, string[]> = { mr: ['mister'], mrs: ['missus'], dr: ['doctor'] };

/** 0–999 as words ("one hundred twenty three"); other numbers are left as digits (the simple cases only). */
function numberWords(n: number): string[] {
  if (n < 20) return [SMALL[n]!];
  if (n < 100) return n % 10 ? [TENS[Math.floor(n / 10)]!, SMALL[n % 10]!] : [TENS[n / 10]!];
  if (n < 1000) return [SMALL[Math.floor(n / 100)]!, 'hundred', ...(n % 100 ? numberWords(n % 100) : [])];
  return [String(n)];
}

/**
 * The words of `text` as compared: lower case, hyphens and dashes as spaces, punctuation dropped (an apostrophe inside
 * a word kept), numbers below 1,000 as words, Mr/Mrs/Dr spelled out.
 */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[-‐-―]/g, ' ')
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean)
    .flatMap((w) => (/^\d{1,3}$/.test(w) ? numberWords(Number(w)) : (ABBREVIATIONS[w] ?? [w])));
}

/** Transcribed words (text and start) as normalised words; a word that splits keeps its start on its first part. */
export function normaliseHeard(words: { t: string; s: number }[]): HeardWord[] {
  return words.flatMap((w) => normaliseWords(w.t).map((t, i) => (i === 0 ? { t, startMs: w.s } : { t })));
}

export interface WordAlignment {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Reference and transcribed index of each word the two have in common, in order. */
  matches: [number, number][];
}

/** The minimum-edit alignment of two word sequences (Levenshtein; among equal costs a match is preferred). */
export function alignWords(reference: string[], heard: string[]): WordAlignment {
  const n = reference.length;
  const m = heard.length;
  const cost: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + (reference[i - 1] === heard[j - 1] ? 0 : 1), cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
  const out: WordAlignment = { substitutions: 0, deletions: 0, insertions: 0, matches: [] };
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const here = cost[i]![j]!;
    if (i > 0 && j > 0 && here === cost[i - 1]![j - 1]! + (reference[i - 1] === heard[j - 1] ? 0 : 1)) {
      if (reference[i - 1] === heard[j - 1]) out.matches.push([i - 1, j - 1]);
      else out.substitutions++;
      i--;
      j--;
    } else if (i > 0 && here === cost[i - 1]![j]! + 1) {
      out.deletions++;
      i--;
    } else {
      out.insertions++;
      j--;
    }
  }
  out.matches.reverse();
  return out;
}

export interface QualityScore {
  referenceWords: number;
  errors: number;
  /** (substitutions + deletions + insertions) / reference words. */
  wer: number;
  /** |transcribed start − aligned start| of each matching word that has a start, ms. */
  startErrorsMs: number[];
}

/** Scores one transcription against one reference. */
export function scoreTranscription(reference: ReferenceWord[], heardWords: { t: string; s: number }[]): QualityScore {
  const ref = reference.flatMap((w) => normaliseWords(w.t).map((t) => ({ ...w, t })));
  const heard = normaliseHeard(heardWords);
  const a = alignWords(
    ref.map((w) => w.t),
    heard.map((w) => w.t),
  );
  const errors = a.substitutions + a.deletions + a.insertions;
  const startErrorsMs = a.matches.flatMap(([r, h]) => (heard[h]!.startMs === undefined ? [] : [Math.abs(heard[h]!.startMs! - ref[r]!.startMs)]));
  return { referenceWords: ref.length, errors, wer: ref.length ? errors / ref.length : 0, startErrorsMs };
}

/** The `q`-quantile (0–1) of `values` by nearest rank. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** One reference clip: its audio file and its forced-aligned words. */
export interface ReferenceClip {
  id: string;
  wav: string;
  words: ReferenceWord[];
}

/**
 * A clip of the PocketSphinx LibriVox set (scripts/ops/provision/speech-samples.ts): `<id>.wav`, and `<id>.json` whose
 * `w` lists `{t, b, d}` (word, start and duration in seconds); fillers (`<s>`, `<sil>`) are dropped and a pronunciation
 * variant's mark (`was(2)`) removed.
 */
export function readReferenceClip(dir: string, id: string): ReferenceClip {
  const aligned = JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as { w: { t: string; b: number; d: number }[] };
  const words = aligned.w
    .filter((w) => !/^<.*>$/.test(w.t))
    .map((w) => ({ t: w.t.replace(/\(\d+\)$/, ''), startMs: Math.round(w.b * 1000), endMs: Math.round((w.b + w.d) * 1000) }));
  return { id, wav: path.join(dir, `${id}.wav`), words };
}
