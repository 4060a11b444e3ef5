// People and companies/products of an episode from named entities (spelling merged, ASR junk dropped, rare names left out), and their ids across a channel (`pe_g-<slug>`, `en_g-<slug>`).
import { facetSlug, losesOtherScripts } from '../../core/contract/facet-ids.js';
import type { Logger } from '../../core/ground/logger.js';
import { NerError } from './ner.js';
import type { EnrichSegment, GeneratedFacet, NamedEntity, RecogniseEntities } from './types.js';

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
    'covid covid-19 coronavirus'
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
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function add(tallies: Map<string, Tally>, key: string, kind: NameKind | 'elsewhere', spelling: string, n = 1): void {
  const t = tallies.get(key) ?? { person: 0, entity: 0, elsewhere: 0, spellings: new Map<string, number>() };
  t[kind] += n;
  if (kind !== 'elsewhere') t.spellings.set(spelling, (t.spellings.get(spelling) ?? 0) + n);
  tallies.set(key, t);
}

/** Moves the counts of `from` into `into` and records where `from` went. */
function merge(tallies: Map<string, Tally>, moved: Map<string, string>, from: string, into: string): void {
  const a = tallies.get(from)!;
  const b = tallies.get(into)!;
  if (from.includes('-')) {
    // Another spelling of the same full name: its votes and spellings count.
    b.person += a.person;
    b.entity += a.entity;
    b.elsewhere += a.elsewhere;
    for (const [s, n] of a.spellings) b.spellings.set(s, (b.spellings.get(s) ?? 0) + n);
  } else {
    // A first or last name alone: its mentions count for the full name, as the kind the full name has (the model
    // labels a lone "Vivek" ORG as often as PERSON), and the full name is what is shown.
    b[kindOfTally(b)] += total(a);
  }
  tallies.delete(from);
  moved.set(from, into);
}

const total = (t: Tally) => t.person + t.entity;
const kindOfTally = (t: Tally): NameKind => (t.person >= t.entity ? 'person' : 'entity');
/** True when the model's most frequent reading of the name is a place, language, event, … rather than either kind. */
const mostlyElsewhere = (t: Tally) => t.elsewhere > Math.max(t.person, t.entity);
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
 * more mentioned one, then (under `owners: 'any'`) a one-word key into the only multi-word key that starts or ends
 * with that word ("Varma" into "Amit Varma"). A one-word name two full names share stays apart. Returns where every
 * key of `tallies` went (itself when it stayed).
 */
function joinSpellings(tallies: Map<string, Tally>, { owners, minOwnerMentions }: JoinRules): Map<string, string> {
  const keys = [...tallies.keys()];
  const moved = new Map<string, string>();
  // Only names of one bucket can be one person spelled two ways (same first word, same number of words), and only the
  // most mentioned of each are compared in pairs: 8,000 names sharing a first name took 53 s compared all with all.
  const buckets = new Map<string, { key: string; rest: string }[]>();
  for (const [key, t] of [...tallies].sort((a, b) => total(b[1]) - total(a[1]) || byKey(a[0], b[0]))) {
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
        if (tallies.has(full[j]!.key) && closeSpellings(full[i]!.rest, full[j]!.rest)) merge(tallies, moved, full[j]!.key, full[i]!.key);
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
      // A lone word the model took for a person joins a full person name said once; any other needs the full name said
      // `minOwnerMentions` times ("Twitter" is not "Twitter Blueroom" said once).
      const person = kindOfTally(tallies.get(key)!) === 'person';
      const found = (byEdgeWord.get(key) ?? []).filter(([, t]) => total(t) >= minOwnerMentions || (person && kindOfTally(t) === 'person')).map(([k]) => k);
      if (found.length === 1) merge(tallies, moved, key, found[0]!);
    }
  }
  const survivor = (key: string): string => {
    let k = key;
    while (moved.has(k)) k = moved.get(k)!;
    return k;
  };
  return new Map(keys.map((k) => [k, survivor(k)]));
}

/** Names out of tallies, by kind, most mentioned first (ties: by key). */
function toNames(tallies: Map<string, Tally>, keep: (key: string, t: Tally) => boolean): EpisodeName[] {
  return [...tallies]
    .filter(([k, t]) => keep(k, t))
    .map(([key, t]) => ({ key, name: shownSpelling(t), mentions: total(t), kind: kindOfTally(t) }))
    .sort((a, b) => b.mentions - a.mentions || byKey(a.key, b.key));
}

/**
 * The names one episode keeps, from the entities found in its speech (`spoken`, one list per text) and in its title and
 * description (`written`, counted the same: a name said once and written once in the title is mentioned twice).
 * Spellings are merged (case, possessives, titles, "the", a first or last name alone joined to the only full name of
 * the episode with that word, ASR's variants of a surname); the kind is the one most mentions were given (ties: person),
 * and a name the model more often calls a place, language, nationality, event, law or work is left out.
 * A name is kept with `minMentions` mentions; a one-word person name that no full name took in needs
 * `minSingleMentions` and is not a word like "Bill"; names made only of the channel's own name's words ("Unseen" in
 * "The Seen and the Unseen") are left out. Pure and deterministic.
 */
export function episodeNames(
  spoken: readonly (readonly NamedEntity[])[],
  written: readonly (readonly NamedEntity[])[] = [],
  { channelName, ...thresholds }: Partial<NameThresholds> & { channelName?: string | undefined } = {},
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
        add(tallies, key, KNOWN_ORGS.has(key) ? 'entity' : kind, name);
        if (kind === 'person' && key.includes('-')) givenNames.add(key.split('-')[0]!);
      }
    }
  };
  read(spoken);
  read(written);
  joinSpellings(tallies, { owners: 'any', minOwnerMentions: 2 });
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
  const keep = (key: string, t: Tally) => {
    if (total(t) < minMentions || mostlyElsewhere(t) || key.split('-').every((w) => channelWords.has(w))) return false;
    if (key.includes('-') || kindOfTally(t) === 'entity') return true;
    return total(t) >= minSingleMentions && !AMBIGUOUS_FIRST_NAMES.has(key);
  };
  const names = toNames(tallies, keep);
  return {
    people: names.filter((n) => n.kind === 'person').slice(0, maxPerKind),
    entities: names.filter((n) => n.kind === 'entity').slice(0, maxPerKind),
  };
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
  segments: readonly Pick<EnrichSegment, 'text'>[];
  title?: string | null | undefined;
  description?: string | null | undefined;
  /** BCP 47 of the speech. */
  language: string;
  /** The channel's title: names made only of its words are the show's own name, not a person or company. */
  channelName?: string | null | undefined;
}

export interface PeopleStageOptions {
  recognise: RecogniseEntities;
  thresholds?: Partial<NameThresholds>;
  /** Segments per passage sent to the model. Default 20. */
  segmentsPerPassage?: number;
  log?: Logger | undefined;
}

/** The people and entities of one episode. */
export type FindNames = (input: PeopleInput, signal?: AbortSignal) => Promise<EpisodeNames>;

/**
 * The people/entities stage: the episode's speech in passages, and its title and description, through `recognise`,
 * then {@link episodeNames}. A language the service has no model for gives no names and a `skipped` reason, said once
 * in the log per language (later episodes in it are not sent at all); so does a service without the route (404), for
 * every language. Other failures (unreachable, refused, a bad answer) are thrown: the caller decides.
 */
export function createPeopleStage({ recognise, thresholds = {}, segmentsPerPassage = 20, log }: PeopleStageOptions): FindNames {
  const unsupported = new Map<string, string>();
  let notServed: string | undefined;
  return async ({ segments, title, description, language, channelName }, signal) => {
    const lang = language.toLowerCase().split(/[-_]/)[0] || 'en';
    const known = notServed ?? unsupported.get(lang);
    if (known) return { people: [], entities: [], skipped: known };
    const spoken = passages(
      segments.map((s) => s.text),
      { maxSegments: segmentsPerPassage },
    );
    const written = [title ?? '', description ?? ''].map((t) => t.trim()).filter(Boolean);
    let lists: NamedEntity[][];
    try {
      lists = await recognise([...spoken, ...written], { language: lang, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (!(error instanceof NerError)) throw error;
      if (error.code === 'ner_unsupported_language') {
        const reason = `no named-entity model for language ${lang}: episodes in it get no people or entities`;
        unsupported.set(lang, reason);
        log?.info({ language: lang, detail: error.message }, reason);
        return { people: [], entities: [], skipped: reason };
      }
      if (error.code === 'ner_not_served') {
        // NER_URL defaults to TRANSCRIBE_URL, which may be a hosted service without /v1/entities: no names, not a failure.
        notServed = 'the named-entity service answers no /v1/entities (set NER_URL to one that does): no people or entities';
        log?.warn({ detail: error.message }, notServed);
        return { people: [], entities: [], skipped: notServed };
      }
      throw error;
    }
    return episodeNames(lists.slice(0, spoken.length), lists.slice(spoken.length), { ...thresholds, channelName: channelName ?? undefined });
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
  const survivorOf = joinSpellings(tallies, { owners: 'none', minOwnerMentions: 0 });
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
