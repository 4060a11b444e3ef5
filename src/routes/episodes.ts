// GET /api/v1/channels/{slug}/episodes: status views, four sorts, facet filters, keyset pagination.
import { accessChannel } from '../auth/access.js';
import type { EpisodeDoc } from '../../core/store/documents.js';
import { channelOrigin, episodeUrl, type ChannelSites } from '../../core/ground/channel-urls.js';
import { decodeCursor, encodeCursor, queryDigest, type SortKey } from '../http/cursor.js';
import { route, type Route } from '../http/route.js';
import { ListEpisodes } from '../openapi/operations.js';
import type { EpisodePage, EpisodeRow } from '../../core/contract/shapes.js';
import type { EpisodeFilters } from '../../core/search/types.js';
import type { Principal } from '../auth/principal.js';
import type { Queries } from '../store/queries.js';
import type { SortName, StatusView } from '../store/episode-queries.js';
import { filtersFromQuery } from './filters.js';

/** The spec's catalog row (plus the page URL, facet ids and language, additive) from a stored episode of a channel spoken in `channelLanguage`. */
export function toEpisode(e: EpisodeDoc, origin: string, channelLanguage: string | null | undefined = undefined): EpisodeRow {
  // Every read of the catalog leaves archived episodes out; one reaching here is our bug, not a row to serve.
  if (e.status === 'archived') throw new Error(`archived episode ${e.id} reached the catalog`);
  return {
    id: e.id,
    title: e.title,
    description: e.description ?? null,
    link: e.link ?? null,
    thumbnail: e.thumbnail ?? null,
    mediaUrl: e.mediaUrl ?? null,
    durationMs: e.durationMs ?? null,
    publishedAt: e.publishedAt,
    viewCount: e.viewCount ?? null,
    status: e.status,
    summary: e.summary ?? null,
    error: e.error ?? null,
    url: episodeUrl(origin, e.id),
    topicIds: e.topicIds ?? [],
    personIds: e.personIds ?? [],
    entityIds: e.entityIds ?? [],
    collectionIds: e.collectionIds ?? [],
    language: e.language ?? channelLanguage ?? 'en',
  };
}

/** What one page of a channel's episode list is asked for: the REST query's values, validated. */
export interface EpisodePageQuery {
  slug: string;
  status: StatusView;
  sort: SortName;
  limit: number;
  cursor?: string | undefined;
  filters: EpisodeFilters;
}

/**
 * One page of a channel's episode list as `principal` may read it (membership and plan checked now, `accessChannel`),
 * with the cursor of the next page bound to the channel, view, sort and filters: REST's list and the creator tool server's.
 */
export async function episodePage(
  queries: Queries,
  principal: Principal,
  { channelSites }: { channelSites: ChannelSites },
  { slug, status, sort, limit, cursor, filters }: EpisodePageQuery,
): Promise<EpisodePage> {
  const { channel, publishedOnly } = await accessChannel(queries, principal, slug);
  // Everything that decides which rows exist and their order; `limit` may change between pages.
  const digest = queryDigest({ channel: channel.id, status, sort, publishedOnly, ...filters });
  const searchAfter = cursor !== undefined ? decodeCursor(cursor, digest) : undefined;
  const rows = await queries.listEpisodes({ channel, status, sort, publishedOnly, filters, searchAfter, size: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const origin = channelOrigin(channel, channelSites);
  return {
    episodes: page.map((r) => toEpisode(r.episode, origin, channel.language)),
    nextCursor: rows.length > limit && last ? encodeCursor(last.sort as SortKey, digest) : null,
  };
}

export function listEpisodes({ channelSites }: { channelSites: ChannelSites }): Route {
  return route(ListEpisodes, async ({ params, query }, req) => {
    const { status, sort, limit, cursor, ...q } = query;
    return episodePage(req.queries, req.principal!, { channelSites }, { slug: params.slug, status, sort, limit, cursor, filters: filtersFromQuery(q) });
  });
}
