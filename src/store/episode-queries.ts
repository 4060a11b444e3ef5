// Request bodies for the episode list and related episodes: small pure builders, unit-tested without OpenSearch.
import type { ChannelDoc, EpisodeStatus } from '../../core/store/documents.js';
import { buildFilters } from '../../core/store/filters.js';
import type { EpisodeFilters } from '../../core/store/filters.js';

/** Decision 1: the list's `status` view names and the stored statuses each one covers. */
export const STATUS_VIEWS = {
  all: undefined,
  queued: ['pending'],
  indexing: ['processing'],
  live: ['indexed', 'published'],
  failed: ['failed'],
} as const satisfies Record<string, readonly EpisodeStatus[] | undefined>;
export type StatusView = keyof typeof STATUS_VIEWS;

/** The four list orders: one stored field each, then `id` ascending as the unique tie-breaker. */
export const SORTS = {
  newest: { field: 'publishedAt', order: 'desc' },
  popular: { field: 'viewCount', order: 'desc' },
  longest: { field: 'durationMs', order: 'desc' },
  oldest: { field: 'publishedAt', order: 'asc' },
} as const;
export type SortName = keyof typeof SORTS;

/**
 * Stand-ins for a missing sort value, so rows without one come last in either order.
 * Not `_last`: OpenSearch then reports Long.MAX_VALUE, which a JSON number cannot hold,
 * and the rounded value sent back in `search_after` is out of range. These stay exact.
 */
const MISSING_LAST = { desc: Number.MIN_SAFE_INTEGER, asc: Number.MAX_SAFE_INTEGER } as const;

export interface EpisodeListQuery {
  channel: ChannelDoc;
  status: StatusView;
  /** Anonymous reads (decision 7) see published episodes only. */
  publishedOnly: boolean;
  filters: EpisodeFilters;
  sort: SortName;
  /** Sort values of the last row of the previous page. */
  searchAfter?: readonly (number | string)[] | undefined;
  size: number;
}

/** The channel, visibility and facet filter of the episodes index, as search builds it. */
function episodeFilter(channel: ChannelDoc, filters: EpisodeFilters, publishedOnly: boolean) {
  const clause = buildFilters({ ...filters, publishedOnly }, channel, { episodeIdField: 'id' });
  return clause as { bool: { filter: unknown[]; must_not: unknown[] } };
}

/** The `sort` of a list order, ending in the unique `id` tie-breaker that makes keyset paging exact. */
export function sortClause(sort: SortName): unknown[] {
  const { field, order } = SORTS[sort];
  return [{ [field]: { order, missing: MISSING_LAST[order] } }, { id: { order: 'asc' } }];
}

/** The `_search` body of one page of the episode list. */
export function buildEpisodeListBody(q: EpisodeListQuery): Record<string, unknown> {
  const query = episodeFilter(q.channel, q.filters, q.publishedOnly);
  const statuses = STATUS_VIEWS[q.status];
  if (statuses) query.bool.filter.push({ terms: { status: statuses } });
  return {
    size: q.size,
    track_total_hits: false,
    query,
    sort: sortClause(q.sort),
    ...(q.searchAfter ? { search_after: q.searchAfter } : {}),
  };
}

export interface RelatedQuery {
  channel: ChannelDoc;
  episodeId: string;
  topicIds: readonly string[];
  size?: number;
}

/**
 * Decision 16: other published episodes of the channel ranked by the number of topic
 * ids they share (each shared topic scores exactly 1), ties newest first. Null when
 * the episode has no topics, since nothing can then be related.
 */
export function buildRelatedBody({ channel, episodeId, topicIds, size = 10 }: RelatedQuery): Record<string, unknown> | null {
  if (topicIds.length === 0) return null;
  const query = episodeFilter(channel, {}, true);
  query.bool.must_not.push({ term: { id: episodeId } });
  return {
    size,
    track_total_hits: false,
    query: {
      bool: {
        ...query.bool,
        should: [...new Set(topicIds)].map((t) => ({ constant_score: { filter: { term: { topicIds: t } }, boost: 1 } })),
        minimum_should_match: 1,
      },
    },
    sort: [{ _score: 'desc' }, { publishedAt: { order: 'desc' } }, { id: 'asc' }],
  };
}
