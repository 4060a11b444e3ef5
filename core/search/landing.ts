// Where a citation begins: the sentence of a passage where the query's terms gather, not the passage start (pure).
import { QUESTION_WORDS } from './keyword-query.js';
import type { TermRange } from './types.js';

/**
 * Marker characters the highlighter wraps matched terms in: private-use characters no
 * transcript holds. Not control characters: OpenSearch trims a fragment like a Java
 * string (every character up to U+0020), so a tag on the first or last word was lost.
 */
export const HIGHLIGHT_PRE = '\uE000';
export const HIGHLIGHT_POST = '\uE001';

/**
 * Reads a highlighted copy of a text (the whole field, matched terms wrapped in
 * {@link HIGHLIGHT_PRE} … {@link HIGHLIGHT_POST}) back into the matched ranges of the
 * plain text. Returns undefined when the markers do not pair up or the text differs.
 */
export function parseHighlight(tagged: string, plain: string): TermRange[] | undefined {
  const ranges: TermRange[] = [];
  let out = 0;
  let open = -1;
  for (const ch of tagged) {
    if (ch === HIGHLIGHT_PRE) {
      if (open >= 0) return undefined;
      open = out;
    } else if (ch === HIGHLIGHT_POST) {
      if (open < 0) return undefined;
      if (out > open) ranges.push({ start: open, end: out });
      open = -1;
    } else {
      if (plain[out] !== ch) return undefined;
      out += ch.length;
    }
  }
  return open < 0 && out === plain.length ? ranges : undefined;
}

/**
 * Words of a question's framing that say nothing about where the answer is ("what did the
 * group discuss about …", "how do you …"): matched in speech they mark filler, not the
 * answer: the keyword leg's {@link QUESTION_WORDS} (left out of the highlighted query already)
 * plus the verbs and nouns of asking about a conversation, which the keyword leg does match.
 */
const FRAMING: ReadonlySet<string> = new Set([
  ...QUESTION_WORDS,
  ...'was is are be about discuss discussed discussing discussion discussions talk talked talking say said saying think thought thinks opinion opinions mention mentioned group team meeting meetings they them he she his her it its will way use using used'.split(
    ' ',
  ),
]);

/** A crude key that puts a term's surface forms together (the engine matched them by stem already). */
function termKey(surface: string): string {
  const w = surface.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 3 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 2 && w.endsWith('s')) return w.slice(0, -1);
  return w;
}

/** `matches` sorted by start: itself when it already is (as the highlighter and the tokenizer give them), else a sorted copy. */
function inTextOrder(matches: readonly TermRange[]): readonly TermRange[] {
  for (let i = 1; i < matches.length; i++) if (matches[i]!.start < matches[i - 1]!.start) return [...matches].sort((a, b) => a.start - b.start);
  return matches;
}

export interface LandingOptions {
  /** Weight of the terms of the next sentence (said within `windowMs`) that the sentence itself lacks: an answer's first sentence often only sets it up. */
  lookahead?: number;
  /** How soon the next sentence must follow to count, in ms. */
  windowMs?: number;
  /**
   * The earliest sentence scoring at least this share of the best one is cited: the
   * answer's own words often come again later in the passage, after it is over.
   */
  slack?: number;
  /** Cite passage starts (for comparison). */
  off?: boolean;
}

export const DEFAULT_LANDING: Required<LandingOptions> = { lookahead: 0.3, windowMs: 15_000, slack: 0.8, off: false };

/** Where to cite a passage from: a character offset into its text and the time there. */
export interface CitationStart {
  offset: number;
  ms: number;
}

/**
 * Picks the sentence to cite. Each sentence (from `marks`, flat `[offset, ms, …]`) that
 * holds a matched term scores the terms it holds, each weighted by how rare it is among
 * the passage's sentences (a term in every sentence says nothing about where the answer
 * is), plus `lookahead` × the weight of the next sentence's other terms; the earliest
 * sentence within `slack` of the best wins. No usable match (or no marks): undefined,
 * the passage start.
 */
export function chooseLanding(
  text: string,
  marks: readonly number[],
  matches: readonly TermRange[],
  { lookahead = DEFAULT_LANDING.lookahead, windowMs = DEFAULT_LANDING.windowMs, slack = DEFAULT_LANDING.slack, off = false }: LandingOptions = {},
): CitationStart | undefined {
  const n = marks.length >> 1;
  if (off || n < 2 || matches.length === 0) return undefined;
  // Sentence i starts at marks[2i] (offset) and marks[2i + 1] (ms). A search cites about thirty passages of a dozen
  // sentences each: only sentences holding a term get a set, and matches (in text order already) are not copied.
  const terms: Array<Set<string> | undefined> = new Array<Set<string> | undefined>(n);
  let s = 0;
  for (const m of inTextOrder(matches)) {
    while (s + 1 < n && marks[2 * (s + 1)]! <= m.start) s++;
    const surface = text.slice(m.start, m.end).toLowerCase();
    const key = termKey(surface);
    if (!FRAMING.has(key) && !FRAMING.has(surface)) (terms[s] ??= new Set()).add(key);
  }
  const df = new Map<string, number>();
  for (const set of terms) if (set) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  if (df.size === 0) return undefined;
  const weight = (t: string) => Math.log(1 + n / df.get(t)!);

  const scores = new Float64Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) {
    const set = terms[i];
    if (!set) continue;
    let score = 0;
    for (const t of set) score += weight(t);
    const next = terms[i + 1];
    if (next && marks[2 * (i + 1) + 1]! < marks[2 * i + 1]! + windowMs) for (const t of next) if (!set.has(t)) score += lookahead * weight(t);
    scores[i] = score;
    if (score > top) top = score;
  }
  const best = top > 0 ? scores.findIndex((score) => score >= slack * top - 1e-9) : -1;
  return best < 0 ? undefined : { offset: marks[2 * best]!, ms: marks[2 * best + 1]! };
}
