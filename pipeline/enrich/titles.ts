// A chapter's title: one or two of its own salient noun phrases, ranked by statistics and by closeness to the chapter's meaning.
import { candidatePhrases, overlapping, rankCandidates, type DocumentFrequencies } from './phrases.js';
import { capitalise } from './text.js';
import type { EmbedTexts } from './types.js';

export const MAX_TITLE_CHARS = 60;

/** Candidates re-ranked against the chapter's vector. */
const SHORTLIST = 10;

/** A ranked phrase of a chapter. */
export interface RankedPhrase {
  key: string;
  surface: string;
  words: number;
  score: number;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Min-max to [0, 1] (all 1 when equal). */
function unit(values: readonly number[]): number[] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return values.map((v) => (hi - lo < 1e-12 ? 1 : (v - lo) / (hi - lo)));
}

/**
 * The chapter's phrases, best first: YAKE/TF-IDF-style statistics (`freq`: the channel's or the episode's document
 * frequencies) shortlist them, and when `centroid` (the chapter's mean block vector) and `embed` are given the shortlist is
 * re-ranked half by statistics, half by cosine to the chapter (KeyBERT's idea).
 */
export async function rankChapterPhrases(
  text: string,
  { language, freq, centroid, embed }: { language?: string; freq?: DocumentFrequencies; centroid?: readonly number[]; embed?: EmbedTexts },
): Promise<RankedPhrase[]> {
  const ranked = rankCandidates(candidatePhrases(text, language), freq).filter((c) => c.surface.length <= MAX_TITLE_CHARS);
  const short = ranked.slice(0, SHORTLIST);
  if (short.length === 0) return [];
  if (!embed || !centroid || centroid.length === 0) return short.map(({ key, surface, words, score }) => ({ key, surface, words, score }));
  const vectors = await embed(short.map((c) => c.surface));
  const stat = unit(short.map((c) => c.score));
  const sem = unit(vectors.map((v) => cosine(v, centroid)));
  return short
    .map((c, i) => ({ key: c.key, surface: c.surface, words: c.words, score: 0.5 * stat[i]! + 0.5 * sem[i]!, order: i }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ key, surface, words, score }) => ({ key, surface, words, score }));
}

/**
 * A title from ranked phrases: the best phrase, joined by "and" to the best next one that shares no word with it when
 * both fit in {@link MAX_TITLE_CHARS} (a noun phrase, never a list of three); `fallback` when there is no phrase.
 */
export function composeTitle(phrases: readonly RankedPhrase[], { fallback = 'Untitled', joiner = ' and ' }: { fallback?: string; joiner?: string } = {}): string {
  const first = phrases[0];
  if (!first) return fallback.slice(0, MAX_TITLE_CHARS);
  const second = phrases.slice(1).find((p) => !overlapping(p.key, first.key));
  const both = second ? `${first.surface}${joiner}${second.surface}` : first.surface;
  return capitalise(both.length <= MAX_TITLE_CHARS ? both : first.surface.slice(0, MAX_TITLE_CHARS));
}

/** "and" in the languages that have stop words. */
export function conjunction(language: string | undefined): string {
  const and: Record<string, string> = { en: 'and', es: 'y', de: 'und', fr: 'et', pt: 'e', it: 'e', nl: 'en' };
  return ` ${and[(language ?? 'en').toLowerCase().split(/[-_]/)[0]!] ?? 'and'} `;
}
