// A source read into what the follower compares: the channel's fields and, per item, its catalog record and where its
// transcript or audio is to be found, as the importer's own mapping (importer/map-feed.ts) gives them; the digests on top.
import { parseRssFeed } from 'feedsmith';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { scrollHits } from '../../indexer/scroll.js';
import { keepHeldIds, type FormerIdentity, type HeldEpisode } from '../../importer/item-identity.js';
import { mapFeed, type Feed } from '../../importer/map-feed.js';
import { ingestProblem, type ImportedChannel } from '../../importer/model.js';
import { stableHash } from '../../importer/text.js';
import { importYtdlpFolder } from '../../importer/ytdlp.js';
import type { FollowState, ItemSource, TranscriptSource } from '../../core/library/follow-state.js';

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
  /** How an episode stored under an earlier key is found again (importer/item-identity.ts): its id is kept. */
  former: FormerIdentity;
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
  for (const { index, label, key, former, record, sources } of mapped.items) {
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
      former,
    });
  }
  out.skipped = skipped.sort((a, b) => a.index - b.index).map(({ item, reason }) => ({ item, reason }));
  return out;
}

/**
 * The snapshot with the episode ids already held kept (keepHeldIds): held are the items the follower has seen
 * (`state.items`) and the channel's episodes in the store, such as those of a channel imported, then followed, whose
 * guid-less items an earlier key named otherwise. The store is read only when an item keyed by its enclosure is not
 * in `state.items` yet (a first poll, a new item), not on every poll of a feed without guids.
 */
export async function keepStoredIds(
  snapshot: SourceSnapshot,
  state: Pick<FollowState, 'channelId' | 'items'>,
  ctx: Pick<IndexContext, 'client' | 'aliases'>,
): Promise<SourceSnapshot> {
  const seen: HeldEpisode[] = Object.entries(state.items).map(([id, s]) => ({ id, mediaUrl: s.enclosureUrl }));
  const items = await keepHeldIds(snapshot.items, () => Promise.resolve(seen));
  const unseen = items.some((i) => (i.former.ids.length > 0 || i.former.mediaKey) && !Object.hasOwn(state.items, i.record.id));
  if (!unseen) return { ...snapshot, items };
  const stored = async (): Promise<HeldEpisode[]> => {
    const out = [...seen];
    const query = { term: { channelId: state.channelId } };
    for await (const page of scrollHits<{ mediaUrl?: string | null }>(ctx.client, { index: ctx.aliases.episodes, query, source: ['mediaUrl'] })) {
      for (const hit of page) out.push({ id: hit._id, mediaUrl: hit._source?.mediaUrl ?? null });
    }
    return out;
  };
  return { ...snapshot, items: await keepHeldIds(snapshot.items, stored) };
}

/** A yt-dlp download folder re-read with the importer: its records are final (captions beside the videos, nothing fetched). */
export async function ytdlpSnapshot(dir: string, { slug }: { slug: string }): Promise<SourceSnapshot> {
  const imported: ImportedChannel = await importYtdlpFolder(dir, { slug });
  return {
    channel: { title: imported.channel.title, description: null, language: null, artwork: null, providerType: 'youtube' },
    items: imported.episodes.map((record) => ({
      record,
      source: { key: record.id, enclosureUrl: null, transcripts: [], chaptersUrl: null, notes: null, digest: stableHash(JSON.stringify(record)) },
      former: { ids: [], mediaKey: null },
    })),
    people: imported.people,
    topics: imported.topics,
    skipped: imported.items.filter((i) => i.outcome === 'skipped').map((i) => ({ item: i.item, reason: i.notes.join('; ') })),
  };
}
