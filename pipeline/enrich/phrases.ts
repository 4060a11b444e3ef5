// Candidate keyphrases of a text (runs of content words, one to three long) with their counts, and document frequencies across a channel.
import { isContentWord, stem, stopwords, tokens } from './text.js';

/** A candidate phrase of one text. */
export interface Candidate {
  /** Stemmed, lower-cased words joined by a space: the same phrase in any inflection or case. */
  key: string;
  /** The form shown: the most frequent surface form (lower case unless every occurrence was capitalised alike). */
  surface: string;
  words: number;
  count: number;
  /** Token position of its first occurrence. */
  first: number;
}

/** How many documents (episodes of a channel) hold each phrase key, out of `n`. */
export interface DocumentFrequencies {
  n: number;
  df: ReadonlyMap<string, number>;
}

const MAX_PHRASE_WORDS = 3;

/** Every run of 1–3 adjacent content words of `text` (no stop word, filler or sentence end inside), counted by key. */
export function candidatePhrases(text: string, language: string | undefined): Candidate[] {
  const stop = stopwords(language);
  const byKey = new Map<string, { surfaces: Map<string, number>; count: number; words: number; first: number }>();
  // A sentence or clause end breaks a run: split on punctuation first.
  let position = 0;
  for (const clause of text.split(/[.,;:!?…()"“”[\]—–]+|\s-\s/u)) {
    const toks = tokens(clause);
    let run: { surface: string; lower: string; stemmed: string }[] = [];
    const flush = () => {
      for (let len = 1; len <= MAX_PHRASE_WORDS; len++) {
        for (let i = 0; i + len <= run.length; i++) {
          const part = run.slice(i, i + len);
          const key = part.map((w) => w.stemmed).join(' ');
          // A phrase repeating a word ("data data") is a disfluency, not a phrase.
          if (new Set(part.map((w) => w.stemmed)).size < len) continue;
          const surface = part.map((w) => w.surface).join(' ');
          let entry = byKey.get(key);
          if (!entry) byKey.set(key, (entry = { surfaces: new Map(), count: 0, words: len, first: position + i }));
          entry.count++;
          entry.surfaces.set(surface, (entry.surfaces.get(surface) ?? 0) + 1);
        }
      }
      run = [];
    };
    for (const t of toks) {
      if (isContentWord(t.lower, stop)) run.push({ surface: t.surface, lower: t.lower, stemmed: stem(t.lower, language) });
      else flush();
      position++;
    }
    flush();
  }
  const out: Candidate[] = [];
  for (const [key, e] of byKey) out.push({ key, surface: surfaceOf(e.surfaces), words: e.words, count: e.count, first: e.first });
  return out.sort((a, b) => a.first - b.first || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The most frequent surface form (ties: the alphabetically first), lower-cased unless it is an acronym or a name written so every time. */
function surfaceOf(surfaces: ReadonlyMap<string, number>): string {
  const lowered = new Map<string, number>();
  for (const [s, n] of surfaces) lowered.set(s.toLowerCase(), (lowered.get(s.toLowerCase()) ?? 0) + n);
  const [best] = [...lowered].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  const forms = [...surfaces.keys()].filter((s) => s.toLowerCase() === best);
  // Kept as written only when every occurrence agrees and it is not plain lower case (NIST, Amit Varma).
  if (forms.length === 1 && forms[0] !== best) return forms[0]!;
  return best;
}

/** Document frequencies of phrase keys over texts (one per episode). */
export function documentFrequencies(texts: Iterable<string>, language: string | undefined): DocumentFrequencies {
  const df = new Map<string, number>();
  let n = 0;
  for (const text of texts) {
    n++;
    for (const c of candidatePhrases(text, language)) df.set(c.key, (df.get(c.key) ?? 0) + 1);
  }
  return { n, df };
}

/** Inverse document frequency of a key, smoothed; an unknown collection gives every key the same weight. */
export function idf(key: string, freq: DocumentFrequencies | undefined): number {
  if (!freq || freq.n === 0) return 1;
  return Math.log((freq.n + 1) / ((freq.df.get(key) ?? 0) + 1)) + 1;
}

/** Whether two keys share a stemmed word (a title or topic list should not say the same thing twice). */
export function overlapping(a: string, b: string): boolean {
  const words = new Set(a.split(' '));
  return b.split(' ').some((w) => words.has(w));
}

/**
 * Statistical salience of each candidate in a text: count × idf (channel- or episode-level), longer phrases favoured, a
 * phrase said once only when nothing is said twice. Sorted best first (ties: earlier first, then key).
 */
export function rankCandidates(candidates: readonly Candidate[], freq: DocumentFrequencies | undefined): Array<Candidate & { score: number }> {
  const repeated = candidates.some((c) => c.count >= 2);
  return candidates
    .filter((c) => !repeated || c.count >= 2)
    .map((c) => ({ ...c, score: Math.log1p(c.count) * idf(c.key, freq) * (1 + 0.6 * (c.words - 1)) }))
    .sort((a, b) => b.score - a.score || a.first - b.first || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
