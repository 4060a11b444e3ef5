// A chapter's title: one of its own salient noun phrases, or two that belong together, ranked by statistics and by closeness to the chapter's meaning.
import { candidatePhrases, isPhraseWord, overlapping, rankCandidates, type Candidate, type DocumentFrequencies } from './phrases.js';
import { baseLanguage, capitalise } from './text.js';
import {
  ADDRESS,
  BEFORE_NOUN,
  BEFORE_VERB,
  ED_WORDS,
  ING_NOUNS,
  LY_WORDS,
  NEVER_ALONE,
  NEVER_AT_EDGE,
  NEVER_IN_TITLE,
  NEVER_TITLE_HEAD,
  NEVER_TITLE_PHRASES,
  VERB_NOUNS,
  VERBS,
  WEAK_MODIFIERS,
} from './title-words.js';
import type { EmbedTexts } from './types.js';
import { GENERATED_TEXT_LIMITS } from './limits.js';

/** Spotify's advice for chapter titles: under 40 characters. */
export const MAX_TITLE_CHARS = GENERATED_TEXT_LIMITS.titleMaxChars;

/** Candidates re-ranked against the chapter's vector. */
const SHORTLIST = 10;

/** Words of a title phrase: one said more than once may be longer than a topic ("front-line health care workers"). */
const MAX_TITLE_WORDS = 5;

/**
 * Cosine of bge-small between two phrases of one chapter at or above which they are one matter and may share a title
 * when no sentence holds both (chosen on the dev split of QMSum and TutorialVQA by `scripts/eval/title-overlap.ts`).
 */
export const JOIN_COSINE = 0.65;
/** Sentences apart two phrases may be said and still belong together. */
export const JOIN_WINDOW = 0;

/** A ranked phrase of a chapter. */
export interface RankedPhrase {
  key: string;
  surface: string;
  words: number;
  score: number;
  /** Sentences of the chapter that say it (indexes); absent: unknown. */
  sentences?: readonly number[];
  /** Its vector, when the chapter was ranked with the embedder. */
  vector?: readonly number[];
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

/** The base form of an English verb of {@link VERBS} a word is (itself, -s, -es, -ies, -ed, -ied; `ing` also -ing), else undefined. */
export function verbBase(word: string, { ing = false }: { ing?: boolean } = {}): string | undefined {
  const forms = [word];
  if (word.endsWith('ies')) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) forms.push(word.slice(0, -2));
  if (word.endsWith('s')) forms.push(word.slice(0, -1));
  if (word.endsWith('ied')) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('ed')) forms.push(word.slice(0, -2), word.slice(0, -1), word.slice(0, -3));
  if (ing && word.endsWith('ing')) forms.push(word.slice(0, -3), `${word.slice(0, -3)}e`, word.slice(0, -4));
  return forms.find((f) => f.length >= 2 && VERBS.has(f));
}

// A hesitation however ASR spells it ("Ummh", "Hmmm"), which the stop words miss.
const FILLER = /^(?:u+m+h*|u+h+m*|h+m+|m+h*m+|a+h+|o+h+|e+r+m+)$/;

/** Share of the occurrences whose word before is in `words`. */
function shareBefore(c: Candidate, words: ReadonlySet<string>, except?: string): number {
  const occ = c.occurrences ?? [];
  if (occ.length === 0) return 0;
  return occ.filter((o) => o.before !== undefined && o.before !== except && words.has(o.before)).length / occ.length;
}

/**
 * Why an English candidate is no title phrase, or undefined: a form of address, a number, a unit or a time in it; a
 * role or meeting word at its head; a generic noun alone; a weak modifier, a particle or an adverb at an edge; a
 * participle at its end; a verb that leads or ends it ("Ask Jane", "impose conditions", "Landlords refuse"); or a
 * person's name ("Mr. Brassard").
 */
export function englishFault(c: Candidate): string | undefined {
  const words = c.surface.split(' ');
  const lower = words.map((w) => w.toLowerCase());
  const first = lower[0]!;
  const last = lower[lower.length - 1]!;
  if (lower.some((w) => w.split('-').some((p) => NEVER_IN_TITLE.has(p)))) return 'address, number, unit or time';
  if (NEVER_TITLE_PHRASES.has(lower.join('_'))) return 'meeting role or side';
  if (NEVER_TITLE_HEAD.has(last)) return 'role or meeting word at its head';
  if (NEVER_TITLE_HEAD.has(first) && words.slice(1).every((w) => /^\p{Lu}/u.test(w))) return 'role before a name';
  if (lower.length === 1 && (NEVER_ALONE.has(first) || WEAK_MODIFIERS.has(first))) return 'generic word alone';
  if (lower.length === 1 && /(able|ible|ful|ous|less)$/.test(first)) return 'adjective alone';
  if (lower.length > 1 && WEAK_MODIFIERS.has(first)) return 'weak modifier';
  if (NEVER_AT_EDGE.has(first) || NEVER_AT_EDGE.has(last)) return 'particle or adverb at an edge';
  if (lower.some((w) => w.length > 4 && w.endsWith('ly') && !LY_WORDS.has(w))) return 'adverb';
  if (last.length > 4 && last.endsWith('ed') && !ED_WORDS.has(last)) return 'participle at its end';
  if (lower.some((w) => FILLER.test(w))) return 'filler';
  // A gerund of a verb of the list leads no title either ("Asking parents", "choosing View"), unless it is a noun ("Training data").
  const lead = verbBase(first, { ing: !ING_NOUNS.has(first) });
  if (lead && !VERB_NOUNS.has(lead)) {
    // A verb of the list leads only where a determiner or preposition stands before it: then it is a noun.
    if (shareBefore(c, BEFORE_NOUN) < 0.5) return 'led by a verb';
  } else if (shareBefore(c, BEFORE_VERB, lead ? undefined : 'to') >= 0.5) return 'led by a verb';
  const end = verbBase(last);
  if (lower.length > 1 && end && !VERB_NOUNS.has(end)) return 'ends with a verb';
  // Nor a verb's -ing form after its first word ("long lasting", "Measurement taking place").
  const gerund = (w: string) => w.endsWith('ing') && !ING_NOUNS.has(w) && verbBase(w, { ing: true });
  if (
    lower.slice(1).some((w) => {
      const base = gerund(w);
      return base && !VERB_NOUNS.has(base);
    })
  )
    return 'verb inside';
  if (shareBefore(c, ADDRESS) >= 0.5) return 'a person';
  return undefined;
}

/**
 * A cut of a longer phrase: every time it is said, the same word of the same run stands before it (or after it), so it
 * is part of something longer ("line health care" of "front-line health care", "large employer emergency" of a longer
 * name). The longer phrase is a candidate of its own when it is short enough, and nothing is when it is not.
 */
function isFragment(c: Candidate, language: string | undefined): boolean {
  const occ = c.occurrences ?? [];
  if (occ.length < 2) return false;
  const same = (side: 'before' | 'after') => {
    const w = occ[0]![side];
    return w !== undefined && isPhraseWord(w, language) && occ.every((o) => o[side] === w);
  };
  return same('before') || same('after');
}

/**
 * How much a phrase says about this chapter rather than the episode: 1 in one chapter, falling like the idf over the
 * episode's chapters (as `chapterWeights` weighs moments) to about a third in all of them ("Prime Minister", "Buttons").
 * Episodes of fewer than three chapters are not judged.
 */
export function chapterSpread(key: string, chapters: DocumentFrequencies | undefined): number {
  if (!chapters || chapters.n < 3) return 1;
  const df = Math.max(1, chapters.df.get(key) ?? 1);
  const idf = (d: number) => Math.log((chapters.n + 1) / d) + 0.5;
  return idf(Math.min(df, chapters.n)) / idf(1);
}

/**
 * The chapter's phrases, best first: candidates that can be a title (whole words and names, not a cut of a longer
 * phrase; in English, none of {@link englishFault}'s), shortlisted by YAKE/TF-IDF-style statistics (`freq`: the
 * channel's or the episode's document frequencies) times their {@link chapterSpread} over the episode's `chapters`
 * ({@link documentFrequencies} of the chapters' texts), then re-ranked half by statistics, half by cosine to the chapter
 * when `centroid` (the chapter's mean block vector) and `embed` are given (KeyBERT's idea).
 */
export async function rankChapterPhrases(
  text: string,
  {
    language,
    freq,
    chapters,
    centroid,
    embed,
  }: { language?: string; freq?: DocumentFrequencies; chapters?: DocumentFrequencies; centroid?: readonly number[]; embed?: EmbedTexts },
): Promise<RankedPhrase[]> {
  const english = baseLanguage(language) === 'en';
  const candidates = candidatePhrases(text, language, { occurrences: true, maxWords: MAX_TITLE_WORDS }).filter(
    (c) => c.surface.length <= MAX_TITLE_CHARS && (c.words <= 3 || c.count >= 2) && !isFragment(c, language) && !(english && englishFault(c)),
  );
  const ranked = rankCandidates(candidates, freq)
    .map((c, order) => ({ c, order, score: c.score * chapterSpread(c.key, chapters) }))
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const short = ranked.slice(0, SHORTLIST).map(({ c, score }) => ({
    key: c.key,
    surface: c.surface,
    words: c.words,
    score,
    sentences: [...new Set((c.occurrences ?? []).map((o) => o.sentence))],
  }));
  if (short.length === 0) return [];
  if (!embed || !centroid || centroid.length === 0) return short;
  const vectors = await embed(short.map((c) => c.surface));
  const stat = unit(short.map((c) => c.score));
  const sem = unit(vectors.map((v) => cosine(v, centroid)));
  return short
    .map((c, i) => ({ ...c, score: 0.5 * stat[i]! + 0.5 * sem[i]!, vector: vectors[i]!, order: i }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ order: _, ...c }) => c);
}

/** Options of {@link belongTogether}. */
export interface JoinOptions {
  /** Cosine at or above which two phrases are one matter. Default {@link JOIN_COSINE}. */
  minCosine?: number;
  /** Sentences apart that still count as said together (0: the same sentence). Default {@link JOIN_WINDOW}. */
  window?: number;
}

/** Whether two phrases are one matter: a sentence of the chapter (or two within `window`) says both, or the embedder puts them close. */
export function belongTogether(a: RankedPhrase, b: RankedPhrase, { minCosine = JOIN_COSINE, window = JOIN_WINDOW }: JoinOptions = {}): boolean {
  if (a.sentences && b.sentences && a.sentences.some((s) => b.sentences!.some((t) => Math.abs(s - t) <= window))) return true;
  return a.vector !== undefined && b.vector !== undefined && cosine(a.vector, b.vector) >= minCosine;
}

/** A phrase that may be a title's second half: two words or more, or an acronym ("and system", "and Matthew" are not). */
const canFollow = (p: RankedPhrase) => p.words > 1 || /^\p{Lu}[\p{Lu}\p{N}]+$/u.test(p.surface);

/**
 * A title from ranked phrases: the best phrase, joined by "and" to the best next one that shares no word with it, is
 * two words or an acronym, {@link belongTogether belongs with it} and fits in {@link MAX_TITLE_CHARS}; else the best
 * phrase alone (a noun phrase, never a list of three); `fallback` when there is no phrase. Sentence case: the first
 * letter capitalised, every other word as the chapter writes it.
 */
export function composeTitle(
  phrases: readonly RankedPhrase[],
  { fallback = 'Untitled', joiner = ' and ', ...join }: { fallback?: string; joiner?: string } & JoinOptions = {},
): string {
  const first = phrases.find((p) => p.surface.length <= MAX_TITLE_CHARS);
  if (!first) return fitTitle(fallback);
  const second = phrases.find(
    (p) => p !== first && !overlapping(p.key, first.key) && canFollow(p) && `${first.surface}${joiner}${p.surface}`.length <= MAX_TITLE_CHARS && belongTogether(first, p, join),
  );
  return capitalise(second ? `${first.surface}${joiner}${second.surface}` : first.surface);
}

/** A title cut to {@link MAX_TITLE_CHARS} at a word's end (a language model's, or a fallback), never inside a word unless it is one. */
export function fitTitle(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length <= MAX_TITLE_CHARS) return t;
  const cut = t.slice(0, MAX_TITLE_CHARS + 1).replace(/\s+\S*$/, '');
  return (cut.length > 0 && cut.length <= MAX_TITLE_CHARS ? cut : t.slice(0, MAX_TITLE_CHARS)).replace(/[\s,;:–—-]+$/, '');
}

/** "and" in the languages that have stop words. */
export function conjunction(language: string | undefined): string {
  const and: Record<string, string> = { en: 'and', es: 'y', de: 'und', fr: 'et', pt: 'e', it: 'e', nl: 'en' };
  return ` ${and[(language ?? 'en').toLowerCase().split(/[-_]/)[0]!] ?? 'and'} `;
}
