// What REST and the creator tool server read for a member, written once: the channel list, a page of a channel's episodes, related rows, answered chapters.
import { accessChannel, PAID_PLAN } from '../auth/access.js';
import type { Principal } from '../auth/principal.js';
import { decodeCursor, encodeCursor, queryDigest, type SortKey } from '../http/cursor.js';
import type { SortName, StatusView } from '../store/episode-queries.js';
import type { Queries } from '../store/queries.js';
import { channelOrigin, episodeUrl, type ChannelSites } from '../../core/ground/channel-urls.js';
import type { Chapter, ChannelSummary, EpisodePage, EpisodeRow, RelatedEpisode } from '../../core/contract/shapes.js';
import type { EpisodeFilters } from '../../core/search/types.js';
import type { ChannelDoc, EpisodeDoc } from '../../core/store/documents.js';

/** A channel as the list shows it; `apiAccess` from its owner's plan. */
export function toChannelSummary(c: ChannelDoc, apiAccess: boolean): ChannelSummary {
  return { id: c.id, slug: c.slug, title: c.title, providerType: c.providerType, apiAccess, language: c.language ?? 'en' };
}

/** The channels `userId` is a member of, by slug, each with whether its owner's plan includes API access (read now). */
export async function memberChannels(queries: Queries, userId: string): Promise<{ channel: ChannelDoc; apiAccess: boolean }[]> {
  const channels = await queries.channelsOfMember(userId);
  const owners = await queries.users([...new Set(channels.map((c) => c.ownerId))]);
  const paid = new Set(owners.filter((u) => u.plan === PAID_PLAN).map((u) => u.id));
  return channels.map((channel) => ({ channel, apiAccess: paid.has(channel.ownerId) }));
}

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

/** A related episode as the API shows it: the topic ids it shares with the episode asked about, and their number as its score. */
export function toRelatedEpisode(r: EpisodeDoc, origin: string, topics: ReadonlySet<string>): RelatedEpisode {
  const sharedTopicIds = [...new Set(r.topicIds)].filter((t) => topics.has(t));
  return {
    id: r.id,
    title: r.title,
    url: episodeUrl(origin, r.id),
    publishedAt: r.publishedAt,
    durationMs: r.durationMs ?? null,
    thumbnail: r.thumbnail ?? null,
    sharedTopicIds,
    score: sharedTopicIds.length,
  };
}

/**
 * A stored chapter as the API answers it: `generated` on the chapter and on each key moment, `false` where the store
 * leaves it out (the creator's), so a client branches on a boolean that is always there (decision 27).
 */
export function answeredChapter(c: Chapter): Chapter {
  return { ...c, moments: c.moments.map((m) => ({ ...m, generated: m.generated === true })), generated: c.generated === true };
}
