// How `/related` fares on a library's topics: the share of episodes it answers for, and how often the top related
// episode (most shared topics; ties: newest first, then id) is in the same collection (an AMI design team, an ICSI
// series, a committee), against the share a random episode of the channel would be.
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { documentFrequencies } from '../../pipeline/enrich/phrases.js';
import { assignTopics, episodeKeyphrases } from '../../pipeline/enrich/topics.js';

/** An episode as the check reads it. */
export interface RelatedInput {
  id: string;
  channelId: string;
  publishedAt: string;
  topicIds: readonly string[];
  collectionIds: readonly string[];
}

export interface RelatedCheck {
  episodes: number;
  /** Share of episodes with at least one related episode. */
  answered: number;
  /** Among answered episodes with a collection, the share whose top related episode shares one. */
  sameCollection: number;
  /** The same share for a random other episode of the channel (expected value). */
  sameCollectionByChance: number;
}

/** The top related episode of each episode as `/related` ranks them: most shared topics, then newest, then id. */
export function topRelated(episodes: readonly RelatedInput[]): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const e of episodes) {
    const mine = new Set(e.topicIds);
    let best: { id: string; shared: number; publishedAt: string } | undefined;
    for (const o of episodes) {
      if (o.id === e.id || o.channelId !== e.channelId) continue;
      const shared = o.topicIds.filter((t) => mine.has(t)).length;
      if (shared === 0) continue;
      const better = !best || shared > best.shared || (shared === best.shared && (o.publishedAt > best.publishedAt || (o.publishedAt === best.publishedAt && o.id < best.id)));
      if (better) best = { id: o.id, shared, publishedAt: o.publishedAt };
    }
    out.set(e.id, best?.id);
  }
  return out;
}

export function checkRelated(episodes: readonly RelatedInput[]): RelatedCheck {
  const byId = new Map(episodes.map((e) => [e.id, e]));
  const top = topRelated(episodes);
  let answered = 0;
  let judged = 0;
  let same = 0;
  let chance = 0;
  const shares = (a: RelatedInput, b: RelatedInput) => a.collectionIds.some((c) => b.collectionIds.includes(c));
  for (const e of episodes) {
    const r = top.get(e.id);
    if (r) answered++;
    if (!r || e.collectionIds.length === 0) continue;
    judged++;
    if (shares(e, byId.get(r)!)) same++;
    const others = episodes.filter((o) => o.id !== e.id && o.channelId === e.channelId);
    chance += others.filter((o) => shares(e, o)).length / Math.max(1, others.length);
  }
  return {
    episodes: episodes.length,
    answered: answered / Math.max(1, episodes.length),
    sameCollection: same / Math.max(1, judged),
    sameCollectionByChance: chance / Math.max(1, judged),
  };
}

/** Reads a library folder's episodes for {@link checkRelated}. */
export async function readRelatedInputs(dir: string): Promise<RelatedInput[]> {
  const meta = await readLibraryMeta(dir);
  const out: RelatedInput[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    out.push({ id: record.id, channelId: record.channelId, publishedAt: record.publishedAt, topicIds: record.topicIds ?? [], collectionIds: record.collectionIds ?? [] });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The library's episodes with their topics replaced by the ones enrichment would generate (keyphrases of the whole
 * transcript with the channel's phrase frequencies, chosen across each channel); no model is needed for topics.
 */
export async function generatedRelatedInputs(dir: string): Promise<RelatedInput[]> {
  const meta = await readLibraryMeta(dir);
  const records: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) records.push(record);
  const textOf = (r: EpisodeRecord) => (r.transcript?.segments ?? []).map((s) => s.text).join(' ');
  const topicIds = new Map<string, string[]>();
  for (const c of meta.channels) {
    const mine = records.filter((r) => r.channelId === c.id);
    const freq = documentFrequencies(mine.map(textOf), c.language ?? 'en');
    const chosen = assignTopics(mine.map((r) => ({ episodeId: r.id, keyphrases: episodeKeyphrases(textOf(r), { language: c.language ?? 'en', freq }) })));
    for (const [id, ids] of chosen.topicIds) topicIds.set(id, ids);
  }
  return records
    .map((r) => ({ id: r.id, channelId: r.channelId, publishedAt: r.publishedAt, topicIds: topicIds.get(r.id) ?? [], collectionIds: r.collectionIds ?? [] }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}
