// Topics: an episode's keyphrases, and across a channel shared topic ids (`tp_g-<slug>`) so related episodes meet on them.
import { facetSlug } from '../../core/contract/facet-ids.js';
import { candidatePhrases, overlapping, rankCandidates, type DocumentFrequencies } from './phrases.js';
import { capitalise } from './text.js';
import type { GeneratedFacet } from './types.js';
import INTERFACE from './words/interface.json' with { type: 'json' };
import WORDS from './words/topic-words.json' with { type: 'json' };

const ROLES: ReadonlySet<string> = new Set(WORDS.roles);
const NUMBERS: ReadonlySet<string> = new Set(WORDS.numbers);
const VERBS: ReadonlySet<string> = new Set(WORDS.verbs);
/** Words no topic is made of (verbs aside: "Design process" is one): roles, numbers, adverbs, generic words, directions, colours. */
const NOT_SUBJECT: ReadonlySet<string> = new Set([...WORDS.roles, ...WORDS.numbers, ...WORDS.adverbs, ...WORDS.generic, ...WORDS.directions, ...WORDS.colours]);
/** Verbs of an instruction ("Click Save", "Choose File", "Double click"): a phrase they begin or end is a step, not a topic. */
const INSTRUCTION_VERBS: ReadonlySet<string> = new Set(INTERFACE.verbs.filter((v) => !v.includes(' ')));

/** A word of a list, as said, stemmed, or inflected with -ing/-ed ("typing" type, "saving" save, "stopped" stop). */
function listed(list: ReadonlySet<string>, word: string, stemmed: string): boolean {
  if (list.has(word) || list.has(stemmed)) return true;
  const base = /^(.{2,}?)(?:ing|ed)$/.exec(word)?.[1];
  return base !== undefined && (list.has(base) || list.has(`${base}e`) || (/(.)\1$/.test(base) && list.has(base.slice(0, -1))));
}

/**
 * True when a candidate says nothing about the subject, by the word lists of `words/topic-words.json`: a single verb,
 * adverb, generic word, role, direction or colour ("Come", "Click", "Ahead", "Black"); a phrase of such words only, at
 * least one of them no verb or a verb inflected ("Prime Minister", "Honourable member", "Come back", "Avoid saving"); a number or date
 * in it ("Thirty hours", "July fifteenth", "Channel twenty"); a role at its end ("Cabinet Secretary", "health
 * minister"); or an instruction verb at either end ("Click Save", "Double click"). Words ending in -ly are adverbs.
 */
export function saysNothing(surface: string, key: string): boolean {
  const said = surface.toLowerCase().split(/\s+/).filter(Boolean);
  if (said.length === 0) return true;
  const stems = key.split(' ');
  const is = (list: ReadonlySet<string>, i: number) => listed(list, said[i]!, stems[i] ?? said[i]!);
  const adverb = (i: number) => said[i]!.length >= 5 && said[i]!.endsWith('ly');
  const notSubject = (i: number) => is(NOT_SUBJECT, i) || adverb(i);
  const verb = (i: number) => is(VERBS, i) || is(INSTRUCTION_VERBS, i);
  const at = said.map((_, i) => i);
  if (at.some((i) => is(NUMBERS, i)) || is(ROLES, said.length - 1)) return true;
  if (is(INSTRUCTION_VERBS, 0) || is(INSTRUCTION_VERBS, said.length - 1)) return true;
  // Verbs alone make a topic only uninflected ("Design process"), not as a step said ("Avoid saving").
  const inflected = (i: number) => /(?:ing|ed)$/.test(said[i]!) && verb(i);
  return at.every((i) => notSubject(i) || verb(i)) && (said.length === 1 || at.some((i) => notSubject(i) || inflected(i)));
}

/** A single word in more than this share of a channel's transcripts tells no episode apart ("come", "click", "photo" on a tutorial channel); a quarter, not a half: at a half, "command", "button" and "content" were still topics. */
const COMMON_WORD_SHARE = 0.25;
/** Episodes a channel needs before its statistics call a word common. */
const MIN_EPISODES_FOR_COMMON = 4;

/** A keyphrase of an episode: its key (stemmed, lower-cased words), the form shown, and its salience there. */
export interface Keyphrase {
  key: string;
  phrase: string;
  score: number;
}

/** Candidate keyphrases an episode keeps for the channel-level choice. */
export const KEYPHRASE_CANDIDATES = 20;

/**
 * The episode's keyphrase candidates, best first: statistical salience over its whole transcript (with the channel's
 * document frequencies when given), phrases of two or three words before single words of the same weight, none
 * repeating a word of a better one. Candidates that say nothing about the subject ({@link saysNothing}) are left out,
 * and so is a single word more than a quarter of the channel's episodes say (with the channel's statistics, four episodes or
 * more): it is no more this episode's subject than any other's.
 */
export function episodeKeyphrases(
  text: string,
  { language, freq, limit = KEYPHRASE_CANDIDATES }: { language?: string; freq?: DocumentFrequencies; limit?: number } = {},
): Keyphrase[] {
  const english = (language ?? 'en').toLowerCase().startsWith('en');
  const out: Keyphrase[] = [];
  const ranked = rankCandidates(candidatePhrases(text, language), freq)
    // A single word is a weaker topic than a phrase (it is often a verb or an adjective: "try", "amazing"); English
    // words shaped like one (-ly, -ed, -ing, -able) are no topic at all.
    .filter((c) => c.words > 1 || !english || !/(ly|ed|ing|able|ible|ful|ous)$/.test(c.key))
    .filter((c) => !english || !saysNothing(c.surface, c.key))
    .filter((c) => c.words > 1 || !freq || freq.n < MIN_EPISODES_FOR_COMMON || (freq.df.get(c.key) ?? 0) <= COMMON_WORD_SHARE * freq.n)
    .map((c, i) => ({ c, i, score: c.words > 1 ? c.score : 0.6 * c.score }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  for (const { c, score } of ranked) {
    if (out.length >= limit) break;
    if (c.surface.length > 40 || out.some((k) => overlapping(k.key, c.key))) continue;
    out.push({ key: c.key, phrase: c.surface, score });
  }
  return out;
}

/**
 * Slug of a key: its ASCII letters and digits, words joined by `-`, at most 60 characters, and a hash of the whole key
 * when letters of another script were dropped (decision 33: `東京 タワー` and `вакцина ложь` are two topics).
 */
export function topicSlug(key: string): string {
  const ascii = key
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return facetSlug(ascii, key);
}

/** The topic id of a keyphrase key. */
export function topicId(key: string): string {
  return `tp_g-${topicSlug(key)}`;
}

/** What the channel-level choice gives: topic ids per episode and the facet names to write. */
export interface ChannelTopics {
  topicIds: Map<string, string[]>;
  facets: GeneratedFacet[];
}

/**
 * Chooses 3 to 8 topics per episode among its keyphrases so that episodes share them: a keyphrase that other episodes of
 * the channel also have counts for more (that is what `/related` needs), one that more than half of the channel's
 * episodes have counts for less (it tells nothing apart), and beyond the minimum it is not taken at all: a topic
 * beyond the first three must be shared and specific. Keys are the normalised phrases, so "Remote Controls" in one
 * episode and "remote control" in another are one topic; its name is the most frequent form (ties: alphabetical).
 * Episodes are taken in id order; the result does not depend on input order.
 */
export function assignTopics(
  episodes: ReadonlyArray<{ episodeId: string; keyphrases: readonly Keyphrase[] }>,
  { min = 3, max = 8 }: { min?: number; max?: number } = {},
): ChannelTopics {
  const sorted = [...episodes].sort((a, b) => (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0));
  const df = new Map<string, number>();
  const forms = new Map<string, Map<string, number>>();
  for (const e of sorted) {
    for (const k of new Map(e.keyphrases.map((x) => [x.key, x])).values()) {
      df.set(k.key, (df.get(k.key) ?? 0) + 1);
      const f = forms.get(k.key) ?? new Map<string, number>();
      f.set(k.phrase, (f.get(k.phrase) ?? 0) + 1);
      forms.set(k.key, f);
    }
  }
  const n = sorted.length;
  const topicIds = new Map<string, string[]>();
  const used = new Set<string>();
  for (const e of sorted) {
    const best = e.keyphrases.length > 0 ? Math.max(...e.keyphrases.map((k) => k.score)) : 1;
    const ranked = e.keyphrases
      .map((k, i) => {
        const shared = df.get(k.key)! - 1;
        const common = n >= 4 && df.get(k.key)! > n / 2;
        return { k, i, value: (k.score / best) * (1 + Math.log1p(shared)) * (common ? 0.3 : 1) };
      })
      .sort((a, b) => b.value - a.value || a.i - b.i);
    const picked: string[] = [];
    for (const { k } of ranked) {
      if (picked.length >= max) break;
      // Beyond the minimum, only phrases another episode shares: a topic of one episode relates nothing.
      if (picked.length >= min && (df.get(k.key)! < 2 || (n >= 4 && df.get(k.key)! > n / 2))) continue;
      const id = topicId(k.key);
      if (!picked.includes(id)) picked.push(id);
      used.add(k.key);
    }
    topicIds.set(e.episodeId, picked);
  }
  const facets: GeneratedFacet[] = [...used]
    .map((key) => {
      const name = [...forms.get(key)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      return { id: topicId(key), name: capitalise(name), generated: true as const };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Two keys with one slug ("data-base" and "database") are one facet.
  const unique = facets.filter((f, i) => i === 0 || facets[i - 1]!.id !== f.id);
  return { topicIds, facets: unique };
}
