// A source read into what the follower compares: the channel's fields and, per item, its catalog record and where its
// transcript or audio is to be found, as the importer's own mapping (importer/map-feed.ts) gives them; the digests on top.
import { parseRssFeed } from 'feedsmith';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { keepHeldIds } from '../../importer/item-identity.js';
import { mapFeed, type Feed } from '../../importer/map-feed.js';
import { ingestProblem, type ImportedChannel } from '../../importer/model.js';
import { stableHash } from '../../importer/text.js';
import { importYtdlpFolder } from '../../importer/ytdlp.js';
import type { FollowState, ItemSource, TranscriptSource } from './state.js';

/** The channel's fields a source gives (additive channel fields besides the format's own). */
export interface SourceChannel {
  title: string;
  description: string | null;
  language: string | null;
  artwork: string | null;
  providerType: 'rss' | 'youtube';
}

export interface SourceItem {
  /** The record as the source describes it now: status `pending` (feed) or as imported (yt-dlp), no work done yet. */
  record: EpisodeRecord;
  source: ItemSource;
  /** Ids earlier keys gave the item (importer/item-identity.ts): one the store or the follower holds is kept. */
  formerIds: string[];
}

export interface SourceSnapshot {
  channel: SourceChannel;
  items: SourceItem[];
  people: FacetRecord[];
  topics: FacetRecord[];
  /** Items left out, and why. */
  skipped: { item: string; reason: string }[];
  /** The feed identity the episode ids were made from (a feed's; none for a yt-dlp folder). */
  feedKey?: string;
}

/** A URL without its query and fragment. */
const withoutQuery = (url: string): string => url.replace(/[?#].*$/s, '');

/** Digest of where an item's content comes from: a change means its transcript must be made again. */
export function sourceDigest(enclosureUrl: string | null, transcripts: readonly TranscriptSource[], chaptersUrl: string | null): string {
  // Without the query: hosts rotate tracking tokens on the same audio, which must not cost a transcription each time.
  return stableHash(enclosureUrl ? withoutQuery(enclosureUrl) : '', chaptersUrl ?? '', ...transcripts.map((t) => t.url));
}

/** Not an RSS feed: thrown with the parser's reason. */
export class NotAFeedError extends Error {
  override name = 'NotAFeedError';
}

/**
 * Parses a feed body fetched from `feedUrl` into a snapshot, every item `pending` with no transcript. `feedKey`: the
 * identity pinned when the source was first read (else the feed's own, as the importer takes it). A feed without a
 * title is an ImportProblem naming `feedUrl`.
 */
export function feedSnapshot(xml: string, { slug, feedUrl, feedKey }: { slug: string; feedUrl: string; feedKey?: string }): SourceSnapshot {
  let feed: Feed;
  try {
    feed = parseRssFeed(xml);
  } catch (err) {
    throw new NotAFeedError(`not an RSS feed (${(err as Error).message})`);
  }
  const mapped = mapFeed(feed, { source: feedUrl, slug, feedKey, baseUrl: feedUrl });
  const { title, description, language, artwork, providerType } = mapped.channel;
  const out: SourceSnapshot = {
    channel: { title, description, language, artwork, providerType },
    items: [],
    people: mapped.people,
    topics: mapped.topics,
    skipped: [],
    feedKey: mapped.feedKey,
  };
  const skipped = [...mapped.skipped];
  for (const { index, label, key, formerIds, record, sources } of mapped.items) {
    const pending: EpisodeRecord = { ...record, status: 'pending' };
    // What ingest would refuse is skipped with its reason here, as the importer does: thrown by the poll's write, it
    // stopped the poll and every item after it (security review 2026-11-27, item 13).
    const refused = ingestProblem(pending);
    if (refused) {
      skipped.push({ index, item: label, reason: refused });
      continue;
    }
    const { enclosureUrl, transcripts, chaptersUrl, notes } = sources;
    out.items.push({
      record: pending,
      source: { key, enclosureUrl, transcripts, chaptersUrl, notes, publishedAt: record.publishedAt, digest: sourceDigest(enclosureUrl, transcripts, chaptersUrl) },
      formerIds,
    });
  }
  out.skipped = skipped.sort((a, b) => a.index - b.index).map(({ item, reason }) => ({ item, reason }));
  return out;
}

/** Ids asked of the store in one `_mget`. */
const MGET_IDS = 500;

/**
 * The snapshot with the episode ids already held kept (keepHeldIds): held are the ids the follower has seen
 * (`state.items`) and the episodes the store holds, such as those of a channel imported, then followed, whose
 * guid-less items an earlier key named otherwise.
 */
export async function keepStoredIds(snapshot: SourceSnapshot, state: Pick<FollowState, 'items'>, ctx: Pick<IndexContext, 'client' | 'aliases'>): Promise<SourceSnapshot> {
  const held = async (ids: readonly string[]): Promise<Set<string>> => {
    const out = new Set(ids.filter((id) => Object.hasOwn(state.items, id)));
    const ask = ids.filter((id) => !out.has(id));
    for (let i = 0; i < ask.length; i += MGET_IDS) {
      const res = await ctx.client.mget({ index: ctx.aliases.episodes, body: { ids: ask.slice(i, i + MGET_IDS) }, _source: false } as never);
      for (const doc of (res.body as { docs: { _id: string; found?: boolean }[] }).docs) if (doc.found) out.add(doc._id);
    }
    return out;
  };
  return { ...snapshot, items: await keepHeldIds(snapshot.items, held) };
}

/** A yt-dlp download folder re-read with the importer: its records are final (captions beside the videos, nothing fetched). */
export async function ytdlpSnapshot(dir: string, { slug }: { slug: string }): Promise<SourceSnapshot> {
  const imported: ImportedChannel = await importYtdlpFolder(dir, { slug });
  return {
    channel: { title: imported.channel.title, description: null, language: null, artwork: null, providerType: 'youtube' },
    items: imported.episodes.map((record) => ({
      record,
      source: { key: record.id, enclosureUrl: null, transcripts: [], chaptersUrl: null, notes: null, digest: stableHash(JSON.stringify(record)) },
      formerIds: [],
    })),
    people: imported.people,
    topics: imported.topics,
    skipped: imported.items.filter((i) => i.outcome === 'skipped').map((i) => ({ item: i.item, reason: i.notes.join('; ') })),
  };
}
