// Topics: an episode's keyphrases, and across a channel shared topic ids (`tp_g-<slug>`) so related episodes meet on them.
import { facetSlug } from '../../core/contract/facet-ids.js';
import { candidatePhrases, overlapping, rankCandidates, type DocumentFrequencies } from './phrases.js';
import { capitalise } from './text.js';
import type { GeneratedFacet } from './types.js';

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
 * repeating a word of a better one.
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
 * episodes have counts for less (it tells nothing apart). Keys are the normalised phrases, so "Remote Controls" in one
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
      if (picked.length >= min && df.get(k.key)! < 2) continue;
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
