// OpenSearch's `english` analyzer in process, for the texts it was checked on: which words of a passage the keyword leg matched, without a round trip.
import { stemmer } from 'stemmer';
import type { TermRange } from './types.js';

/** Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`): the analyzer drops them. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/**
 * A word as the standard tokenizer (Unicode word boundaries, UAX #29) cuts it in Latin text:
 * letters, digits and `_`, joined across `'` `.` `:` between letters ("don't", "U.S.A") and
 * across `,` `.` `;` `'` between digits ("1,000", "3.5").
 */
const WORD = /[\p{L}\p{M}\p{Nd}_]+(?:(?:(?<=[\p{L}\p{M}])['.:\u2018\u2019](?=\p{L})|(?<=\p{Nd})[',.;\u2018\u2019](?=\p{Nd}))[\p{L}\p{M}\p{Nd}_]+)*/gu;

/**
 * Characters outside what this module was checked on against the engine's `_analyze`
 * (Latin script, ASCII and Latin-1 punctuation, general punctuation, combining accents).
 * Elsewhere the rules differ: the tokenizer cuts every Han ideograph alone, joins Katakana,
 * keeps emoji; a soft hyphen or `·` joins words; `İ` lowercases differently in Java. A text
 * holding any of them is left to the engine.
 */
const UNCHECKED = /[^\u0300-\u036F\p{Script=Latin}\p{Cc}\u0020-\u00BF\u00D7\u00F7\u2010-\u2023\u2025\u2026\u2030-\u205E\u20A0-\u20C0]|[\u00AD\u00B7\u0130]/u;

/** Longest token the standard tokenizer emits whole; a longer run is cut, which {@link WORD} does not do. */
const MAX_TOKEN = 255;

/**
 * Terms of words already seen, by the word as written (`''` for a stop word): a library's
 * vocabulary is small, and one lookup per word is most of what finding the query's words in
 * the passages shown costs.
 */
const termsByWord = new Map<string, string>();
const MAX_WORDS = 100_000;

/** The analyzer's term for one word, or undefined for a stop word. Possessive `'s` goes first, then case, then the stop list, then Porter. */
function termOf(surface: string): string | undefined {
  let term = termsByWord.get(surface);
  if (term === undefined) {
    const word = surface.toLowerCase().replace(/['\u2019]s$/, '');
    term = STOP_WORDS.has(word) ? '' : stemmer(word);
    if (termsByWord.size >= MAX_WORDS) termsByWord.clear();
    termsByWord.set(surface, term);
  }
  return term === '' ? undefined : term;
}

/** Whether {@link englishTerms} and {@link matchTerms} give what the engine gives for `text`. */
export function analyzable(text: string): boolean {
  return !UNCHECKED.test(text);
}

/** One term of a text and where its word stands, `end` exclusive. */
export interface EnglishToken {
  term: string;
  start: number;
  end: number;
}

/**
 * The tokens of `text` as the `english` analyzer emits them (stop words left out), or
 * undefined when `text` is not {@link analyzable} or holds a word longer than the
 * tokenizer emits whole.
 */
export function englishTokens(text: string): EnglishToken[] | undefined {
  if (!analyzable(text)) return undefined;
  const tokens: EnglishToken[] = [];
  for (const m of text.matchAll(WORD)) {
    if (m[0].length > MAX_TOKEN) return undefined;
    const term = termOf(m[0]);
    if (term !== undefined) tokens.push({ term, start: m.index, end: m.index + m[0].length });
  }
  return tokens;
}

/** The distinct terms of `text` (a query), or undefined when the engine must analyze it. */
export function englishTerms(text: string): Set<string> | undefined {
  const tokens = englishTokens(text);
  return tokens && new Set(tokens.map((t) => t.term));
}

/**
 * Character ranges of `text` whose term is one of `terms`, as the engine's highlighter
 * tags them for a `match` query of those terms: each matching word on its own. Undefined
 * when the engine must analyze `text`.
 */
export function matchTerms(text: string, terms: ReadonlySet<string>): TermRange[] | undefined {
  const tokens = englishTokens(text);
  return tokens && tokens.filter((t) => terms.has(t.term)).map(({ start, end }) => ({ start, end }));
}

/** A text's tokens kept for matching many queries: the terms in order, and their words' start and end offsets in pairs. */
export interface TokenList {
  readonly terms: readonly string[];
  readonly offsets: Int32Array;
}

/** The {@link englishTokens} of `text` as a {@link TokenList} (about 16 bytes a token), or undefined when the engine must analyze it. */
export function tokenList(text: string): TokenList | undefined {
  const tokens = englishTokens(text);
  if (!tokens) return undefined;
  const offsets = new Int32Array(tokens.length * 2);
  tokens.forEach((t, i) => {
    offsets[2 * i] = t.start;
    offsets[2 * i + 1] = t.end;
  });
  return { terms: tokens.map((t) => t.term), offsets };
}

/** {@link matchTerms} of a text whose tokens were listed before: no regular expression, no stemming. */
export function matchTokens(list: TokenList, terms: ReadonlySet<string>): TermRange[] {
  const ranges: TermRange[] = [];
  for (let i = 0; i < list.terms.length; i++) {
    if (terms.has(list.terms[i]!)) ranges.push({ start: list.offsets[2 * i]!, end: list.offsets[2 * i + 1]! });
  }
  return ranges;
}
