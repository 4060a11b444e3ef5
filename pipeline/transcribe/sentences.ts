// Transcribed segments re-cut into sentences by their word timings and punctuation, so a citation starts where a sentence starts (pure).
import type { TimedSegment, TimedWord } from './types.js';

/** The limits of the re-cut, with their defaults. */
export interface SentenceOptions {
  /** A silence at least this long between two words ends a segment, punctuated or not (a turn, or unpunctuated speech). */
  pauseMs?: number;
  /** No segment runs longer: a longer sentence is cut at its longest pause, else at a comma, else at the limit. */
  maxSegmentMs?: number;
  /** A pause shorter than this is no better a place to cut an over-long sentence than a comma. */
  minCutPauseMs?: number;
}

/** A word with the text it stands for in the segment text (its punctuation included) and what separates it from the previous one. */
export interface SentenceToken {
  word: TimedWord;
  /** The word as written in the segment text, with the punctuation Whisper put around it. */
  text: string;
  /** What stood between the previous word and this one in the segment text (a space, nothing, ` — `). */
  before: string;
}

/** Titles and Latin abbreviations that a capitalised word follows inside a sentence ("Dr. Smith", "e.g. Paris"). */
const NOT_FINAL = new Set(['mr.', 'mrs.', 'ms.', 'dr.', 'prof.', 'st.', 'mt.', 'sr.', 'vs.', 'e.g.', 'i.e.', 'cf.', 'approx.', 'ca.', 'fig.', 'no.']);
/** Ends with a full stop, question or exclamation mark or ellipsis, perhaps inside quotes or brackets. */
const FINAL = /[.!?…。！？]+["'”’»)\]]*$/u;
const COMMA = /[,;:，、–—]["'”’»)\]]*$/u;
const CLOSERS = /["'”’»)\]]+$/u;
/** `U.S.`, `a.m.`: the stop is the abbreviation's, and ends a sentence only when a pause says so. */
const DOTTED = /^(\p{L}\.){2,}$/u;
/** A single initial: `J.` in "J. R. R. Tolkien". */
const INITIAL = /^\p{Lu}\.$/u;
/** A pause after a dotted abbreviation that does end its sentence. */
const ABBREVIATION_PAUSE_MS = 500;

const lettersOrDigits = /[\p{L}\p{N}]/u;
/** Punctuation right after a word (sticky: read in place, the text is a whole episode's). */
const TRAILING = /[^\s\p{L}\p{N}]*/uy;
/** How far past the last word found the next one is looked for, and how much more for each word not found meanwhile. */
const SEARCH_CHARS = 80;
const SKIP_CHARS_PER_MISSING = 40;

/**
 * Finds each word in the text its segments were given (words of some services carry no punctuation, OpenAI's among
 * them; faster-whisper's do): a word's text is the match plus the punctuation around it, `before` what separated it
 * from the previous word. A word not found where expected keeps its own spelling and a space before it. Each search
 * looks a short way ahead only, so a whole episode aligns in linear time.
 */
export function alignWords(text: string, words: TimedWord[]): SentenceToken[] {
  // Lower case only where it keeps every index in place (`İ` lowers to two code units).
  const lowered = text.toLowerCase();
  const lower = lowered.length === text.length ? lowered : text;
  const tokens: SentenceToken[] = [];
  let cursor = 0; // end of the last matched word, trailing punctuation included
  let missing = 0; // words not found since then
  words.forEach((word, i) => {
    const t = lower === text ? word.t : word.t.toLowerCase();
    const reach = SEARCH_CHARS + missing * SKIP_CHARS_PER_MISSING;
    const ahead = t ? lower.slice(cursor, cursor + reach + t.length).indexOf(t) : -1;
    const at = ahead < 0 ? -1 : cursor + ahead;
    // Between two words only spaces and punctuation; after words that were not found, their own spelling may lie between.
    const found = at >= 0 && (missing > 0 || !lettersOrDigits.test(text.slice(cursor, at)));
    if (!found) {
      tokens.push({ word, text: word.t, before: i === 0 ? '' : ' ' });
      missing++;
      return;
    }
    // Opening punctuation directly before the word (`"Hello`, `(laughs`) belongs to it.
    let start = at;
    while (start > cursor && !/\s/u.test(text[start - 1]!) && !lettersOrDigits.test(text[start - 1]!)) start--;
    let end = at + t.length;
    const next = lower === text ? words[i + 1]?.t : words[i + 1]?.t.toLowerCase();
    if (!next || !lower.startsWith(next, end)) {
      TRAILING.lastIndex = end;
      end += TRAILING.exec(text)![0].length;
    }
    const before = i === 0 ? '' : missing === 0 ? text.slice(cursor, start) : ' ';
    tokens.push({ word, text: text.slice(start, end), before });
    cursor = end;
    missing = 0;
  });
  return tokens;
}

/** Whether a sentence ends after `token`, given the token that follows it (none: the end of the speech). */
export function endsSentence(token: SentenceToken, next: SentenceToken | undefined): boolean {
  if (!FINAL.test(token.text)) return false;
  if (!next) return true;
  if (/^[^\p{L}\p{N}]*\p{Ll}/u.test(next.text)) return false; // "e.g. the", "so... and": the sentence goes on
  const bare = token.text.replace(CLOSERS, '').toLowerCase();
  const word = bare.split(/\s+/u).at(-1)!;
  if (NOT_FINAL.has(word) || INITIAL.test(token.text.replace(CLOSERS, ''))) return false;
  if (DOTTED.test(word)) return next.word.s - token.word.e >= ABBREVIATION_PAUSE_MS;
  return true;
}

const gapAfter = (tokens: SentenceToken[], k: number) => tokens[k + 1]!.word.s - tokens[k]!.word.e;

/**
 * Where to cut an over-long run of tokens (after index k): its longest pause, else the comma nearest its middle, else
 * at the limit (the last word within the run's length shared out in pieces of at most `maxSegmentMs`).
 */
export function cutPoint(tokens: SentenceToken[], { maxSegmentMs = 30_000, minCutPauseMs = 300 }: SentenceOptions = {}): number {
  let best = -1;
  for (let k = 0; k < tokens.length - 1; k++) if (best < 0 || gapAfter(tokens, k) > gapAfter(tokens, best)) best = k;
  if (best >= 0 && gapAfter(tokens, best) >= minCutPauseMs) return best;
  const first = tokens[0]!.word.s;
  const last = lastEnd(tokens);
  const middle = (first + last) / 2;
  let comma = -1;
  for (let k = 0; k < tokens.length - 1; k++) {
    if (!COMMA.test(tokens[k]!.text)) continue;
    if (comma < 0 || Math.abs(tokens[k]!.word.e - middle) < Math.abs(tokens[comma]!.word.e - middle)) comma = k;
  }
  if (comma >= 0) return comma;
  // At the limit, but evenly: a 32 s sentence reads better as two of 16 s than as 30 s and a 2 s tail.
  const pieces = Math.ceil((last - first) / maxSegmentMs);
  const target = Math.min(maxSegmentMs, (last - first) / pieces);
  let k = 0;
  while (k + 1 < tokens.length - 1 && tokens[k + 1]!.word.e - first <= target) k++;
  return k;
}

/** The latest word end (a loop: a whole episode's words are too many to spread into Math.max). */
function lastEnd(tokens: SentenceToken[]): number {
  let end = 0;
  for (const t of tokens) if (t.word.e > end) end = t.word.e;
  return end;
}

function spanMs(tokens: SentenceToken[]): number {
  return lastEnd(tokens) - tokens[0]!.word.s;
}

/** Splits a run longer than the limit, again and again, at `cutPoint`. */
function withinLimit(tokens: SentenceToken[], options: SentenceOptions): SentenceToken[][] {
  if (tokens.length < 2 || spanMs(tokens) <= (options.maxSegmentMs ?? 30_000)) return [tokens];
  const k = cutPoint(tokens, options);
  return [...withinLimit(tokens.slice(0, k + 1), options), ...withinLimit(tokens.slice(k + 1), options)];
}

function segmentOf(tokens: SentenceToken[]): TimedSegment {
  const text = tokens.map((t, i) => (i === 0 ? '' : t.before) + t.text).join('');
  const words = tokens.map((t) => ({ ...t.word }));
  return { startMs: words[0]!.s, endMs: lastEnd(tokens), text: text.trim(), words };
}

/** One stretch of worded segments re-cut into sentences. */
function recut(run: TimedSegment[], options: SentenceOptions): TimedSegment[] {
  const { pauseMs = 1500 } = options;
  // One text for the stretch: the cleaning gives a word to the segment holding its middle, not always the one whose text has it.
  const tokens = alignWords(
    run.map((s) => s.text).join(' '),
    run.flatMap((s) => s.words),
  );
  const out: TimedSegment[] = [];
  let from = 0;
  tokens.forEach((token, i) => {
    const next = tokens[i + 1];
    if (next && !endsSentence(token, next) && next.word.s - token.word.e < pauseMs) return;
    for (const part of withinLimit(tokens.slice(from, i + 1), options)) out.push(segmentOf(part));
    from = i + 1;
  });
  return out;
}

/**
 * Re-cuts cleaned, word-timed segments into sentences: a segment ends where a sentence ends (its punctuation, not a
 * title, an initial or an abbreviation such as "e.g." or "U.S." followed by more of the sentence) or at a pause of at
 * least `pauseMs`, never elsewhere, except that none runs longer than `maxSegmentMs` (cut at its longest pause, else at a
 * comma, else at the limit). Each segment spans its words (first start to last end), its text the words as the source
 * text wrote and spaced them. Segments without words (a service that timed segments only) are kept as they are and
 * end the stretch before them: with no word times there is nowhere honest to cut.
 */
export function sentenceSegments(segments: TimedSegment[], options: SentenceOptions = {}): TimedSegment[] {
  const out: TimedSegment[] = [];
  let run: TimedSegment[] = [];
  const flush = () => {
    if (run.length) out.push(...recut(run, options));
    run = [];
  };
  for (const segment of segments) {
    if (segment.words.length) {
      run.push(segment);
      continue;
    }
    flush();
    out.push({ ...segment, words: [] });
  }
  flush();
  return out;
}
