// People and companies/products of an episode from named entities (spelling merged, ASR junk dropped, rare names left out), and their ids across a channel (`pe_g-<slug>`, `en_g-<slug>`).
import { facetSlug, losesOtherScripts } from '../../core/contract/facet-ids.js';
import type { Logger } from '../../core/ground/logger.js';
import { NerError } from './ner.js';
import type { EnrichSegment, GeneratedFacet, NamedEntity, RecogniseEntities } from './types.js';
import ADDRESS from './words/address.json' with { type: 'json' };
import GIVEN from './words/names.json' with { type: 'json' };
import INTERFACE from './words/interface.json' with { type: 'json' };

/** spaCy labels that name a person. */
export const PERSON_LABELS: ReadonlySet<string> = new Set(['PERSON']);
/**
 * spaCy labels that name a company or product. Not WORK_OF_ART (book and film titles): en_core_web_sm finds it with
 * precision 0.47 and recall 0.34 on OntoNotes, and spoken titles are rarely cased as one.
 */
export const ENTITY_LABELS: ReadonlySet<string> = new Set(['ORG', 'PRODUCT']);
/**
 * Labels that say a name is something else (a place, language, nationality, event, law or work): they are not kept, but
 * they vote, so that "Calcutta" the model once calls an ORG and more often a GPE is left out.
 */
export const ELSEWHERE_LABELS: ReadonlySet<string> = new Set(['GPE', 'LOC', 'NORP', 'LANGUAGE', 'FAC', 'EVENT', 'LAW', 'WORK_OF_ART']);

export type NameKind = 'person' | 'entity';

/** A name an episode mentions: its key (the slug), the spelling shown, how often it is mentioned, and its kind. */
export interface EpisodeName {
  key: string;
  name: string;
  mentions: number;
  kind: NameKind;
}

/** The names an episode keeps, most mentioned first (ties: by key). */
export interface EpisodeNames {
  people: EpisodeName[];
  entities: EpisodeName[];
  /** Why nothing was looked for (a language without a model), when that is the case. */
  skipped?: string;
}

/** Thresholds of what an episode keeps. */
export interface NameThresholds {
  /** Mentions a name needs (title and description included). Default 2. */
  minMentions: number;
  /** Mentions a one-word person name needs when no full name of the episode takes it in. Default 3. */
  minSingleMentions: number;
  /** Names of each kind kept per episode, most mentioned first. Default 10. */
  maxPerKind: number;
}

export const DEFAULT_NAME_THRESHOLDS: Readonly<NameThresholds> = Object.freeze({ minMentions: 2, minSingleMentions: 3, maxPerKind: 10 });

// Forms of address put before a name ("Mr. LeBlanc", "Dr Rajan", "Madam Minister Freeland"); the committee transcripts
// also glue them on ("Mr.LeBlanc", "MinisterMcKenna").
const TITLE_BEFORE =
  /^(?:mrs|mr|ms|miss|mx|dr|prof|professor|sir|dame|lord|lady|madam|madame|mister|hon|honourable|honorable|minister|senator|president|premier|justice|judge|rev|reverend)(?:\.\s*|\s+)/i;
const GLUED_TITLE = /^(?:Mrs|Mr|Ms|Dr|Minister|Madam|Hon)\.?(?=\p{Lu}\p{Ll})/u;

// Never a name by themselves: pronouns, fillers and backchannels that ASR capitalises, forms of address left alone,
// transcript markers, and the generic nouns a committee capitalises ("the House", "Government").
const NOT_NAMES = new Set(
  (
    'i me you he him she her we us they them it um umm uh uhm hmm hm mm mhm ah oh eh yeah yes yep no nope ok okay hi hello bye thanks ' +
    'laughter applause inaudible crosstalk unknown blah speaker chair chairman chairperson chairwoman madam sir minister member members ' +
    'president premier hon honourable mr mrs ms dr prof government parliament house cabinet crown assembly union committee council ' +
    'ministry department senate board agency court police company university college school party state episode podcast show ' +
    'covid covid-19 coronavirus ' +
    // File formats are no organisation, product or place (labelling rules): "save it as a JPEG".
    'jpeg jpg png gif tiff tif psd pdf svg bmp raw heic webp mp3 mp4 wav csv'
  ).split(' '),
);

// Platforms the model often takes for a person ("Twitter said…"): counted as companies whatever the label.
const KNOWN_ORGS = new Set('twitter facebook instagram youtube whatsapp tiktok google amazon netflix spotify linkedin reddit wikipedia uber zoom skype'.split(' '));

// Capitalised words that are one-word "persons" far more often as the noun ("the Bill", "Will"): kept only inside a
// full name ("Bill Morneau", "Elizabeth May").
const AMBIGUOUS_FIRST_NAMES = new Set('bill will may mark grace hope faith joy chase frank guy rose sky sunny summer april june august'.split(' '));

// Hesitations however long ASR writes them: "Mmm", "Uhhh", "Hmmm".
const FILLER = /^(?:u+m+|u+h+|h+m+|m+h*m+|a+h+|o+h+|e+r+m*)$/i;

// Lower-case words a person's name may hold between capitalised ones ("Ludwig van Beethoven", "Xavier de Souza").
const NAME_PARTICLES = new Set(['de', 'del', 'della', 'der', 'di', 'da', 'dos', 'du', 'la', 'le', 'van', 'von', 'bin', 'ibn', 'al', 'el', 'ter', 'ten', 'y']);

const GIVEN_NAMES: ReadonlySet<string> = new Set(GIVEN.names.map((n) => nameSlug(n)));
const SUFFIXES: ReadonlySet<string> = new Set(ADDRESS.suffixes);
const CHAIRS: ReadonlySet<string> = new Set(ADDRESS.chairs);
const ROLE_WORDS: ReadonlySet<string> = new Set(ADDRESS.roleWords);
const PARTIES: ReadonlySet<string> = new Set(ADDRESS.parties);
/** Forms of address before a name, longest first so that "Right Hon." is read before "Hon.". */
const LABEL_TITLE = new RegExp(
  `^(?:${[...ADDRESS.titles]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/ /g, '\\s+'))
    .join('|')})(?:\\.\\s*|\\s+)`,
  'i',
);

/** True when a word is a given name of the shipped list (`words/names.json`); each part of a hyphenated one counts. */
export function isGivenName(word: string): boolean {
  const slug = nameSlug(word);
  return slug !== '' && (GIVEN_NAMES.has(slug) || slug.split('-').some((part) => GIVEN_NAMES.has(part)));
}

/** Longest speaker label read: a committee's label with a riding and a portfolio is under 150 characters. */
const MAX_LABEL_CHARS = 200;

/** The person a speaker label names, and the places it gives (ridings), or null when it names a role. */
export interface SpeakerName {
  name: string;
  key: string;
  places: string[];
  /** The chair's role the label gives the person in ("the chair" of "The Chair (Hon. Wayne Easter)"). */
  role?: string;
}

/** The chair's role a label names alone ("The Chair" → "the chair"), or null. */
export function chairOf(label: string): string | null {
  const role = label.trim().toLowerCase().replace(/\s+/g, ' ');
  return label.length <= MAX_LABEL_CHARS && CHAIRS.has(role) ? role : null;
}

/** What is inside the label's first parentheses (nested ones kept whole), and what stands before them. */
function splitParentheses(label: string): { head: string; inner: string | null } {
  const open = label.indexOf('(');
  if (open < 0) return { head: label.trim(), inner: null };
  let depth = 0;
  for (let i = open; i < label.length; i++) {
    if (label[i] === '(') depth++;
    else if (label[i] === ')' && --depth === 0) return { head: label.slice(0, open).trim(), inner: label.slice(open + 1, i).trim() };
  }
  return { head: label.slice(0, open).trim(), inner: label.slice(open + 1).trim() };
}

/** A name as a label writes it, titles and suffixes off ("Right Hon. Justin Trudeau" → "Justin Trudeau", "Hefin David AM" → "Hefin David"), or null. */
function labelPersonName(text: string): string | null {
  let name = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 3; i++) {
    const stripped = name.replace(LABEL_TITLE, '');
    if (stripped === name) break;
    name = stripped;
  }
  let words = name.split(' ').filter(Boolean);
  while (words.length > 1 && SUFFIXES.has(words[words.length - 1]!.replace(/[.,]/g, '').toLowerCase())) words = words.slice(0, -1);
  if (words.length === 0 || words.length > 5) return null;
  // Each word a capitalised word of two letters or more (or a particle): "PhD A", "Guest 2" and "Professor B" are no names.
  const shaped = words.every((w) => NAME_PARTICLES.has(w.toLowerCase()) || /^\p{Lu}[\p{L}'’.-]*\p{L}$/u.test(w));
  if (!shaped || words.some((w) => ROLE_WORDS.has(w.toLowerCase()))) return null;
  // One word names someone only when it is a given name ("Jane"); "Marketing" is a role.
  if (words.length === 1 && !isGivenName(words[0]!)) return null;
  return words.join(' ');
}

/**
 * The person a speaker label names, with titles, suffixes, party and riding taken off, and the riding kept as a place:
 * "Mr. Ziad Aboultaif (Edmonton Manning, CPC)" → Ziad Aboultaif (place Edmonton Manning); "The Chair (Hon. Wayne
 * Easter)" → Wayne Easter; "Hon. Bill Morneau (Minister of Finance)" → Bill Morneau. Null for a label that names a role
 * or a diarisation cluster ("The Chair", "Project Manager", "PhD A", "Guest 2").
 */
export function speakerName(label: string): SpeakerName | null {
  if (label.length > MAX_LABEL_CHARS) return null;
  let { head, inner } = splitParentheses(label);
  // "The Chair (Hon. Anthony Rota (NipissingTimiskaming, Lib.))": the person is inside.
  const role = chairOf(head) ?? undefined;
  if (role) {
    if (inner === null) return null;
    ({ head, inner } = splitParentheses(inner));
  }
  const name = labelPersonName(head);
  if (!name) return null;
  const places: string[] = [];
  // "(Edmonton Manning, CPC)": a riding and a party; "(Minister of Finance)" is a portfolio, not a place.
  const riding = inner === null ? null : /^(.+),\s*([\p{L}.]{1,8})$/u.exec(inner);
  if (riding && PARTIES.has(riding[2]!.replace(/\./g, '').toLowerCase())) places.push(riding[1]!.trim());
  return { name, key: nameSlug(name), places, ...(role ? { role } : {}) };
}

/** Longest entity text read as a name: a name is at most 60 characters once cleaned. */
const MAX_ENTITY_CHARS = 200;

/**
 * ASCII letters and digits of a name, diacritics removed, lower-cased, words joined by `-`, and a hash of the whole name
 * when letters of another script were dropped (decision 33): the key and the id's slug. Empty for a name of no letter.
 */
export function nameSlug(name: string): string {
  const ascii = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’.]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return losesOtherScripts(name) ? facetSlug(ascii, name.replace(/['’.]/g, '')) : ascii;
}

/**
 * The name an entity's text stands for, cleaned ("the World Bank" → "World Bank", "Varma's" → "Varma", "Mr.LeBlanc" →
 * "LeBlanc", "I.V.M." → "IVM"), or null when it is junk ASR and the model make: no two letters, a digit in a person's
 * name, punctuation inside, a word said twice, no capital letter (transcripts here are cased, so an all-lower-case span
 * is the model guessing), more than six words, a pronoun, filler or bare form of address.
 */
export function cleanName(text: string, kind: NameKind): string | null {
  // No name is this long, and the edge-trimming patterns below cost the square of a run of punctuation.
  if (text.length > MAX_ENTITY_CHARS) return null;
  let name = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  // "'Kay" is "okay" cut short, "'Cause" "because": a word elided at its start is no name.
  if (/^['’]\p{L}/u.test(name)) return null;
  name = name.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  name = name.replace(/^the\s+/i, '');
  name = name.replace(/['’]s$/i, '').replace(/(?<=s)['’]$/i, '');
  if (kind === 'person') {
    for (let i = 0; i < 3; i++) {
      const stripped = name.replace(TITLE_BEFORE, '').replace(GLUED_TITLE, '');
      if (stripped === name) break;
      name = stripped;
    }
  }
  name = name.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  // Spelled-out initials: "I.V.M." and "I. V. M." are "IVM".
  if (/^(?:\p{L}\.\s?){2,}\p{L}?\.?$/u.test(name)) name = name.replace(/[.\s]/g, '');
  if (!/^[\p{L}\p{N}][\p{L}\p{N}\s'’.&-]*$/u.test(name)) return null;
  // Spelled out letter by letter ("K-N-O-T-T-Y"), or a role rather than an organisation ("Minister of Finance").
  if (/^(?:\p{L}-){2,}\p{L}$/u.test(name)) return null;
  if (kind === 'entity' && /^(?:minister|member|secretary)\b/i.test(name)) return null;
  if ((name.match(/\p{L}/gu) ?? []).length < 2 || !/\p{Lu}/u.test(name)) return null;
  if (name.length > 60) return null;
  const words = name.split(' ');
  if (words.length > 6) return null;
  const lower = words.map((w) => w.toLowerCase());
  if (new Set(lower).size !== lower.length) return null;
  if (kind === 'person') {
    if (/\p{N}/u.test(name)) return null;
    if (words.some((w) => !/^\p{Lu}/u.test(w) && !NAME_PARTICLES.has(w.toLowerCase()))) return null;
    // A possessive inside names a thing after a person ("Bernie Woodrow's Rule"), not the person.
    if (words.slice(0, -1).some((w) => /['’]s$/iu.test(w))) return null;
  }
  // Made only of words that are never names, spaced or glued ("Madam Chair", "MadamChair", "Chair Hon"), or a filler.
  const parts = name.split(/\s+|(?<=\p{Ll})(?=\p{Lu})/u).map((w) => w.toLowerCase());
  if (parts.every((w) => NOT_NAMES.has(w)) || FILLER.test(name) || !nameSlug(name)) return null;
  return name;
}

/** The kind a label names, or null for the labels neither facet takes (places, dates, numbers, …). */
export function kindOf(label: string): NameKind | null {
  return PERSON_LABELS.has(label) ? 'person' : ENTITY_LABELS.has(label) ? 'entity' : null;
}

/** Levenshtein distance, for ASR's spellings of one surname ("Varma", "Verma"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * True when two multi-word keys are one person spelled two ways by ASR: same first word, same number of words, and
 * the rest within one edit (two for words of six letters or more): "amit-varma" and "amit-verma".
 */
export function sameSpokenName(a: string, b: string): boolean {
  const x = a.split('-');
  const y = b.split('-');
  if (x.length < 2 || x.length !== y.length || x[0] !== y[0]) return false;
  return closeSpellings(x.slice(1).join('-'), y.slice(1).join('-'));
}

/** True when what follows one first name is within one edit (two for six letters or more), on at least four letters. */
function closeSpellings(restA: string, restB: string): boolean {
  const shorter = Math.min(restA.length, restB.length);
  if (shorter < 4) return false;
  const allowed = shorter >= 6 ? 2 : 1;
  // An edit changes the length by one at most: no distance to compute when the lengths differ more.
  return Math.abs(restA.length - restB.length) <= allowed && distance(restA, restB) <= allowed;
}

/** Counts of one key: mentions by kind (and as something else: {@link ELSEWHERE_LABELS}) and by spelling. */
interface Tally {
  person: number;
  entity: number;
  elsewhere: number;
  spellings: Map<string, number>;
  /** Said at least once after a form of address ("Mr. Masse", "Dr Rajan"). */
  titled?: boolean;
  /** Mentions after an article or a possessive ("a Mac", "the Brush"): a thing's name, not a person's. */
  determined?: number;
  /** A speaker of the episode, from a label that names them. */
  speaker?: boolean;
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function add(tallies: Map<string, Tally>, key: string, kind: NameKind | 'elsewhere', spelling: string, n = 1): Tally {
  const t = tallies.get(key) ?? { person: 0, entity: 0, elsewhere: 0, spellings: new Map<string, number>() };
  t[kind] += n;
  if (kind !== 'elsewhere') t.spellings.set(spelling, (t.spellings.get(spelling) ?? 0) + n);
  tallies.set(key, t);
  return t;
}

/** Moves the counts of `from` into `into` and records where `from` went. */
function merge(tallies: Map<string, Tally>, moved: Map<string, string>, from: string, into: string): void {
  const a = tallies.get(from)!;
  const b = tallies.get(into)!;
  if (from.includes('-') && !b.speaker) {
    // Another spelling of the same full name: its votes and spellings count.
    b.person += a.person;
    b.entity += a.entity;
    b.elsewhere += a.elsewhere;
    for (const [s, n] of a.spellings) b.spellings.set(s, (b.spellings.get(s) ?? 0) + n);
  } else {
    // A first or last name alone (or any name of a speaker): its mentions count for the full name, as the kind the full
    // name has (the model labels a lone "Vivek" ORG as often as PERSON), and the full name is what is shown.
    b[kindOfTally(b)] += total(a);
  }
  b.titled ||= a.titled;
  tallies.delete(from);
  moved.set(from, into);
}

const total = (t: Tally) => t.person + t.entity;
const kindOfTally = (t: Tally): NameKind => (t.speaker || t.person >= t.entity ? 'person' : 'entity');
/** True when the model's most frequent reading of the name is a place, language, event, … rather than either kind. */
const mostlyElsewhere = (t: Tally) => !t.speaker && t.elsewhere > Math.max(t.person, t.entity);
/** The most used spelling; ties: the one with more capitals (ASR's "Mckenna" loses to "McKenna"), then the first in order. */
const shownSpelling = (t: Tally): string =>
  [...t.spellings].sort((a, b) => b[1] - a[1] || (b[0].match(/\p{Lu}/gu) ?? []).length - (a[0].match(/\p{Lu}/gu) ?? []).length || byKey(a[0], b[0]))[0]![0];

/** Full person names of one bucket (first word and length) compared in pairs, the most mentioned first. */
const MAX_COMPARED_PER_BUCKET = 100;

/** How {@link joinSpellings} joins a one-word name to a full one. */
interface JoinRules {
  /** `any`: a one-word key joins the only multi-word key (of either kind) that starts or ends with it; `none`: never. */
  owners: 'any' | 'none';
  /** Mentions a full name needs of its own to take in a one-word name that is not a person's (a person's: one). */
  minOwnerMentions: number;
}

/**
 * Joins the spellings of one name in `tallies` (in place): multi-word person keys that ASR spelled two ways into the
 * more mentioned one (a speaker's name is never joined into another), then (under `owners: 'any'`) a one-word key into
 * the only speaker whose name starts or ends with it ("Aboultaif" into "Ziad Aboultaif"), else into the only
 * multi-word key that does ("Varma" into "Amit Varma"), and the end of a speaker's name into it ("Van Popta" into
 * "Tako Van Popta"). A one-word name two full names share stays apart. Returns where every key of `tallies` went
 * (itself when it stayed), and the one-word keys two speakers' names share.
 */
function joinSpellings(tallies: Map<string, Tally>, { owners, minOwnerMentions }: JoinRules): { survivors: Map<string, string>; sharedBySpeakers: Set<string> } {
  const keys = [...tallies.keys()];
  const moved = new Map<string, string>();
  const sharedBySpeakers = new Set<string>();
  // Only names of one bucket can be one person spelled two ways (same first word, same number of words), and only the
  // most mentioned of each are compared in pairs: 8,000 names sharing a first name took 53 s compared all with all.
  const buckets = new Map<string, { key: string; rest: string }[]>();
  for (const [key, t] of [...tallies].sort((a, b) => Number(!!b[1].speaker) - Number(!!a[1].speaker) || total(b[1]) - total(a[1]) || byKey(a[0], b[0]))) {
    if (!key.includes('-') || kindOfTally(t) !== 'person') continue;
    const words = key.split('-');
    const bucket = `${words.length}:${words[0]}`;
    const list = buckets.get(bucket) ?? [];
    if (list.length < MAX_COMPARED_PER_BUCKET) list.push({ key, rest: words.slice(1).join('-') });
    buckets.set(bucket, list);
  }
  for (const full of buckets.values()) {
    for (let i = 0; i < full.length; i++) {
      for (let j = i + 1; j < full.length && tallies.has(full[i]!.key); j++) {
        // Speakers come first in a bucket: two speakers are two people, however close their names.
        if (tallies.has(full[j]!.key) && !tallies.get(full[j]!.key)!.speaker && closeSpellings(full[i]!.rest, full[j]!.rest)) merge(tallies, moved, full[j]!.key, full[i]!.key);
      }
    }
  }
  if (owners === 'any') {
    // Full names by their first and last word, so each lone word looks up its owners instead of reading every full name.
    const byEdgeWord = new Map<string, [string, Tally][]>();
    for (const entry of tallies) {
      const [k, t] = entry;
      if (!k.includes('-') || total(t) === 0 || mostlyElsewhere(t)) continue;
      const words = k.split('-');
      for (const w of new Set([words[0]!, words[words.length - 1]!])) {
        const owners = byEdgeWord.get(w) ?? [];
        owners.push(entry);
        byEdgeWord.set(w, owners);
      }
    }
    for (const key of [...tallies.keys()].filter((k) => !k.includes('-') && total(tallies.get(k)!) > 0).sort(byKey)) {
      const t = tallies.get(key)!;
      if (t.speaker) continue;
      const edge = byEdgeWord.get(key) ?? [];
      const speakers = edge.filter(([, o]) => o.speaker).map(([k]) => k);
      if (speakers.length > 1) sharedBySpeakers.add(key);
      if (speakers.length > 0) {
        if (speakers.length === 1) merge(tallies, moved, key, speakers[0]!);
        continue;
      }
      // A lone word the model took for a person joins a full person name said once; any other needs the full name said
      // `minOwnerMentions` times ("Twitter" is not "Twitter Blueroom" said once).
      const person = kindOfTally(t) === 'person';
      const found = edge.filter(([, o]) => total(o) >= minOwnerMentions || (person && kindOfTally(o) === 'person')).map(([k]) => k);
      if (found.length === 1) merge(tallies, moved, key, found[0]!);
    }
    // The end of a speaker's name said alone ("Mr. Van Popta"): speakers by their last word, each name looks up its own.
    const speakersByLast = new Map<string, string[]>();
    for (const [k, t] of tallies) {
      if (!t.speaker || !k.includes('-')) continue;
      const last = k.slice(k.lastIndexOf('-') + 1);
      const list = speakersByLast.get(last) ?? [];
      list.push(k);
      speakersByLast.set(last, list);
    }
    for (const key of [...tallies.keys()].filter((k) => k.includes('-') && !tallies.get(k)!.speaker).sort(byKey)) {
      const owners = (speakersByLast.get(key.slice(key.lastIndexOf('-') + 1)) ?? []).filter((s) => s.endsWith(`-${key}`));
      if (owners.length === 1) merge(tallies, moved, key, owners[0]!);
    }
  }
  const survivor = (key: string): string => {
    let k = key;
    while (moved.has(k)) k = moved.get(k)!;
    return k;
  };
  return { survivors: new Map(keys.map((k) => [k, survivor(k)])), sharedBySpeakers };
}

/** Names out of tallies, by kind, speakers first, then most mentioned first (ties: by key). */
function toNames(tallies: Map<string, Tally>, keep: (key: string, t: Tally) => boolean): (EpisodeName & { speaker: boolean })[] {
  return [...tallies]
    .filter(([k, t]) => keep(k, t))
    .map(([key, t]) => ({ key, name: shownSpelling(t), mentions: total(t), kind: kindOfTally(t), speaker: !!t.speaker }))
    .sort((a, b) => Number(b.speaker) - Number(a.speaker) || b.mentions - a.mentions || byKey(a.key, b.key));
}

/** What the speech itself says of the names in it ({@link readSpeech}). */
export interface SpeechEvidence {
  /** Slugs of Title-Case runs written as interface labels ("the Patch Tool", "click Gaussian Blur"), with how often. */
  labels: ReadonlyMap<string, number>;
  /** Lower-cased words, with how often each is written in lower case and with a capital. */
  lower: ReadonlyMap<string, number>;
  upper: ReadonlyMap<string, number>;
}

const UI_NOUNS: ReadonlySet<string> = new Set(INTERFACE.nouns);
const UI_VERBS: ReadonlySet<string> = new Set(INTERFACE.verbs);
const UI_SKIP: ReadonlySet<string> = new Set(INTERFACE.skip);
/** Words of a Title-Case run read as one label: longer menu names are rare. */
const MAX_LABEL_WORDS = 4;
/** Words and menu-path arrows of a clause; a run of apostrophes or letters is read once (no backtracking). */
const SPEECH_TOKEN = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|>/gu;

/**
 * Reads the episode's speech once for what tells a name from a word: the Title-Case runs it uses as interface labels
 * (before a word of `words/interface.json` such as tool, panel, menu, layer, button, dialog, window, tab; after click,
 * select, choose, go to; after a menu arrow), and how often each word is written in lower case and capitalised. Time
 * linear in the text.
 */
export function readSpeech(texts: readonly string[]): SpeechEvidence {
  const labels = new Map<string, number>();
  const lower = new Map<string, number>();
  const upper = new Map<string, number>();
  const label = (words: readonly string[]) => {
    const slug = nameSlug(words.join(' '));
    if (slug) labels.set(slug, (labels.get(slug) ?? 0) + 1);
  };
  for (const text of texts) {
    for (const clause of text.split(/[.,;:!?…()"“”[\]]+/u)) {
      const toks = [...clause.matchAll(SPEECH_TOKEN)].map((m) => m[0]);
      const lc = toks.map((w) => w.toLowerCase());
      for (const [i, w] of toks.entries()) {
        if (w === '>') continue;
        const counts = /^\p{Ll}/u.test(w) ? lower : /^\p{Lu}/u.test(w) ? upper : undefined;
        counts?.set(lc[i]!, (counts.get(lc[i]!) ?? 0) + 1);
      }
      const capital = (i: number) => i < toks.length && /^\p{Lu}/u.test(toks[i]!);
      let i = 0;
      while (i < toks.length) {
        if (!capital(i)) {
          i++;
          continue;
        }
        let end = i;
        while (capital(end)) end++;
        let start = i;
        // "Select Gaussian Blur" at a sentence's start: the verb is the run's first word.
        const leadingVerb = UI_VERBS.has(lc[start]!) && end - start > 1;
        if (leadingVerb) start++;
        const run = toks.slice(start, end);
        if (UI_NOUNS.has(lc[end] ?? '')) for (let k = Math.max(0, run.length - MAX_LABEL_WORDS); k < run.length; k++) label(run.slice(k));
        // What comes before: a verb (over "the", "on", …), a two-word verb ("go to"), or a menu arrow.
        const verbEndsAt = (j: number) => j >= 0 && (UI_VERBS.has(lc[j]!) || (j > 0 && UI_VERBS.has(`${lc[j - 1]} ${lc[j]}`)) || lc[j] === '>');
        let b = i - 1;
        while (b >= 0 && i - b <= 3 && !verbEndsAt(b) && UI_SKIP.has(lc[b]!)) b--;
        const before = verbEndsAt(b);
        if (leadingVerb || before || lc[end] === '>') for (let k = 1; k <= Math.min(run.length, MAX_LABEL_WORDS); k++) label(run.slice(0, k));
        i = end;
      }
    }
  }
  return { labels, lower, upper };
}

/** Initials of a name as an acronym spells it: "European Union" EU, "UK Research and Innovation" UKRI (words of capitals whole). */
function initials(name: string, { withSmallWords }: { withSmallWords: boolean }): string {
  return name
    .split(/[\s-]+/)
    .filter((w) => w && (withSmallWords || !/^\p{Ll}/u.test(w)))
    .map((w) => (/^\p{Lu}{2,}$/u.test(w) ? w : w[0]!))
    .join('')
    .toUpperCase();
}

/** An entity with what stands just before it in its text (a few characters): "Mr. " before "Masse", "a " before "Mac", "'" before "Kay". */
export interface NameMention extends NamedEntity {
  before?: string;
}

/** Characters before an entity read for a title, an article or an elision. */
const BEFORE_CHARS = 24;
// A form of address, an article or a possessive just before a name; an apostrophe right before it cuts a word ("'Kay").
const TITLE_AT_END =
  /(?:^|[^\p{L}])(?:mrs|mr|ms|miss|mx|dr|prof|professor|sir|dame|lord|lady|madam|madame|mister|hon|honourable|honorable|minister|senator|president|premier|justice|judge|rev|reverend)\.?\s*$/iu;
const DETERMINER_AT_END = /(?:^|[^\p{L}])(?:a|an|the|this|that|these|those|your|my|our|their|its|every|each|any)\s+$/iu;

/** The entities of a text with the characters before each ({@link NameMention}), when the recogniser gave offsets. */
export function withBefore(text: string, entities: readonly NamedEntity[]): NameMention[] {
  return entities.map((e) => {
    const start = (e as { start?: unknown }).start;
    return typeof start === 'number' && start >= 0 && start <= text.length ? { ...e, before: text.slice(Math.max(0, start - BEFORE_CHARS), start) } : e;
  });
}

/** Options of {@link episodeNames} beyond the thresholds. */
export interface EpisodeNameOptions extends Partial<NameThresholds> {
  /** The channel's title: names made only of its words are the show's own name. */
  channelName?: string | undefined;
  /** The speaker label of each turn (segment), as the transcript gives them; labels that name someone are people. */
  speakers?: readonly (string | null | undefined)[] | undefined;
  /** What the speech says of names ({@link readSpeech}): interface labels and words written in lower case. */
  speech?: SpeechEvidence | undefined;
}

/** Speakers an episode keeps at most, by turns: a committee has about 60, and a label list is the transcript's to make. */
const MAX_SPEAKERS = 200;

/**
 * The names one episode keeps, from its speakers (labels that name someone: {@link speakerName}), the entities found in
 * its speech (`spoken`, one list per text) and in its title and description (`written`, counted the same: a name said
 * once and written once in the title is mentioned twice).
 *
 * Speakers are the episode's people first, all of them, whatever `maxPerKind`; a surname or the end of a name said in
 * speech counts for the only speaker it names ("Aboultaif" → Ziad Aboultaif). Spellings are merged (case, possessives,
 * titles, "the", a first or last name alone joined to the only full name of the episode with that word, ASR's variants
 * of a surname, an acronym into its long form, a plural into its singular); the kind is the one most mentions were
 * given (ties: person), and a name the model more often calls a place, language, nationality, event, law or work is
 * left out, as are places a speaker label names (ridings).
 *
 * A name found by the model alone is a person only in a person's shape: its first word a given name (the shipped list
 * or a speaker's), or said after a form of address; and none of its other words written more often in lower case.
 * Interface labels ("Gaussian Blur", "Patch Tool") are neither people nor entities; an entity whose every word is
 * written more often in lower case is a common noun ("Layers", "Select"). Beyond the speakers, a name is kept with
 * `minMentions` mentions; a one-word person name that no full name took in needs `minSingleMentions`, is not a word
 * like "Bill" and is no part of two speakers' names; names made only of the channel's own name's words ("Unseen" in
 * "The Seen and the Unseen") are left out. Pure and deterministic.
 */
export function episodeNames(
  spoken: readonly (readonly NameMention[])[],
  written: readonly (readonly NameMention[])[] = [],
  { channelName, speakers = [], speech, ...thresholds }: EpisodeNameOptions = {},
): EpisodeNames {
  const { minMentions, minSingleMentions, maxPerKind } = { ...DEFAULT_NAME_THRESHOLDS, ...thresholds };
  const channelWords = new Set(
    nameSlug(channelName ?? '')
      .split('-')
      .filter(Boolean),
  );
  const tallies = new Map<string, Tally>();
  // First words of the episode's full person names: a given name the model knows here.
  const givenNames = new Set<string>();
  // A name is mentioned many times: cleaned once per spelling and kind.
  const cleaned = new Map<string, string | null>();
  const clean = (text: string, kind: NameKind) => {
    const key = `${kind}\0${text}`;
    if (!cleaned.has(key)) cleaned.set(key, cleanName(text, kind));
    return cleaned.get(key)!;
  };
  const read = (lists: readonly (readonly NamedEntity[])[]) => {
    for (const list of lists) {
      for (const entity of list) {
        const kind = kindOf(entity.label) ?? (ELSEWHERE_LABELS.has(entity.label) ? 'elsewhere' : null);
        const name = kind && clean(entity.text, kind === 'person' ? 'person' : 'entity');
        if (!kind || !name) continue;
        const key = nameSlug(name);
        const before = (entity as NameMention).before ?? '';
        if (/['’]$/u.test(before)) continue;
        const t = add(tallies, key, KNOWN_ORGS.has(key) ? 'entity' : kind, name);
        if (kind === 'person') {
          const text = entity.text.trimStart();
          if (TITLE_BEFORE.test(text) || GLUED_TITLE.test(text) || TITLE_AT_END.test(before)) t.titled = true;
          if (DETERMINER_AT_END.test(before)) t.determined = (t.determined ?? 0) + 1;
          if (key.includes('-')) givenNames.add(key.split('-')[0]!);
        }
      }
    }
  };
  read(spoken);
  read(written);
  // Speakers: each distinct label read once, the most heard kept; their riding is a place, not an organisation.
  const turns = new Map<string, number>();
  for (const label of speakers) if (label) turns.set(label, (turns.get(label) ?? 0) + 1);
  const heard = new Map<string, { name: string; turns: number }>();
  const places = new Set<string>();
  // A hearing names its chair once ("The Chair (Hon. Anthony Rota …)") and then writes "The Chair": those turns are
  // that person's when the episode names one person in that role.
  const bareRoles = new Map<string, number>();
  const inRole = new Map<string, Set<string>>();
  for (const [label, n] of turns) {
    const found = speakerName(label);
    if (!found || !found.key) {
      const role = chairOf(label);
      if (role) bareRoles.set(role, (bareRoles.get(role) ?? 0) + n);
      continue;
    }
    const h = heard.get(found.key) ?? { name: found.name, turns: 0 };
    h.turns += n;
    heard.set(found.key, h);
    for (const place of found.places) places.add(nameSlug(place));
    if (found.role) inRole.set(found.role, (inRole.get(found.role) ?? new Set()).add(found.key));
  }
  for (const [role, n] of bareRoles) {
    const held = [...(inRole.get(role) ?? [])];
    if (held.length === 1) heard.get(held[0]!)!.turns += n;
  }
  const speakerFirstNames = new Set<string>();
  for (const [key, h] of [...heard].sort((a, b) => b[1].turns - a[1].turns || byKey(a[0], b[0])).slice(0, MAX_SPEAKERS)) {
    add(tallies, key, 'person', h.name, h.turns).speaker = true;
    speakerFirstNames.add(key.split('-')[0]!);
  }
  const { sharedBySpeakers } = joinSpellings(tallies, { owners: 'any', minOwnerMentions: 2 });
  const given = (word: string) => isGivenName(word) || speakerFirstNames.has(nameSlug(word));
  // The small model calls many unfamiliar full names ORG ("Chinmay Tumbe"); a two- or three-word name made of
  // capitalised words that starts with a given name the episode also uses for a person is a person.
  for (const [key, t] of tallies) {
    const words = key.split('-');
    if (
      kindOfTally(t) === 'entity' &&
      (words.length === 2 || words.length === 3) &&
      givenNames.has(words[0]!) &&
      shownSpelling(t)
        .split(' ')
        .every((w) => /^\p{Lu}\p{Ll}/u.test(w))
    ) {
      t.person += t.entity;
      t.entity = 0;
    }
  }
  joinForms(tallies);
  const lowerMostly = (word: string) => {
    const w = word.toLowerCase();
    const lower = speech?.lower.get(w) ?? 0;
    return lower >= 2 && lower > (speech?.upper.get(w) ?? 0);
  };
  const isLabel = (key: string, t: Tally) => {
    const words = shownSpelling(t).split(' ');
    return (words.length > 1 && UI_NOUNS.has(words[words.length - 1]!.toLowerCase())) || 2 * (speech?.labels.get(key) ?? 0) >= total(t);
  };
  const personShaped = (t: Tally) => {
    const words = shownSpelling(t).split(' ');
    if (!t.titled && 2 * (t.determined ?? 0) > total(t)) return false;
    if (!t.titled && !given(words[0]!)) return false;
    return t.titled || !words.slice(1).some((w) => !NAME_PARTICLES.has(w.toLowerCase()) && lowerMostly(w));
  };
  const keep = (key: string, t: Tally) => {
    if (t.speaker) return true;
    if (total(t) < minMentions || mostlyElsewhere(t) || key.split('-').every((w) => channelWords.has(w))) return false;
    if (places.has(key) || isLabel(key, t)) return false;
    // One word more often written in lower case is a common noun ("Layers", "Select"); a longer name stays.
    // A longer one whose every word (or its singular) is written more often in lower case is a common phrase the
    // model capitalised once ("Smart Objects" in a video that says "smart object" six times).
    if (kindOfTally(t) === 'entity') {
      const words = shownSpelling(t).split(' ');
      return words.length > 1 ? !words.every((w) => lowerMostly(w) || lowerMostly(w.replace(/s$/i, ''))) : !lowerMostly(words[0]!);
    }
    if (!personShaped(t)) return false;
    if (key.includes('-')) return true;
    return total(t) >= minSingleMentions && !AMBIGUOUS_FIRST_NAMES.has(key) && !sharedBySpeakers.has(key);
  };
  const names = toNames(tallies, keep);
  const people = names.filter((n) => n.kind === 'person');
  const strip = ({ key, name, mentions, kind }: EpisodeName): EpisodeName => ({ key, name, mentions, kind });
  return {
    // Every speaker, then as many others as the cap allows.
    people: [...people.filter((n) => n.speaker), ...people.filter((n) => !n.speaker).slice(0, maxPerKind)].map(strip),
    entities: names
      .filter((n) => n.kind === 'entity')
      .slice(0, maxPerKind)
      .map(strip),
  };
}

/**
 * Joins an entity's other forms in the episode (in place): an acronym into the only long form whose initials it is
 * ("EU" into "European Union", "UKRI" into "UK Research and Innovation"), and a plural into its singular ("iPods" into
 * "iPod"), each into the more mentioned when both stand alone. One lookup per name: linear.
 */
function joinForms(tallies: Map<string, Tally>): void {
  const moved = new Map<string, string>();
  const longForms = new Map<string, string[]>();
  for (const [key, t] of tallies) {
    if (!key.includes('-') || kindOfTally(t) !== 'entity' || total(t) === 0) continue;
    const name = shownSpelling(t);
    for (const a of new Set([initials(name, { withSmallWords: false }), initials(name, { withSmallWords: true })])) {
      // Two long forms make an acronym ambiguous: no third is kept.
      const list = longForms.get(a) ?? [];
      if (a.length >= 2 && list.length < 2) list.push(key);
      longForms.set(a, list);
    }
  }
  for (const key of [...tallies.keys()].sort(byKey)) {
    const t = tallies.get(key);
    if (!t || t.speaker || total(t) === 0) continue;
    const name = shownSpelling(t);
    if (/^\p{Lu}{2,8}$/u.test(name)) {
      const owners = (longForms.get(name) ?? []).filter((k) => k !== key && tallies.has(k));
      if (owners.length === 1) {
        merge(tallies, moved, key, owners[0]!);
        continue;
      }
    }
    const singular = key.endsWith('s') ? tallies.get(key.slice(0, -1)) : undefined;
    if (singular && !singular.speaker && kindOfTally(t) === 'entity' && kindOfTally(singular) === 'entity') {
      const [from, into] = total(t) > total(singular) ? [key.slice(0, -1), key] : [key, key.slice(0, -1)];
      // A plural shown as the singular's spelling would be wrong: the more mentioned form's spellings are kept.
      const a = tallies.get(from)!;
      const b = tallies.get(into)!;
      b.entity += total(a);
      tallies.delete(from);
      moved.set(from, into);
    }
  }
}

/**
 * Consecutive segment texts joined into passages of at most `maxSegments` segments and `maxChars` characters: the
 * model sees a name with the words around it even where a segment boundary cuts a sentence, and gets fewer, longer
 * texts (faster than one per segment).
 */
export function passages(texts: readonly string[], { maxSegments = 20, maxChars = 4000 }: { maxSegments?: number; maxChars?: number } = {}): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let chars = 0;
  for (const raw of texts) {
    const text = raw.trim();
    if (!text) continue;
    if (current.length > 0 && (current.length >= maxSegments || chars + text.length + 1 > maxChars)) {
      out.push(current.join(' '));
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length + 1;
  }
  if (current.length > 0) out.push(current.join(' '));
  return out;
}

export interface PeopleInput {
  /** The speech; a segment's `speakerLabel`, when it names someone, makes them one of the episode's people. */
  segments: readonly (Pick<EnrichSegment, 'text'> & Partial<Pick<EnrichSegment, 'speakerLabel'>>)[];
  title?: string | null | undefined;
  description?: string | null | undefined;
  /** BCP 47 of the speech. */
  language: string;
  /** The channel's title: names made only of its words are the show's own name, not a person or company. */
  channelName?: string | null | undefined;
}

export interface PeopleStageOptions {
  /** Named-entity recognition; absent: people from speaker labels only, and no entities. */
  recognise?: RecogniseEntities | undefined;
  thresholds?: Partial<NameThresholds>;
  /** Segments per passage sent to the model. Default 20. */
  segmentsPerPassage?: number;
  log?: Logger | undefined;
}

/** The people and entities of one episode. */
export type FindNames = (input: PeopleInput, signal?: AbortSignal) => Promise<EpisodeNames>;

/**
 * The people/entities stage: the episode's speakers (labels that name someone), and its speech in passages, its title
 * and description through `recognise`, read by {@link episodeNames} with what the speech says of each name (the
 * characters before it, interface labels, words written in lower case). A language the service has no model for gives
 * no names but the speakers, and a `skipped` reason, said once in the log per language (later episodes in it are not
 * sent at all); so does a service without the route (404), for every language. Other failures (unreachable, refused,
 * a bad answer) are thrown: the caller decides.
 */
export function createPeopleStage({ recognise, thresholds = {}, segmentsPerPassage = 20, log }: PeopleStageOptions = {}): FindNames {
  const unsupported = new Map<string, string>();
  let notServed: string | undefined;
  return async ({ segments, title, description, language, channelName }, signal) => {
    const lang = language.toLowerCase().split(/[-_]/)[0] || 'en';
    const spoken = passages(
      segments.map((s) => s.text),
      { maxSegments: segmentsPerPassage },
    );
    const written = [title ?? '', description ?? ''].map((t) => t.trim()).filter(Boolean);
    const texts = [...spoken, ...written];
    const names = (lists: readonly (readonly NamedEntity[])[], skipped?: string): EpisodeNames => {
      const mentions = lists.map((list, i) => withBefore(texts[i] ?? '', list));
      const found = episodeNames(mentions.slice(0, spoken.length), mentions.slice(spoken.length), {
        ...thresholds,
        channelName: channelName ?? undefined,
        speakers: segments.map((s) => s.speakerLabel),
        speech: readSpeech(spoken),
      });
      return skipped ? { ...found, skipped } : found;
    };
    const known = notServed ?? unsupported.get(lang);
    if (known) return names([], known);
    if (!recognise) return names([]);
    let lists: NamedEntity[][];
    try {
      lists = await recognise(texts, { language: lang, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (!(error instanceof NerError)) throw error;
      if (error.code === 'ner_unsupported_language') {
        const reason = `no named-entity model for language ${lang}: episodes in it get no people but their speakers, and no entities`;
        unsupported.set(lang, reason);
        log?.info({ language: lang, detail: error.message }, reason);
        return names([], reason);
      }
      if (error.code === 'ner_not_served') {
        // NER_URL defaults to TRANSCRIBE_URL, which may be a hosted service without /v1/entities: no names, not a failure.
        notServed = 'the named-entity service answers no /v1/entities (set NER_URL to one that does): no people but the speakers, and no entities';
        log?.warn({ detail: error.message }, notServed);
        return names([], notServed);
      }
      throw error;
    }
    return names(lists);
  };
}

/** A facet name the library already has (the creator's `people.json` / `entities.json`), matched by its spelling. */
export interface KnownName {
  id: string;
  name: string;
}

/** What the channel-level step gives: ids per episode and the generated facet names to write. */
export interface ChannelNames {
  personIds: Map<string, string[]>;
  entityIds: Map<string, string[]>;
  people: GeneratedFacet[];
  entities: GeneratedFacet[];
}

/** The generated id of a name key. */
export const generatedId = (kind: NameKind, key: string): string => `${kind === 'person' ? 'pe' : 'en'}_g-${key}`;

/**
 * Stable ids across a channel: the episodes' names merged by key (and a one-word name into the channel's only full
 * name with that first or last word, and ASR's spellings of one person), the kind decided by all the channel's mentions,
 * the name shown the most mentioned spelling. A name the library already knows (`known`, the creator's facets, by slug
 * or ASR spelling) keeps its id and is not written again. Episodes are read in id order; the result does not depend
 * on input order. Ids per episode: most mentioned in that episode first (ties: by id).
 */
export function assignNames(
  episodes: ReadonlyArray<{ episodeId: string; names: EpisodeNames }>,
  { knownPeople = [], knownEntities = [] }: { knownPeople?: readonly KnownName[]; knownEntities?: readonly KnownName[] } = {},
): ChannelNames {
  const sorted = [...episodes].sort((a, b) => byKey(a.episodeId, b.episodeId));
  const tallies = new Map<string, Tally>();
  for (const e of sorted) for (const n of [...e.names.people, ...e.names.entities]) add(tallies, n.key, n.kind, n.name, n.mentions);
  // First names are shared by different people across episodes: only full names and their ASR spellings join here.
  const { survivors: survivorOf } = joinSpellings(tallies, { owners: 'none', minOwnerMentions: 0 });
  const known = (kind: NameKind) => (kind === 'person' ? knownPeople : knownEntities).map((k) => ({ ...k, key: nameSlug(k.name) }));
  const idOf = new Map<string, string>();
  const people: GeneratedFacet[] = [];
  const entities: GeneratedFacet[] = [];
  for (const [key, t] of [...tallies].sort((a, b) => byKey(a[0], b[0]))) {
    const kind = kindOfTally(t);
    const match = known(kind).find((k) => k.key === key) ?? known(kind).find((k) => kind === 'person' && sameSpokenName(key, k.key));
    if (match) {
      idOf.set(key, match.id);
      continue;
    }
    const id = generatedId(kind, key);
    idOf.set(key, id);
    (kind === 'person' ? people : entities).push({ id, name: shownSpelling(t), generated: true });
  }
  const personIds = new Map<string, string[]>();
  const entityIds = new Map<string, string[]>();
  for (const e of sorted) {
    const counts = new Map<string, { id: string; kind: NameKind; mentions: number }>();
    for (const n of [...e.names.people, ...e.names.entities]) {
      const survivor = survivorOf.get(n.key);
      if (!survivor) continue;
      const id = idOf.get(survivor)!;
      const c = counts.get(id) ?? { id, kind: kindOfTally(tallies.get(survivor)!), mentions: 0 };
      c.mentions += n.mentions;
      counts.set(id, c);
    }
    const ranked = [...counts.values()].sort((a, b) => b.mentions - a.mentions || byKey(a.id, b.id));
    personIds.set(
      e.episodeId,
      ranked.filter((c) => c.kind === 'person').map((c) => c.id),
    );
    entityIds.set(
      e.episodeId,
      ranked.filter((c) => c.kind === 'entity').map((c) => c.id),
    );
  }
  const byId = (a: GeneratedFacet, b: GeneratedFacet) => byKey(a.id, b.id);
  return { personIds, entityIds, people: people.sort(byId), entities: entities.sort(byId) };
}
