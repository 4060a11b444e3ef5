// Words of a transcript as enrichment reads them: tokens, stop words per language, a light stemmer, sentences, speech
// tidied word by word with its times, and phrase lists matched word by word.
import { HESITATIONS, SAID_TWICE } from './moment-words.js';

/** Languages with their own stop words; any other falls back to English's list plus the fillers. */
export const STOPWORD_LANGUAGES = ['en', 'es', 'de', 'fr', 'pt', 'it', 'nl'] as const;

// Speech fillers and backchannels of every language: never salient, never a title.
const FILLERS = 'um umm uh uhm hmm mm mhm mmhmm hm ah eh oh ok okay yeah yep yes yup nope no ja nee oui si sí sim ne na gonna wanna gotta kinda sorta'.split(' ');

const LISTS: Record<(typeof STOPWORD_LANGUAGES)[number], string> = {
  en: `a about above after again against all almost also although always am among an and another any anybody anyone anything anyway anyways are aren't around as at away back
    be became because become been before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down during each
    either else enough even ever every everybody everyone everything few first for from further get gets getting go goes going gone good got great had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it it'd it'll it's its
    itself just keep kind know known knows last least less let let's like likely little lot lots make made makes many may maybe me mean means might mine more most mostly
    much must mustn't my myself need needs never new next nice no nor not nothing now of off often on once one ones only onto or other others otherwise ought our ours
    ourselves out over own part perhaps please point pretty probably put quite rather really right said same say saying says see seem seems seen shall shan't she she'd
    she'll she's should shouldn't since so some somebody someone something sometimes somewhat soon sort still stuff such sure take taken talk talking tell than thank thanks
    that that's thats the their theirs them themselves then there there's these they they'd they'll they're they've thing things think thinking this those though thought
    through thus till to today together too toward towards two under unless until up upon us use used using usually very via want wants was wasn't way ways we we'd we'll
    we're we've well went were weren't what what's whatever when when's where where's whether which while who who's whom whose why why's will with within without won't
    would wouldn't yet you you'd you'll you're you've your yours yourself yourselves actually basically certainly definitely exactly obviously absolutely guess bit fine
    true alright anyway cause cos gotta three four five six seven eight nine ten hundred thousand second time times day days year years people person guys`,
  es: `a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el ella ellas ellos en entre era eran es esa esas ese eso esos esta
    está están estas este esto estos fue fueron ha hace han hasta hay la las le les lo los mas más me mi mis mucho muy nada ni no nos nosotros o os otra otro para pero poco
    por porque que qué quien se sea ser si sí sin sobre son su sus también tan tanto te tiene tienen todo todos tu tus un una uno unos vamos ya yo bueno pues entonces eso
    así cosa cosas decir dice digo vez veces bien aquí ahí`,
  de: `aber alle allem allen aller alles als also am an ander andere anderen auch auf aus bei bin bis bist da damit dann das dass dein deine dem den denn der des dich die
    dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer für gegen gewesen hab habe haben hat hatte hier
    hin hinter ich ihm ihn ihnen ihr ihre im in indem ins ist ja jede jedem jeden jeder jetzt kann kein keine können machen man manche mein meine mich mir mit muss nach
    nicht nichts noch nun nur ob oder ohne schon sehr sein seine sich sie sind so solche soll sondern sonst über um und uns unser unter viel vom von vor war waren was weil
    welche wenn wer werden wie wieder will wir wird wo wollen würde zu zum zur zwar zwischen also halt eben mal gut genau eigentlich`,
  fr: `à au aux avec ce ceci cela celle celles celui ces cet cette comme dans de des du elle elles en est et être eu eux il ils je la le les leur leurs lui ma mais me
    même mes moi mon ne ni nos notre nous on ou où par pas pour qu que quel quelle qui sa sans se ses si son sont sur ta te tes toi ton tous tout toute toutes très tu un
    une vos votre vous y ça c'est j'ai il y a alors donc voilà bon bien aussi avoir fait faire était peu plus moins chose choses dire fois ici là`,
  pt: `a ao aos as à às até com como da das de dele deles do dos e é ela elas ele eles em entre era essa esse isso esta este isto eu foi for há isso já lhe mais mas me
    mesmo meu minha muito na não nas nem no nos nós o os ou para pela pelo por porque quando que quem se sem ser seu sua são também te tem ter um uma umas uns você vocês
    então aí né tá bom bem coisa coisas dizer vez vezes aqui ali`,
  it: `a ad al alla alle allo anche che chi ci come con contro da dal dalla dei del della delle dello di dove e è ed gli ha hanno i il in io la le lei lo loro lui ma mi
    mia mio ne nei nel nella noi non o per perché più quale quando quello questa questo se sei si sia siamo sono su sua suo sul sulla tra tu tutti tutto un una uno voi
    allora quindi cioè ecco bene cosa cose dire volta volte qui lì`,
  nl: `aan al alles als altijd andere ben bij dan dat de der deze die dit doch doen door dus een eens en er ge geen geweest haar had heb hebben heeft hem het hier hij hoe
    hun iemand iets ik in is ja je kan kon kunnen maar me meer men met mij mijn moet na naar niet niets nog nu of om omdat ons ook op over reeds te tegen toch toen tot u
    uit uw van veel voor want waren was wat we wel werd wezen wie wij wil worden zal ze zei zelf zich zij zijn zo zonder zou gewoon eigenlijk even heel ding dingen`,
};

const STOPWORDS = new Map<string, ReadonlySet<string>>(Object.entries(LISTS).map(([lang, list]) => [lang, new Set([...list.split(/\s+/).filter(Boolean), ...FILLERS])]));

/** The primary subtag of a BCP 47 tag, lower-cased (`de-AT` → `de`). */
export function baseLanguage(language: string | undefined): string {
  return (language ?? 'en').toLowerCase().split(/[-_]/)[0] || 'en';
}

/** Stop words (and speech fillers) of a language; English's for a language without a list. */
export function stopwords(language: string | undefined): ReadonlySet<string> {
  return STOPWORDS.get(baseLanguage(language)) ?? STOPWORDS.get('en')!;
}

/** A token of text: its surface form and its lower-cased form. */
export interface Token {
  surface: string;
  lower: string;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** Words of a text, in order (letters and digits, inner apostrophes kept). */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) out.push({ surface: m[0], lower: m[0].toLowerCase().replace(/’/g, "'") });
  return out;
}

/** A word that may carry meaning: not a stop word, at least three characters, not only digits. */
export function isContentWord(lower: string, stop: ReadonlySet<string>): boolean {
  return lower.length >= 3 && !stop.has(lower) && !/^\d+$/.test(lower) && !lower.includes("'");
}

/**
 * A light stemmer that joins a word's plural and singular (and nothing riskier): accents folded, English `-ies`/`-es`/`-s`,
 * Romance and Dutch/German plural `-s`/`-es`/`-en`/`-e` endings trimmed on long words. Used to key topics and count salience, never shown.
 */
export function stem(lower: string, language?: string): string {
  const w = lower.normalize('NFD').replace(/\p{M}/gu, '');
  const lang = baseLanguage(language);
  if (w.length <= 3) return w;
  if (lang === 'en') {
    if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
    if (/(ss|us|is)$/.test(w)) return w;
    if (/(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
    if (w.endsWith('s')) return w.slice(0, -1);
    return w;
  }
  if (lang === 'de' || lang === 'nl') {
    if (w.length > 5 && /(en|er|es)$/.test(w)) return w.slice(0, -2);
    if (w.length > 4 && /[es]$/.test(w)) return w.slice(0, -1);
    return w;
  }
  if (w.length > 4 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s')) return w.slice(0, -1);
  return w;
}

const ABBREVIATION = /\b(dr|mr|mrs|ms|mme|prof|hon|rev|st|ste|mt|sr|jr|vs|etc|e\.g|i\.e|no|sra?|hr|fr)\.$/i;
/** Characters of a sentence's end that {@link ABBREVIATION} reads: its longest match ("prof.") and the two before it. */
const ABBREVIATION_TAIL = 7;

const STOPS = new Set(['.', '!', '?', '…']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);
const SPACE = /\s/u;

/**
 * Sentences of a text, cut after `.`, `!`, `?` or `…` (closing quotes kept) followed by a space, not after a title such as "Dr.".
 * One forward pass: a pattern that looks back over the closing quotes costs the square of a run of them.
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  const push = (piece: string) => {
    const s = piece.trim();
    if (s === '') return;
    if (out.length > 0 && ABBREVIATION.test(out[out.length - 1]!.slice(-ABBREVIATION_TAIL))) out[out.length - 1] += ` ${s}`;
    else out.push(s);
  };
  let start = 0;
  // True while every character since the last stop is a closing quote or bracket.
  let stopped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (SPACE.test(ch)) {
      if (stopped) {
        push(text.slice(start, i));
        while (i + 1 < text.length && SPACE.test(text[i + 1]!)) i++;
        start = i + 1;
      }
      stopped = false;
    } else if (STOPS.has(ch)) stopped = true;
    else if (!CLOSERS.has(ch)) stopped = false;
  }
  push(text.slice(start));
  return out;
}

/** Upper-cases the first letter. */
export function capitalise(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** A word as said: its text (with the punctuation written against it) and its times (the word's own where the transcript times its words, else its segment's). */
export interface SpokenWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** The words of a text (split at white space), each given the same times: speech without word times. */
export function spokenWords(text: string, startMs = 0, endMs = startMs): SpokenWord[] {
  return text
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => ({ text: t, startMs, endMs }));
}

/** The words as text, one space between them. */
export function joinWords(words: readonly SpokenWord[]): string {
  return words.map((w) => w.text).join(' ');
}

const CLOSING = new Set([...STOPS, ...CLOSERS]);

/** True when a word ends a sentence: `.`, `!`, `?` or `…` with only closing quotes or brackets after it. A backward scan, linear. */
export function endsSentence(word: string): boolean {
  let i = word.length - 1;
  while (i >= 0 && CLOSERS.has(word[i]!)) i--;
  return i >= 0 && STOPS.has(word[i]!) && !ABBREVIATION.test(word.slice(-ABBREVIATION_TAIL));
}

/** A word without the punctuation after it ("feel," → "feel"), lower-cased. */
export function bareKey(word: string): string {
  let end = word.length;
  while (end > 0 && (CLOSING.has(word[end - 1]!) || ',;:'.includes(word[end - 1]!))) end--;
  return word.slice(0, end).toLowerCase().replace(/’/g, "'");
}

/**
 * A set of phrases matched against lower-cased words (see moment-words.ts for the notation): a map from a phrase's
 * first word to the phrases it opens, and the few phrases that open with a pattern. Matching at one place costs the
 * phrases that open with that word, never a scan of the text.
 */
export interface PhraseSet {
  byFirst: Map<string, string[][]>;
  patterned: string[][];
}

const isPattern = (w: string) => w.startsWith('*') || w.endsWith('*') || w === '<year>';

export function phraseSet(phrases: readonly string[]): PhraseSet {
  const set: PhraseSet = { byFirst: new Map(), patterned: [] };
  for (const phrase of phrases) {
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    if (isPattern(words[0]!)) set.patterned.push(words);
    else set.byFirst.set(words[0]!, [...(set.byFirst.get(words[0]!) ?? []), words]);
  }
  return set;
}

const YEAR = /^(19|20)\d\d$/;

function wordMatches(pattern: string, word: string): boolean {
  if (pattern === '*') return true;
  if (pattern === '<year>') return YEAR.test(word);
  if (pattern.length > 1 && pattern.endsWith('*')) return word.startsWith(pattern.slice(0, -1));
  if (pattern.length > 1 && pattern.startsWith('*')) return word.endsWith(pattern.slice(1));
  return word === pattern;
}

/** Length in words of the longest phrase of `set` that starts at `words[at]`; 0 when none does. */
export function phraseAt(set: PhraseSet, words: readonly string[], at: number): number {
  let best = 0;
  const first = words[at];
  if (first === undefined) return 0;
  for (const phrase of [...(set.byFirst.get(first) ?? []), ...set.patterned]) {
    if (phrase.length <= best || at + phrase.length > words.length) continue;
    if (phrase.every((p, k) => wordMatches(p, words[at + k]!))) best = phrase.length;
  }
  return best;
}

/** True when one of the phrases occurs anywhere in `words`. */
export function holdsPhrase(set: PhraseSet, words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i++) if (phraseAt(set, words, i) > 0) return true;
  return false;
}

/** A word of the repeat rule: letters (with their marks) and apostrophes, starting and ending with a Latin letter. Elsewhere a word said twice is often grammar (Hindi "अलग अलग"), not a stumble. */
const BARE = /^[A-Za-z](?:[\p{L}\p{M}']*[A-Za-z])?$/u;
const MARKUP = /^[@#%&*~^|]+$/;
const PUNCTUATION_FIRST = /^[,.;:!?…]/u;
const LONE_LETTER = /^\p{Ll}$/u;
const LETTER_FIRST = /^\p{L}/u;
const LETTER_LAST = /\p{L}$/u;
const HESITATION_SHAPE = /^\p{L}+,?$/u;
const HESITATION = new Set(HESITATIONS);
const SAID_TWICE_SET = new Set(SAID_TWICE);
const STOPWORDS_EN = STOPWORDS.get('en')!;

/** Longest run of words said again as a restart ("we feel we feel"), in words. */
const MAX_REPEAT_WORDS = 4;

/** A hesitation ("um", "Uhh,", "hmmm"): one letter's run counts once. */
function isHesitation(text: string): boolean {
  if (!HESITATION_SHAPE.test(text)) return false;
  let squeezed = '';
  for (const ch of text.toLowerCase().replace(/,$/, '')) if (ch !== squeezed[squeezed.length - 1]) squeezed += ch;
  return HESITATION.has(squeezed);
}

interface Keyed<W> {
  word: W;
  /** Lower-cased, without the punctuation after it. */
  key: string;
  /** Nothing but a word: no punctuation before, inside or after it. */
  bare: boolean;
}

/**
 * Whether the `k` words before the last `k` of `out` are said again by them: the same words (any case), or the same
 * with its last word cut off before it was finished ("I jus I just", "triang triangular"), or a word said again as
 * the start of a contraction ("I I'm"). The earlier copy must be bare words; the later may end in punctuation.
 */
function restartOf<W extends SpokenWord>(out: readonly Keyed<W>[], k: number): boolean {
  const n = out.length;
  if (n < 2 * k) return false;
  let numbers = true;
  for (let j = 0; j < k; j++) {
    const earlier = out[n - 2 * k + j]!;
    const later = out[n - k + j]!;
    const last = j === k - 1;
    if (!SAID_TWICE_SET.has(later.key)) numbers = false;
    if (!last && (!earlier.bare || !later.bare || earlier.key !== later.key)) return false;
    if (!last) continue;
    if (!BARE.test(later.key)) return false;
    if (earlier.bare && earlier.key === later.key) continue;
    if (k === 1 && earlier.bare && later.key.length > earlier.key.length && later.key.startsWith(`${earlier.key}'`)) return true;
    // A word broken off: written with a dash, or a part of the next that is no word of its own.
    const hyphen = earlier.word.text.endsWith('-');
    const stem = hyphen ? earlier.key.replace(/-+$/, '') : earlier.key;
    if (!BARE.test(stem) || !(hyphen || earlier.bare) || later.key.length <= stem.length || !later.key.startsWith(stem)) return false;
    if (!hyphen && (STOPWORDS_EN.has(stem) || stem.length < (k === 1 ? 3 : 2))) return false;
    return true;
  }
  return !numbers;
}

/**
 * Speech as a reader wants to quote it, word by word with its times: symbol-only tokens of transcription markup
 * (`@`, `#`) and hesitations ("um", "uh") dropped, punctuation written apart joined to its word, a lone lower-case
 * letter before a word (a cut-off start, "f to feed") dropped, "belief - net" joined as written, and a restart said
 * once: a run of one to four words said again ("we feel we feel", "is read is read"), a word broken off before it
 * is said whole ("I jus I just"), "I I'm". The earlier copy is the one dropped (its capital kept). Words are never
 * reordered or replaced; a joined word spans the times of its parts. Linear: each word is compared with the eight
 * before it.
 */
export function tidyWords<W extends SpokenWord>(words: readonly W[]): W[] {
  const glued: W[] = [];
  for (const w of words) {
    if (MARKUP.test(w.text)) continue;
    const prev = glued[glued.length - 1];
    if (prev && PUNCTUATION_FIRST.test(w.text)) glued[glued.length - 1] = { ...prev, text: prev.text + w.text, endMs: w.endMs };
    else glued.push(w);
  }
  const joined: W[] = [];
  for (let i = 0; i < glued.length; i++) {
    const w = glued[i]!;
    const next = glued[i + 1];
    if (isHesitation(w.text)) continue;
    if (LONE_LETTER.test(w.text) && w.text !== 'a' && w.text !== 'i' && next && LETTER_FIRST.test(next.text)) continue;
    const prev = joined[joined.length - 1];
    if (w.text === '-' && prev && next && LETTER_LAST.test(prev.text) && LETTER_FIRST.test(next.text)) {
      joined[joined.length - 1] = { ...prev, text: `${prev.text}-${next.text}`, endMs: next.endMs };
      i++;
      continue;
    }
    joined.push(w);
  }
  const out: Keyed<W>[] = [];
  for (const word of joined) {
    const key = bareKey(word.text);
    out.push({ word, key, bare: key === word.text.toLowerCase().replace(/’/g, "'") && BARE.test(key) });
    // Said again: drop the earlier copy, and look again (the run before may now be said again too).
    for (let again = true; again;) {
      again = false;
      for (let k = 1; k <= MAX_REPEAT_WORDS; k++) {
        if (!restartOf(out, k)) continue;
        // The earlier copy's capital stays ("And and so" → "And so"): case is not a word.
        const [dropped] = out.splice(out.length - 2 * k, k);
        const kept = out[out.length - k]!;
        if (/^\p{Lu}/u.test(dropped!.word.text) && /^\p{Ll}/u.test(kept.word.text)) kept.word = { ...kept.word, text: capitalise(kept.word.text) };
        again = true;
        break;
      }
    }
  }
  return out.map((o) => o.word);
}

/** {@link tidyWords} over a text without times. */
export function tidySpeech(text: string): string {
  return joinWords(tidyWords(spokenWords(text)));
}
