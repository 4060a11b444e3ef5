// Candidate keyphrases of a text (runs of content words, one to three long, a hyphenated word or a name counting as one)
// with their counts, and document frequencies across a channel.
import { isContentWord, stem, stopwords } from './text.js';

/** Where a candidate is said once: what a title needs to tell a noun phrase from a verb's and a phrase from a cut name. */
export interface Occurrence {
  /** Index of its sentence in the text (cut after `.`, `!`, `?`, `…`). */
  sentence: number;
  /** The lower-cased word just before it in its clause, stop word or not; absent at a clause start. */
  before?: string;
  /** The lower-cased word just after it in its clause; absent at a clause end. */
  after?: string;
}

/** A candidate phrase of one text. */
export interface Candidate {
  /** Stemmed, lower-cased words joined by a space: the same phrase in any inflection or case. */
  key: string;
  /** The form shown: the most frequent surface form (lower case unless every occurrence was capitalised alike). */
  surface: string;
  /** Words of the surface (a hyphenated word is one). */
  words: number;
  count: number;
  /** Token position of its first occurrence. */
  first: number;
  /** Every occurrence, in order, when asked for ({@link candidatePhrases}'s `occurrences`). */
  occurrences?: Occurrence[];
}

/** How many documents (episodes of a channel) hold each phrase key, out of `n`. */
export interface DocumentFrequencies {
  n: number;
  df: ReadonlyMap<string, number>;
}

/** Words (a name counting as one) of a candidate, unless asked for longer ones. */
const MAX_PHRASE_WORDS = 3;
/** Capitalised words a name may have ("Large Employer Emergency Financing Facility"); a longer capitalised run is no name. */
const MAX_NAME_WORDS = 6;

// A word with its hyphenated parts ("front-line", "COVID-19", "law-abiding"): one token, so that no phrase starts or
// ends inside it ("line health care", "abiding firearms owners").
const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)*(?:-[\p{L}\p{N}]+(?:['’]\p{L}+)*)*/gu;
// A clause ends at punctuation; a sentence at its stops.
const CLAUSE_END = /([.,;:!?…()"“”[\]—–]+|\s-\s)/u;
const SENTENCE_END = /[.!?…]/u;
// A hesitation however it is spelt: "mm-hmm" and "uh-huh" are no compound word.
const HESITATION = /^(?:u+h+|u+m+|m+|h+m+|m+h+m+|a+h+|o+h+|e+h+|h+u+h+)$/;
const CAPITAL = /^\p{Lu}/u;

interface Token {
  surface: string;
  lower: string;
  content: boolean;
  /** First token of its sentence: its capital says nothing. */
  opening: boolean;
}

/** Whether a token (a hyphenated word whole) may be part of a phrase: a hyphenated word carries meaning when one of its parts does and none is a hesitation. */
export function isPhraseWord(lower: string, language: string | undefined): boolean {
  return isContent(lower, stopwords(language));
}

function isContent(lower: string, stop: ReadonlySet<string>): boolean {
  if (!lower.includes('-')) return isContentWord(lower, stop);
  const parts = lower.split('-');
  return !lower.includes("'") && !parts.some((p) => HESITATION.test(p)) && parts.some((p) => isContentWord(p, stop));
}

// A title before a name, with its dot: "Mr. Brassard" is one clause, and "Brassard" does not open a sentence.
const ABBREVIATED_TITLE = /^(?:mr|mrs|ms|dr|prof|hon|st)$/;

/** The clauses of a text as tokens, each with the index of its sentence. */
function clausesOf(text: string, stop: ReadonlySet<string>): { sentence: number; toks: Token[] }[] {
  const out: { sentence: number; toks: Token[] }[] = [];
  let sentence = 0;
  let opening = true;
  let toks: Token[] = [];
  const close = () => {
    if (toks.length > 0) out.push({ sentence, toks });
    toks = [];
  };
  const pieces = text.split(CLAUSE_END);
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i % 2 === 1) {
      const last = toks[toks.length - 1];
      if (piece === '.' && last && ABBREVIATED_TITLE.test(last.lower) && /^\s+\p{Lu}/u.test(pieces[i + 1] ?? '')) {
        last.content = false;
        continue;
      }
      close();
      // A stop ends the sentence.
      if (SENTENCE_END.test(piece)) {
        sentence++;
        opening = true;
      }
      continue;
    }
    for (const m of piece.matchAll(WORD)) {
      const lower = m[0].toLowerCase().replace(/’/g, "'");
      toks.push({ surface: m[0], lower, content: isContent(lower, stop), opening });
      opening = false;
    }
  }
  close();
  return out;
}

/**
 * How each word is written inside sentences, capitalised or not (votes by lower-cased word): a sentence's first word
 * takes its usual case ("Artificial light" at a sentence start is "artificial light"), and runs of capitalised words are
 * names only where each word is capitalised there too.
 */
function caseVotes(clauses: readonly { toks: readonly Token[] }[]): Map<string, { upper: number; lower: number }> {
  const votes = new Map<string, { upper: number; lower: number }>();
  for (const { toks } of clauses) {
    for (const t of toks) {
      if (t.opening || !t.content) continue;
      const v = votes.get(t.lower) ?? { upper: 0, lower: 0 };
      if (CAPITAL.test(t.surface)) v.upper++;
      else v.lower++;
      votes.set(t.lower, v);
    }
  }
  return votes;
}

/** A unit of a run: a word, or a name of several capitalised words. */
interface Unit {
  surface: string;
  stemmed: string;
  words: number;
  /** Token indexes in its clause, first and last. */
  from: number;
  to: number;
}

/** The units of a run of content tokens (`toks[from..to]`): capitalised runs of 2 to {@link MAX_NAME_WORDS} words are one name. */
function unitsOf(toks: readonly Token[], from: number, to: number, votes: ReadonlyMap<string, { upper: number; lower: number }>, language: string | undefined): Unit[] {
  const shown = (t: Token): string => {
    if (!t.opening) return t.surface;
    const v = votes.get(t.lower);
    return v && v.lower > v.upper ? t.lower : t.surface;
  };
  const capitalised = (t: Token): boolean => {
    if (!CAPITAL.test(t.surface)) return false;
    if (!t.opening) return true;
    const v = votes.get(t.lower);
    return v !== undefined && v.upper > v.lower;
  };
  const stemOf = (lower: string) =>
    lower
      .split('-')
      .map((p) => stem(p, language))
      .join(' ');
  const units: Unit[] = [];
  let i = from;
  while (i <= to) {
    let j = i;
    while (j + 1 <= to && capitalised(toks[i]!) && capitalised(toks[j + 1]!)) j++;
    const n = j - i + 1;
    if (n >= 2 && n <= MAX_NAME_WORDS) {
      const part = toks.slice(i, j + 1);
      units.push({ surface: part.map(shown).join(' '), stemmed: part.map((t) => stemOf(t.lower)).join(' '), words: n, from: i, to: j });
      i = j + 1;
      continue;
    }
    // A capitalised run too long for a name is words; so is a lone word.
    for (let k = i; k <= j; k++) units.push({ surface: shown(toks[k]!), stemmed: stemOf(toks[k]!.lower), words: 1, from: k, to: k });
    i = j + 1;
  }
  return units;
}

/**
 * Every run of 1–3 (`maxWords`) adjacent content words of `text` (no stop word, filler or clause end inside; a
 * hyphenated word and a name of capitalised words each count as one word and are never cut), counted by key. With
 * `occurrences`, each candidate lists where it is said.
 */
export function candidatePhrases(
  text: string,
  language: string | undefined,
  { occurrences = false, maxWords = MAX_PHRASE_WORDS }: { occurrences?: boolean; maxWords?: number } = {},
): Candidate[] {
  const stop = stopwords(language);
  const byKey = new Map<string, { surfaces: Map<string, number>; count: number; words: number; first: number; occurrences?: Occurrence[] }>();
  const clauses = clausesOf(text, stop);
  const votes = caseVotes(clauses);
  let position = 0;
  for (const { sentence, toks } of clauses) {
    const flush = (from: number, to: number) => {
      const run = unitsOf(toks, from, to, votes, language);
      for (let len = 1; len <= maxWords; len++) {
        for (let i = 0; i + len <= run.length; i++) {
          const part = run.slice(i, i + len);
          const stems = part.flatMap((u) => u.stemmed.split(' '));
          // A phrase repeating a word ("data data") is a disfluency, not a phrase.
          if (new Set(stems).size < stems.length) continue;
          const key = stems.join(' ');
          const surface = part.map((u) => u.surface).join(' ');
          let entry = byKey.get(key);
          if (!entry) {
            entry = { surfaces: new Map(), count: 0, words: part.reduce((n, u) => n + u.words, 0), first: position + part[0]!.from };
            if (occurrences) entry.occurrences = [];
            byKey.set(key, entry);
          }
          entry.count++;
          entry.surfaces.set(surface, (entry.surfaces.get(surface) ?? 0) + 1);
          if (entry.occurrences) {
            const a = part[0]!.from;
            const b = part[part.length - 1]!.to;
            entry.occurrences.push({
              sentence,
              ...(a > 0 ? { before: toks[a - 1]!.lower } : {}),
              ...(b + 1 < toks.length ? { after: toks[b + 1]!.lower } : {}),
            });
          }
        }
      }
    };
    let start = -1;
    for (let i = 0; i < toks.length; i++) {
      if (toks[i]!.content) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        flush(start, i - 1);
        start = -1;
      }
    }
    if (start >= 0) flush(start, toks.length - 1);
    position += toks.length;
  }
  const out: Candidate[] = [];
  for (const [key, e] of byKey) {
    out.push({ key, surface: surfaceOf(e.surfaces), words: e.words, count: e.count, first: e.first, ...(e.occurrences ? { occurrences: e.occurrences } : {}) });
  }
  return out.sort((a, b) => a.first - b.first || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The most frequent surface form (ties: the alphabetically first), each word written as most of its occurrences write
 * it: lower case unless capitalised more often than not (NIST, Amit Varma, "Canada Emergency Response Benefit" said
 * once as "Canada emergency response benefit"; a tie is lower case).
 */
function surfaceOf(surfaces: ReadonlyMap<string, number>): string {
  const lowered = new Map<string, number>();
  for (const [s, n] of surfaces) lowered.set(s.toLowerCase(), (lowered.get(s.toLowerCase()) ?? 0) + n);
  const [best] = [...lowered].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  const forms = [...surfaces].filter(([s]) => s.toLowerCase() === best).map(([s, n]) => ({ words: s.split(' '), n }));
  return best
    .split(' ')
    .map((lower, i) => {
      let plain = 0;
      const written = new Map<string, number>();
      for (const { words, n } of forms) {
        const w = words[i] ?? lower;
        if (w === lower) plain += n;
        else written.set(w, (written.get(w) ?? 0) + n);
      }
      const capitals = [...written.values()].reduce((a, b) => a + b, 0);
      if (capitals <= plain) return lower;
      return [...written].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    })
    .join(' ');
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
