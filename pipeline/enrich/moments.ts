// Typed key moments of a chapter: whole sentences of the speakers that stand alone, typed by the cues around them.
import * as lists from './moment-words.js';
import {
  bareKey,
  baseLanguage,
  capitalise,
  endsSentence,
  holdsPhrase,
  isContentWord,
  joinWords,
  phraseAt,
  phraseSet,
  sentences,
  spokenWords,
  stem,
  stopwords,
  tidyWords,
  tokens,
  type SpokenWord,
} from './text.js';
import type { EnrichSegment, MomentType } from './types.js';
import { GENERATED_TEXT_LIMITS } from './limits.js';

/** A sentence of the transcript with the segment it is said in. */
export interface SentenceAt {
  text: string;
  /** Its words with their times (the word's own where its segment times its words, else the segment's). */
  words: SpokenWord[];
  /** Index of the segment it starts in. */
  segment: number;
  /** Index of the segment it ends in (a sentence may run over several cues of one speaker). */
  endSegment: number;
  /** Its place among the sentences that start in its segment. */
  nth: number;
}

/** A moment the local method chose: the sentence, its type and times (its first and last word's). */
export interface LocalMoment {
  type: MomentType;
  title: string;
  startMs: number;
  endMs: number;
  /** The speaker's words of the span (for a language model's brief). */
  text: string;
  score: number;
}

export const MAX_MOMENT_CHARS = GENERATED_TEXT_LIMITS.claimMaxChars;
const MIN_WORDS = 8;
const MAX_WORDS = 40;
/** Moments of one chapter are at least this far apart. */
const MIN_GAP_MS = 45_000;
/** Words of a sentence's start read for a restart ("I jus So the latest result …"). */
const RESTART_WITHIN = 4;
/** Shortest turn a sentence replies to (a question answered by `qa`, a view disputed by `debate`), in words: not a "Right." or a "Yeah.". */
const MIN_TURN_WORDS = 4;

const DANGLING = new Map(Object.entries(lists.DANGLING).map(([lang, list]) => [lang, phraseSet(list)]));
const NOT_DANGLING = phraseSet(lists.NOT_DANGLING);
const LEADING = phraseSet(lists.LEADING);
const LEADING_WITH_COMMA = new Set(lists.LEADING_WITH_COMMA);
const RESTART_OPENERS = new Set(lists.RESTART_OPENERS);
const ADDRESS = phraseSet([
  ...lists.ADDRESS_ROLES,
  ...lists.ADDRESS_TITLES.flatMap((t) => lists.ADDRESS_ROLES.map((r) => `${t} ${r}`)),
  // Written as one word: "Mr.Chair," and "MadamChair,".
  ...lists.ADDRESS_TITLES.flatMap((t) => lists.ADDRESS_ROLES.map((r) => `${t}${r}`)),
]);
const ADDRESS_ROLES = phraseSet(lists.ADDRESS_ROLES);
const SPEAKER_TITLES = new Set(lists.SPEAKER_TITLES);
const SPEAKER_ROLES = phraseSet(lists.SPEAKER_ROLES);
const QUESTION_OPENERS = new Set(lists.QUESTION_OPENERS);
const SUBORDINATORS = new Set(lists.SUBORDINATORS);
const NOT_A_MOMENT = phraseSet([...lists.NOT_A_MOMENT, ...lists.PROCEDURE]);
const CUES = {
  prediction: phraseSet(lists.PREDICTION),
  story: phraseSet(lists.STORY),
  debate: phraseSet(lists.DEBATE),
  evaluative: phraseSet(lists.EVALUATIVE),
  figurative: phraseSet(lists.FIGURATIVE),
  insight: phraseSet(lists.INSIGHT),
  hedge: phraseSet(lists.REMEMBER_HEDGES),
};
const FRAGMENT_OPENERS = new Set(lists.FRAGMENT_OPENERS);
const SENTENCE_ADVERBS = new Set(lists.SENTENCE_ADVERBS);
const DANGLING_ANYWHERE = phraseSet(lists.DANGLING_ANYWHERE);
const TRAILING_FILLERS = phraseSet(lists.TRAILING_FILLERS);
const INNER_FILLERS = phraseSet(lists.INNER_FILLERS);
const COMMA_FILLERS = new Set(lists.COMMA_FILLERS);
/** Words after which "OK," is what is said or pressed ("hit OK, and click", "it's okay, but"), not a filler. */
const SAID_AS_WORD = new Set(['hit', 'click', 'press', 'choose', 'select', 'say', 'said', 'is', 'was', "it's", "that's", 'feel', 'looks', 'seems']);
const YOU_KNOW_CLAUSE = new Set(lists.YOU_KNOW_CLAUSE);
const DETERMINERS = new Set(lists.DETERMINERS);
const NOT_AFTER_DETERMINER = new Set(lists.NOT_AFTER_DETERMINER);
const SHORT_WORDS = new Set(lists.SHORT_WORDS);
const STOPWORDS_EN = stopwords('en');
const NEEDS_ANOTHER = new Set(lists.NEEDS_ANOTHER);
const DEBATE_OPENERS = new Set(lists.DEBATE_OPENERS.map((w) => `${w},`));
const AUXILIARIES = new Set(lists.AUXILIARIES);
/** A verb of the list in its base, -s and past forms ("try", "tries"; "push", "pushes"; "say", "says"). */
const VERB_FORMS = new Set([
  ...lists.VERBS.flatMap((v) => [v, /[^aeiou]y$/.test(v) ? `${v.slice(0, -1)}ies` : /(s|sh|ch|x|o)$/.test(v) ? `${v}es` : `${v}s`]),
  ...lists.PAST_VERBS,
]);
const NOT_PAST = new Set(lists.NOT_PAST);
const PAST_VERBS = new Set(lists.PAST_VERBS);
const SUBJECTS = new Set(lists.SUBJECTS);
const CLOSED_CLASS = new Set(lists.CLOSED_CLASS);
const CONTRACTED_IS = new Set(lists.CONTRACTED_IS);
const MONTHS = new Set(lists.MONTHS);
const YOU = new Set(lists.YOU);

/** Longest sentence carried over from one segment into the next, in words. */
const MAX_CARRIED_WORDS = 60;
/**
 * Longest sentence read at all, in characters: five times the 200 a moment may have, so no claim is lost, and a
 * bound on what every rule below reads (hostile text in one cue cost seconds in the patterns that came before them;
 * security review 2026-12-01, #1).
 */
export const MAX_SENTENCE_CHARS = 1_000;

/** The words of a segment with their times: its own words' where they are one to one with its text and not spread by length, else its start and end. */
function segmentWords(seg: EnrichSegment): SpokenWord[] {
  const end = Math.max(seg.startMs, seg.endMs);
  const said = spokenWords(seg.text, seg.startMs, end);
  const timed = seg.words && !seg.wordsInterpolated && seg.words.length === said.length ? seg.words : undefined;
  if (!timed) return said;
  const within = (ms: number) => Math.min(end, Math.max(seg.startMs, ms));
  return said.map((w, i) => {
    const startMs = within(timed[i]!.s);
    return { text: w.text, startMs, endMs: Math.max(startMs, within(timed[i]!.e)) };
  });
}

/**
 * Whole sentences of the segments `[first, last]`, in order, with their words' times. A sentence left open at a
 * segment's end runs on into the next segment of the same speaker (subtitle cues cut sentences anywhere); one still
 * open at a change of speaker, at `last`, or past 60 words is not a sentence and is dropped; so is one longer than
 * {@link MAX_SENTENCE_CHARS}, to its end. One walk over the words.
 */
export function sentencesOf(segments: readonly EnrichSegment[], first: number, last: number): SentenceAt[] {
  const out: SentenceAt[] = [];
  let open: { words: SpokenWord[]; chars: number; segment: number; nth: number; dropped: boolean } | undefined;
  for (let i = first; i <= last; i++) {
    const seg = segments[i]!;
    if (open && (segments[open.segment]!.speakerLabel ?? null) !== (seg.speakerLabel ?? null)) open = undefined;
    let nth = 0;
    for (const w of segmentWords(seg)) {
      if (!open) open = { words: [], chars: 0, segment: i, nth: nth++, dropped: false };
      open.chars += w.text.length + 1;
      if (open.chars > MAX_SENTENCE_CHARS + 1) open.dropped = true;
      if (!open.dropped) open.words.push(w);
      if (endsSentence(w.text)) {
        if (!open.dropped) out.push({ text: joinWords(open.words), words: open.words, segment: open.segment, endSegment: i, nth: open.nth });
        open = undefined;
      }
    }
    if (open && open.words.length > MAX_CARRIED_WORDS) open.dropped = true;
  }
  return out;
}

/** Lower-cased words of a claim, for the phrase lists. */
const keysOf = (text: string) => tokens(text).map((t) => t.lower);

/** The word's key for a rule on how a sentence opens: lower-case, without the one `,`, `.` or `…` after it; dots inside dropped ("Mr.Chair," → "mrchair"). */
const openingKey = (w: SpokenWord) =>
  w.text
    .toLowerCase()
    .replace(/[,.…]$/, '')
    .replace(/\./g, '');

/**
 * How many words open the sentence without being part of its claim: a restart in the first words (a capitalised
 * "So", "And", … after a word left unfinished: everything before it), a filler or connective ("so", "you know"), stray
 * punctuation, or the person addressed ("Mr. Chair,", "Madam Speaker,"). 0 when the claim starts at the first word.
 */
function openingLength(ws: readonly SpokenWord[]): number {
  for (let j = 1; j < Math.min(RESTART_WITHIN, ws.length); j++) {
    const w = ws[j]!;
    if (/^\p{Lu}/u.test(w.text) && RESTART_OPENERS.has(bareKey(w.text)) && /\p{L}$/u.test(ws[j - 1]!.text) && !SPEAKER_TITLES.has(openingKey(ws[j - 1]!))) return j;
  }
  if (/^[,;:-]+$/.test(ws[0]!.text)) return 1;
  if (ws.length > 1 && ws[0]!.text.endsWith(',') && LEADING_WITH_COMMA.has(openingKey(ws[0]!))) return 1;
  const keys = ws.slice(0, 6).map(openingKey);
  const filler = phraseAt(LEADING, keys, 0);
  if (filler > 0 && filler < ws.length && /^[\p{L}']+[,.…]?$/u.test(ws[filler - 1]!.text)) return filler;
  const address = phraseAt(ADDRESS, keys, 0);
  if (address > 0 && address < ws.length && ws[address - 1]!.text.endsWith(',')) return address;
  return 0;
}

/**
 * True when the sentence holds another speaker's words: a speaker's label ended by a colon, as hearing records write
 * an interjection inline ("… by half Mr. Brian Masse: Not on credit cards.", "The Chair: We go back …", or a name
 * opening the sentence, "Marie-Claude Bibeau: Our government …"). "Mr. Chair:" is the chair addressed, not speaking.
 */
function holdsInterjection(ws: readonly SpokenWord[]): boolean {
  const capital = (w: SpokenWord | undefined) => !!w && /^\p{Lu}/u.test(w.text);
  for (let i = 0; i < ws.length - 1; i++) {
    const w = ws[i]!;
    if (!w.text.endsWith(':') || !capital(w)) continue;
    // Glued: "Mr.Paul-Hus:".
    const glued = /^(\p{L}+)\.(\p{Lu}.*):$/u.exec(w.text);
    if (glued && SPEAKER_TITLES.has(glued[1]!.toLowerCase()) && phraseAt(ADDRESS_ROLES, [bareKey(glued[2]!)], 0) === 0) return true;
    for (let t = i - 1; t >= Math.max(0, i - 3); t--) {
      const name = ws.slice(t + 1, i + 1).map((x) => bareKey(x.text));
      if (!ws.slice(t + 1, i + 1).every(capital)) break;
      if (SPEAKER_TITLES.has(openingKey(ws[t]!)) && phraseAt(ADDRESS_ROLES, name, 0) !== name.length) return true;
      if (openingKey(ws[t]!) === 'the' && phraseAt(SPEAKER_ROLES, name, 0) === name.length) return true;
    }
    if (i >= 1 && i <= 2 && ws.slice(0, i + 1).every(capital) && capital(ws[i + 1])) return true;
  }
  return false;
}

/** A past tense: a past form of the list or a word in -ed. */
const isPast = (key: string) => PAST_VERBS.has(key) || (key.length >= 4 && key.endsWith('ed') && !key.endsWith('eed') && !NOT_PAST.has(key));
/** A word in -s after a word that is no determiner or preposition ("the industry generates"): taken for a verb, as a plural noun there costs nothing worse than a claim kept. */
const isPresentAfter = (key: string, before: string | undefined) =>
  before !== undefined && key.length >= 4 && key.endsWith('s') && !/(ss|us|is|ous|ics|ness|'s)$/.test(key) && !CLOSED_CLASS.has(before) && !/\d/.test(before);

/**
 * True when an English sentence holds a finite verb, by short lists and a little morphology: an auxiliary or modal,
 * a contraction ("it's", "don't", "we're"), one of the commonest verbs in a present or past form, a word in -ed, a
 * word in -s after a content word, or a subject pronoun followed by a word that is not a determiner, preposition,
 * conjunction, pronoun or adverb. It refuses the evident fragments ("Not the actual plastic outside case.") and
 * keeps a sentence whenever in doubt.
 */
export function hasFiniteVerb(keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (AUXILIARIES.has(k) || VERB_FORMS.has(k) || CONTRACTED_IS.has(k) || /(n't|'re|'ve|'m|'ll|'d)$/.test(k) || isPast(k) || isPresentAfter(k, keys[i - 1])) return true;
    if (SUBJECTS.has(k)) {
      const next = [keys[i + 1], keys[i + 2]].find((x) => x !== undefined && !CLOSED_CLASS.has(x));
      if (next !== undefined) return true;
    }
  }
  return false;
}

/**
 * The sentence without the fillers it ends with ("… and vegetables um.", "… there, yeah."): the words before them, the
 * last given the sentence's end mark (its own comma dropped). Unchanged when it ends on no filler.
 */
function withoutTrailingFillers(ws: readonly SpokenWord[]): SpokenWord[] {
  let out = [...ws];
  for (let guard = 0; guard < 4 && out.length > 1; guard++) {
    const last = out[out.length - 1]!;
    const mark = /[.!…]+["'”’)]*$/u.exec(last.text)?.[0];
    if (!mark) break;
    const keys = out.map((w) => bareKey(w.text));
    let cut = -1;
    for (let from = Math.max(0, out.length - 2); from < out.length; from++)
      if (phraseAt(TRAILING_FILLERS, keys, from) === out.length - from) {
        cut = from;
        break;
      }
    if (cut <= 0) break;
    const kept = out[cut - 1]!;
    out = [...out.slice(0, cut - 1), { ...kept, text: `${kept.text.replace(/[,;:]+$/, '')}${mark}` }];
  }
  return out;
}

/**
 * True when an English sentence is speech that was never finished as said: a word broken off before the one it
 * became ("You want to st store", "the neural netw Spanish neural network", "the E English"), a determiner before a
 * word no noun phrase starts with or before a comma ("with the with", "the, the", "the we'll"), a filler inside
 * ("you know", "okay,"; not "as you know"), a capitalised "But"/"And"/"So" restarting it past its first words, or
 * a last word that needs another ("you will just.", "and."). A sentence is refused rather than rewritten: no word
 * said otherwise is changed. One walk over the words.
 */
export function isUnfinished(ws: readonly SpokenWord[]): boolean {
  const keys = ws.map((w) => bareKey(w.text));
  for (let i = 0; i < ws.length; i++) {
    const key = keys[i]!;
    const text = ws[i]!.text;
    const next = keys[i + 1];
    // An acronym ("HTK", "BDC") is a word of its own, a lone capital only before a word ("the E English").
    const acronym = /^\p{Lu}{2,}$/u.test(text);
    if (/^\p{L}{1,4}$/u.test(text) && !acronym && !SHORT_WORDS.has(key) && !STOPWORDS_EN.has(key)) {
      for (let j = i + 1; j <= Math.min(keys.length - 1, i + 3); j++) if (keys[j]!.length > key.length && keys[j]!.startsWith(key)) return true;
      if (key.length <= 3 && /^\p{Ll}+$/u.test(text) && !/[aeiouy]/.test(key)) return true;
    }
    if (DETERMINERS.has(key) && next !== undefined && (text.endsWith(',') || NOT_AFTER_DETERMINER.has(next))) return true;
    if (i > 0 && text.endsWith(',') && COMMA_FILLERS.has(key) && !SAID_AS_WORD.has(keys[i - 1]!) && i < keys.length - 1) return true;
    const filler = i > 0 ? phraseAt(INNER_FILLERS, keys, i) : 0;
    if (filler > 0 && !(key === 'you' && YOU_KNOW_CLAUSE.has(keys[i - 1]!)) && i + filler < keys.length) return true;
    if (i >= RESTART_WITHIN && /^(But|And|So)$/.test(text) && /\p{L}$/u.test(ws[i - 1]!.text)) return true;
  }
  const last = keys[keys.length - 1];
  return last !== undefined && keys.length > 1 && NEEDS_ANOTHER.has(last);
}

/** A claim made of a sentence: its text, the sentence as said (tidied, openers kept), and its first and last word's times. */
export interface Claim {
  text: string;
  said: string;
  startMs: number;
  endMs: number;
}

/**
 * The sentence as a standalone claim, or null when it is none: tidied ({@link tidyWords}), its openers dropped
 * (fillers, a restart, the person addressed), its first letter upper-cased; refused when it is a question, a bare
 * subordinate clause, a sponsor message or procedure (apologies, welcomes, the floor, petitions), has no finite verb
 * (unless a short evaluative or figurative line), holds another speaker's interjection, leans on its context, or is
 * longer than {@link MAX_SENTENCE_CHARS} (checked before any rule reads it). Its times are its first and last kept
 * word's. Every rule is a walk over the words.
 */
export function claimOf(sentence: readonly SpokenWord[], language: string | undefined): Claim | null {
  if (sentence.reduce((n, w) => n + w.text.length + 1, 0) > MAX_SENTENCE_CHARS + 1) return null;
  const lang = baseLanguage(language);
  const tidied = tidyWords(sentence);
  if (tidied.length === 0 || holdsInterjection(tidied)) return null;
  let ws = tidied;
  for (let drop = openingLength(ws); drop > 0 && ws.length > 0; drop = ws.length > 0 ? openingLength(ws) : 0) ws = ws.slice(drop);
  const lead = ws[0];
  if (!lead) return null;
  if (/^[,;:-]/.test(lead.text)) ws = [{ ...lead, text: lead.text.replace(/^[,;:-]+/, '') }, ...ws.slice(1)];
  if (lang === 'en') {
    ws = withoutTrailingFillers(ws);
    if (isUnfinished(ws)) return null;
  }
  const text = joinWords(ws);
  if (text === '' || text.endsWith('?') || !endsSentence(ws[ws.length - 1]!.text)) return null;
  const keys = keysOf(text);
  if (keys.length === 0) return null;
  if (lang === 'en') {
    if (
      (QUESTION_OPENERS.has(keys[0]!) && !(SUBORDINATORS.has(keys[0]!) && text.includes(','))) ||
      (SUBORDINATORS.has(keys[0]!) && !text.includes(',') && keys[1] !== 'upon') ||
      (FRAGMENT_OPENERS.has(keys[0]!) && !text.includes(',')) ||
      holdsPhrase(DANGLING_ANYWHERE, keys) ||
      holdsPhrase(NOT_A_MOMENT, keys)
    )
      return null;
    const figure =
      (holdsPhrase(CUES.figurative, keys) && keys.length <= lists.QUOTE_FIGURATIVE_WORDS) || (holdsPhrase(CUES.evaluative, keys) && keys.length <= lists.QUOTE_EVALUATIVE_WORDS);
    if (!hasFiniteVerb(keys) && !figure) return null;
  }
  const dangling = DANGLING.get(lang) ?? DANGLING.get('en')!;
  // Read past a sentence adverb: "Maybe this is …" leans on its context as "This is …" does.
  const opening = lang === 'en' && keys.length > 1 && SENTENCE_ADVERBS.has(keys[0]!) ? keys.slice(1) : keys;
  if ((phraseAt(dangling, opening, 0) > 0 || phraseAt(dangling, [opening[0]!.split("'")[0]!], 0) > 0) && (lang !== 'en' || phraseAt(NOT_DANGLING, opening, 0) === 0)) return null;
  return { text: capitalise(text), said: joinWords(tidied), startMs: ws[0]!.startMs, endMs: Math.max(ws[0]!.startMs, ws[ws.length - 1]!.endMs) };
}

/** {@link claimOf} for a sentence without times: the claim's text, or null. */
export function standaloneClaim(sentence: string, language: string | undefined): string | null {
  if (sentence.length > MAX_SENTENCE_CHARS) return null;
  return claimOf(spokenWords(sentence), language)?.text ?? null;
}

/** The question a segment ends with (its last sentence, with the segment before when that is one sentence only and the same speaker's), or null. */
function questionBefore(segments: readonly EnrichSegment[], segment: number): string | null {
  const prev = segments[segment - 1];
  if (!prev || !/\?["'”’)]*$/.test(prev.text.trim().slice(-8))) return null;
  const own = sentences(prev.text.slice(-MAX_SENTENCE_CHARS));
  let question = own[own.length - 1] ?? '';
  const before = segments[segment - 2];
  if (own.length === 1 && before && (before.speakerLabel ?? null) === (prev.speakerLabel ?? null))
    question = `${sentences(before.text.slice(-MAX_SENTENCE_CHARS)).at(-1) ?? ''} ${question}`;
  return question.split(/\s+/).filter(Boolean).length >= MIN_TURN_WORDS ? question : null;
}

/**
 * The type of a moment said at `segment` (sentence `nth` of it; `said`: the sentence with its openers, "No, …"). A
 * sentence is in reply position when it opens a turn (its first or second sentence) that follows another known
 * speaker's of four words or more. `qa` when it answers that speaker's question (one sharing a content word with it, or, in English,
 * addressed to "you"); in English then the first of `debate` (in reply position, disagreeing: "I disagree", "but the
 * problem", "No, …"), `prediction` (future wording), `story` (a past-time anchor: "years ago", "back in", "at the time",
 * "when I was", "in 1998" or "in October" with a past verb), `quote` (short and evaluative or figurative); else `insight`.
 */
export function momentType(segments: readonly EnrichSegment[], segment: number, nth: number, claim: string, language: string | undefined, said = claim): MomentType {
  const seg = segments[segment]!;
  const prev = segments[segment - 1];
  const speaker = seg.speakerLabel ?? null;
  const other = prev?.speakerLabel ?? null;
  const reply = nth <= 1 && !!prev && speaker !== null && other !== null && other !== speaker && prev.text.trim().split(/\s+/, MIN_TURN_WORDS).length >= MIN_TURN_WORDS;
  const lang = baseLanguage(language);
  const keys = keysOf(claim);
  const question = reply ? questionBefore(segments, segment) : null;
  if (question !== null) {
    const stop = stopwords(language);
    const content = (ks: readonly string[]) => new Set(ks.filter((k) => isContentWord(k, stop)).map((k) => stem(k, language)));
    const asked = keysOf(question);
    const answer = content(keys);
    if ([...content(asked)].some((k) => answer.has(k)) || (lang === 'en' && asked.some((k) => YOU.has(k)))) return 'qa';
  }
  if (lang !== 'en') return 'insight';
  if (reply && (holdsPhrase(CUES.debate, keysOf(said)) || DEBATE_OPENERS.has(said.split(/\s+/)[0]!.toLowerCase()))) return 'debate';
  if (holdsPhrase(CUES.prediction, keys)) return 'prediction';
  if (
    (holdsPhrase(CUES.story, keys) && !holdsPhrase(CUES.hedge, keys)) ||
    (keys.some((k, i) => keys[i - 1] === 'in' && (/^(19|20)\d\d$/.test(k) || MONTHS.has(k))) && keys.some(isPast))
  )
    return 'story';
  if ((holdsPhrase(CUES.figurative, keys) && keys.length <= lists.QUOTE_FIGURATIVE_WORDS) || (holdsPhrase(CUES.evaluative, keys) && keys.length <= lists.QUOTE_EVALUATIVE_WORDS))
    return 'quote';
  return 'insight';
}

/**
 * One to three key moments of the chapter `[first, last]` (one per six minutes, at most three, at least 45 s apart): the
 * standalone sentences of 8–40 words richest in the chapter's salient words (`weights`: stemmed word → weight), typed by
 * {@link momentType}. Each starts at its claim's first word and ends at its last (a segment's start and end where the
 * segment's words carry no times). When no sentence qualifies, the richest sentence with any standalone form; none at
 * all when the chapter has no such sentence.
 */
export function chooseMoments(
  segments: readonly EnrichSegment[],
  first: number,
  last: number,
  { language, weights }: { language?: string; weights: ReadonlyMap<string, number> },
): LocalMoment[] {
  const stop = stopwords(language);
  const durationMs = segments[last]!.endMs - segments[first]!.startMs;
  const wanted = Math.min(3, 1 + Math.floor(durationMs / (6 * 60_000)));
  const all = sentencesOf(segments, first, last).flatMap((s) => {
    const claim = claimOf(s.words, language);
    return claim && claim.text.length <= MAX_MOMENT_CHARS ? [{ s, claim, words: tokens(claim.text) }] : [];
  });
  const scored = (strict: boolean) => {
    const out: LocalMoment[] = [];
    for (const { s, claim, words } of all) {
      if (strict && (words.length < MIN_WORDS || words.length > MAX_WORDS)) continue;
      if (words.length < 4) continue;
      const content = words.filter((w) => isContentWord(w.lower, stop));
      if (strict && content.length / words.length < 0.3) continue;
      const type = momentType(segments, s.segment, s.nth, claim.text, language, claim.said);
      const salience = content.reduce((sum, w) => sum + (weights.get(stem(w.lower, language)) ?? 0), 0) / Math.sqrt(words.length);
      const bonus =
        (type === 'insight' ? 0 : 0.15) +
        (holdsPhrase(
          CUES.insight,
          words.map((w) => w.lower),
        )
          ? 0.1
          : 0);
      const text = segments
        .slice(s.segment, s.endSegment + 1)
        .map((x) => x.text.trim())
        .join(' ');
      out.push({ type, title: claim.text, startMs: claim.startMs, endMs: claim.endMs, text, score: salience * (1 + bonus) });
    }
    return out;
  };
  let pool = scored(true);
  if (pool.length === 0) pool = scored(false);
  const order = pool.map((m, i) => ({ m, i })).sort((a, b) => b.m.score - a.m.score || a.i - b.i);
  const chosen: LocalMoment[] = [];
  for (const { m } of order) {
    if (chosen.length >= wanted) break;
    if (chosen.some((c) => Math.abs(c.startMs - m.startMs) < MIN_GAP_MS)) continue;
    chosen.push(m);
  }
  return chosen.sort((a, b) => a.startMs - b.startMs || (a.title < b.title ? -1 : 1));
}

/** Content-word weights of a chapter (stem → count × idf against the episode's chapters), for {@link chooseMoments}. */
export function chapterWeights(chapterTexts: readonly string[], language: string | undefined): Map<string, number>[] {
  const stop = stopwords(language);
  const counts = chapterTexts.map((text) => {
    const m = new Map<string, number>();
    for (const t of tokens(text)) if (isContentWord(t.lower, stop)) m.set(stem(t.lower, language), (m.get(stem(t.lower, language)) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of counts) for (const k of m.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  return counts.map((m) => {
    const out = new Map<string, number>();
    for (const [k, v] of m) out.set(k, Math.log1p(v) * (Math.log((counts.length + 1) / df.get(k)!) + 0.5));
    return out;
  });
}
