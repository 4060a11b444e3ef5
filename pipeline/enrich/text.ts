// Words of a transcript as enrichment reads them: tokens, stop words per language, a light stemmer, sentences.

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

const ABBREVIATION = /\b(dr|mr|mrs|ms|prof|st|sr|jr|vs|etc|e\.g|i\.e|no|sra?|hr|fr)\.$/i;
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

// A word of the repeat rule: letters (with their marks) and apostrophes; a digit or `_` next to it makes it part of
// something else. Only a word that starts and ends with a Latin letter is said once, as the rule always did: elsewhere a
// word said twice is often grammar (Hindi "अलग अलग"), not a stumble.
const REPEAT_WORD = /[\p{L}\p{M}']+/gu;
const LATIN = /[A-Za-z]/;
const JOINED = /[\p{N}_]/u;
const GAP = /^\s+$/u;

/**
 * A word said twice or more in a row said once ("the the" → "the", any case; the first spelling kept; "I I'm" → "I'm"). A walk over the
 * words, each compared with the one before: a backreference pattern tries every start inside a run of `a'a'a'…`.
 */
function sayOnce(text: string): string {
  let out = '';
  let copied = 0;
  let prev: { word: string; lower: string; end: number } | undefined;
  for (const m of text.matchAll(REPEAT_WORD)) {
    const word = m[0];
    const start = m.index;
    const end = start + word.length;
    const lower = word.toLowerCase();
    if (prev && GAP.test(text.slice(prev.end, start))) {
      if (lower === prev.lower && (end === text.length || !JOINED.test(text[end]!))) {
        out += text.slice(copied, prev.end);
        copied = end;
        prev.end = end;
        continue;
      }
      // The word again as the start of a contraction: "I I'm" → "I'm", "we we're" → "we're".
      const n = prev.word.length;
      if (word.length > n && word[n] === "'" && word.slice(0, n).toLowerCase() === prev.lower) {
        out += text.slice(copied, prev.end);
        copied = start + n;
        prev = undefined;
        continue;
      }
    }
    const bounded = (start === 0 || !JOINED.test(text[start - 1]!)) && LATIN.test(word[0]!) && LATIN.test(word[word.length - 1]!);
    prev = bounded ? { word, lower, end } : undefined;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Speech as a reader wants to quote it: symbol-only tokens of transcription markup (`@`, `#`) dropped, a word said twice
 * in a row said once ("the the"), a lone lower-case letter before a word (a cut-off start, "f to feed") dropped, and
 * "belief - net" joined as written. Words are never reordered or replaced. Linear in the text: white space is
 * collapsed before the rule that removes it before punctuation, which would try every start inside a long run.
 */
export function tidySpeech(text: string): string {
  return sayOnce(text.replace(/(^|\s)[@#%&*~^|]+(?=\s|$)/g, '$1').replace(/(^|\s)(?![aiAI]\b)\p{Ll}(?=\s+\p{L})\s+/gu, '$1'))
    .replace(/(\p{L}) - (\p{L})/gu, '$1-$2')
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([,.;:!?…])/g, '$1')
    .trim();
}
