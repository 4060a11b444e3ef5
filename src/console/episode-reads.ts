// What the episodes page reads of one channel, bounded whatever the channel's size: one page of episodes (newest first,
// keyset-paged) and one aggregation of the channel's statuses. The body builders are pure.
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import type { ChannelDoc, EpisodeDoc, EpisodeStatus } from '../../core/store/documents.js';
import { buildFilters } from '../../core/store/filters.js';
import { SHOWN_STATUSES } from '../../core/contract/library-format.js';
import { decodeCursor, encodeCursor, queryDigest, type SortKey } from '../http/cursor.js';
import { STATUS_VIEWS, type StatusView } from '../store/episode-queries.js';
import type { Queries } from '../store/queries.js';

/** Episodes on one page of the console. */
export const EPISODES_PER_PAGE = 25;

export type ShownStatus = (typeof SHOWN_STATUSES)[number];

/** How many of the channel's episodes have each status (archived ones are not counted: they are shown nowhere). */
export type StatusCounts = Record<ShownStatus, number>;

/** The `_search` body counting a channel's episodes by status: no hits, one terms aggregation. */
export function statusCountsBody(channel: Pick<ChannelDoc, 'id'>): Record<string, unknown> {
  return {
    size: 0,
    track_total_hits: false,
    query: buildFilters({ publishedOnly: false }, channel, { episodeIdField: 'id' }),
    aggs: { statuses: { terms: { field: 'status', size: SHOWN_STATUSES.length + 1 } } },
  };
}

/** The counts of an aggregation's answer, every shown status present (0 when none). */
export function countsOf(body: unknown): StatusCounts {
  const buckets = (body as { aggregations?: { statuses?: { buckets?: { key: string; doc_count: number }[] } } }).aggregations?.statuses?.buckets ?? [];
  const counts = Object.fromEntries(SHOWN_STATUSES.map((s) => [s, 0])) as StatusCounts;
  for (const b of buckets) if ((SHOWN_STATUSES as readonly string[]).includes(b.key)) counts[b.key as ShownStatus] = b.doc_count;
  return counts;
}

export async function statusCounts(
  { client, aliases, queries }: { client: Client; aliases: Pick<IndexAliases, 'episodes'>; queries: Queries },
  channel: ChannelDoc,
): Promise<StatusCounts> {
  const res = await client.search({ index: aliases.episodes, body: statusCountsBody(channel) as never }, { requestTimeout: queries.timeLeftMs() });
  return countsOf(res.body);
}

/** The status views the page offers, as the API names them (decision 1). */
export const PAGE_VIEWS = Object.keys(STATUS_VIEWS) as StatusView[];

/** One page of a channel's episodes as a member sees them (drafts included) and the cursor of the next, if any. */
export interface ConsoleEpisodePage {
  episodes: EpisodeDoc[];
  next: string | null;
}

/** A cursor that does not belong to this channel and view. */
export class StaleCursorError extends Error {
  override name = 'StaleCursorError';
}

/** The page after `cursor` (or the first) of `channel`'s episodes in `view`, newest first: one search of size + 1. */
export async function episodePageOf(
  queries: Queries,
  channel: ChannelDoc,
  { view, cursor, size = EPISODES_PER_PAGE }: { view: StatusView; cursor?: string | undefined; size?: number },
): Promise<ConsoleEpisodePage> {
  const digest = queryDigest({ console: true, channel: channel.id, view });
  let searchAfter: SortKey | undefined;
  if (cursor !== undefined) {
    try {
      searchAfter = decodeCursor(cursor, digest);
    } catch {
      throw new StaleCursorError('the cursor belongs to another list');
    }
  }
  const rows = await queries.listEpisodes({ channel, status: view, sort: 'newest', publishedOnly: false, filters: {}, searchAfter, size: size + 1 });
  const page = rows.slice(0, size);
  const last = page.at(-1);
  return { episodes: page.map((r) => r.episode), next: rows.length > size && last ? encodeCursor(last.sort as SortKey, digest) : null };
}

/** Whether a status still moves (the page keeps refreshing while any shown episode has one). */
export const isMoving = (status: EpisodeStatus) => status === 'pending' || status === 'processing';
