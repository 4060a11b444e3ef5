// What every importer shares: clean text, stable ids and slugs, words spread over a cue, and the problems it reports.
import { createHash } from 'node:crypto';
import { compile } from 'html-to-text';
import { facetSlug } from '../core/contract/facet-ids.js';
import type { SegmentRecord, WordRecord } from '../core/contract/library-format.js';

/** One line of text: Unicode NFC, every run of white space (no-break spaces, line breaks) one space. */
export function cleanText(value: string): string {
  return value.normalize('NFC').replace(/\s+/g, ' ').trim();
}

// Compiled once: `convert()` compiles its options on every call (about 0.3 ms, even for an empty string), which made a
// 90,000-item feed hold the worker's event loop for tens of seconds (security review 2026-11-27, item 5).
const toPlainText = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
});

/** HTML (a feed's description, show notes) as plain text: tags gone, entities decoded, links dropped. */
export function htmlToText(html: string): string {
  // Most feed items have no description: nothing to convert.
  if (html.trim() === '') return '';
  return cleanText(toPlainText(html));
}

/** The ASCII letters and digits of a title, words joined by `-`, at most `max` characters; empty when none are left. */
function asciiSlug(value: string, max: number): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

/** A slug for a channel (`[a-z0-9-]{1,63}`), from any title. */
export function slugify(value: string, max = 63): string {
  return asciiSlug(value, max) || 'channel';
}

/**
 * The slug part of a facet id (`p_…`, `t_…`) from a name: the ASCII slug as ever for a Latin name, with a hash of the
 * whole name when letters of another script were dropped (decision 33: `東京` and `Москва` are two facets).
 */
export function facetNameSlug(name: string, max = 80): string {
  return facetSlug(asciiSlug(name, max), name);
}

/** A short, stable hash of its parts (hex). */
export function stableHash(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
}

/** A segment as the importers build it, before it becomes a library record. */
export interface DraftSegment {
  speaker: string | null;
  startMs: number;
  endMs: number;
  text: string;
  /** Word times from the source, when it has them. */
  words?: WordRecord[];
  /** True when some or all of `words` were spread over the segment by length. */
  interpolated?: boolean;
}

/** A transcript as read from one source file. */
export interface DraftTranscript {
  segments: DraftSegment[];
  /** `source` when every word time came from the file. */
  timing: 'source' | 'interpolated';
  /** What the file was, as told by its content. */
  format: string;
}

/** The words of `text` spread over [start, end] by their length: a source that times only cues. */
export function spreadWords(text: string, startMs: number, endMs: number): WordRecord[] {
  const tokens = text.split(' ').filter(Boolean);
  const total = tokens.reduce((n, t) => n + t.length + 1, 0);
  const span = Math.max(0, endMs - startMs);
  const words: WordRecord[] = [];
  let at = 0;
  for (const t of tokens) {
    const s = startMs + Math.round((span * at) / Math.max(1, total));
    at += t.length + 1;
    const e = startMs + Math.round((span * at) / Math.max(1, total));
    words.push({ t, s, e: Math.max(s, e) });
  }
  return words;
}

/** Draft segments as library segments; `wordsInterpolated` marks the segments of a mixed source. */
export function toSegmentRecords(draft: DraftTranscript): SegmentRecord[] {
  return draft.segments
    .filter((s) => s.text !== '')
    .map((s) => ({
      speakerLabel: s.speaker,
      startMs: s.startMs,
      endMs: Math.max(s.startMs, s.endMs),
      text: s.text,
      ...(s.words && s.words.length > 0 ? { words: s.words } : {}),
      ...(draft.timing === 'source' && s.interpolated ? { wordsInterpolated: true } : {}),
    }));
}

/** A problem with one input file: its path, where in it (line, cue), and why. Never thrown past the file. */
export class ImportProblem extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly where?: string,
  ) {
    super(`${file}${where ? `: ${where}` : ''}: ${reason}`);
  }
}

/** `h:mm:ss`, `m:ss` or `mm:ss.fff` (a comma also takes the decimal point) in milliseconds; undefined for anything else. */
export function clockMs(value: string): number | undefined {
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{2}(?:[.,]\d{1,3})?)$/.exec(value);
  if (!clock) return undefined;
  const [, h = '0', m = '0', s = '0'] = clock;
  return Math.round((Number(h) * 3600 + Number(m) * 60 + Number(s.replace(',', '.'))) * 1000);
}

/** A language tag's primary subtag (`en` of `en-US`, `pt` of `pt_BR`), lower case; undefined for none. */
export const primaryLanguage = (tag: string | null | undefined): string | undefined => tag?.trim().toLowerCase().split(/[-_]/)[0] || undefined;

/** Milliseconds from seconds (a float in JSON sources), never negative; 0 for a number that is not finite (`1e400`). */
export const ms = (seconds: number): number => (Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * 1000)) : 0);
