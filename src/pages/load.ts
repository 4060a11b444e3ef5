// What a channel page shows, read from the store in at most two round trips: published episodes only, for any channel whatever its owner's plan.
import { LRUCache } from 'lru-cache';
import { channelOrigin, episodeUrl, locateByHost, type ChannelSites } from '../../core/ground/channel-urls.js';
import { decodeCursor, encodeCursor, queryDigest, type SortKey } from '../http/cursor.js';
import type { SegmentRecord } from '../../core/contract/library-format.js';
import { isArchived, type Chapter, type ChannelDoc, type EpisodeDoc, type FacetDoc } from '../../core/store/documents.js';
import type { Queries } from '../store/queries.js';

/** The channel a page request's host names: `<slug>.<base domain>` or its custom domain; undefined for any other host. */
export async function channelOfHost(queries: Queries, hostname: string | undefined, channelSites: ChannelSites): Promise<ChannelDoc | undefined> {
  if (!hostname) return undefined;
  const locator = locateByHost(hostname, channelSites);
  if (!locator) return undefined;
  return 'slug' in locator ? queries.channelBySlug(locator.slug) : queries.channelByDomain(locator.domain);
}

/** A channel as its pages show it. */
export interface PageChannel {
  doc: ChannelDoc;
  /** `https://<host>` (or the configured scheme and port): the library root every page link and citation is under. */
  origin: string;
}

export function pageChannel(doc: ChannelDoc, channelSites: ChannelSites): PageChannel {
  return { doc, origin: channelOrigin(doc, channelSites) };
}

export interface TranscriptSegment {
  speaker: string | null;
  startMs: number;
  endMs: number;
  text: string;
}

/** A person's or topic's display name; `generated` when enrichment found it in the transcript (decision 27). */
export interface FacetName {
  name: string;
  generated: boolean;
}

export interface EpisodePage {
  channel: PageChannel;
  episode: EpisodeDoc;
  url: string;
  people: FacetName[];
  topics: FacetName[];
  chapters: Chapter[];
  segments: TranscriptSegment[];
  related: { id: string; title: string; url: string; publishedAt: string; durationMs: number | null }[];
}

const isShown = (episode: EpisodeDoc | undefined, channel: ChannelDoc): episode is EpisodeDoc =>
  episode !== undefined && episode.channelId === channel.id && episode.status === 'published' && !isArchived(episode);

/** Segments of a stored transcript document, ordered by start; anything malformed is left out rather than failing the page. */
function readSegments(document: unknown): TranscriptSegment[] {
  const raw = (document as { segments?: unknown } | undefined)?.segments;
  if (!Array.isArray(raw)) return [];
  return (raw as Partial<SegmentRecord>[])
    .filter((s) => typeof s.text === 'string' && Number.isFinite(s.startMs) && Number.isFinite(s.endMs))
    .map((s) => ({ speaker: typeof s.speakerLabel === 'string' ? s.speakerLabel : null, startMs: s.startMs!, endMs: s.endMs!, text: s.text! }))
    .sort((a, b) => a.startMs - b.startMs);
}

/** The documents of an episode page that need no channel: catalog row, transcript and chapters, in one `_mget`. */
export interface EpisodeDocs {
  episode: EpisodeDoc | undefined;
  transcript: Awaited<ReturnType<Queries['transcript']>>;
  chapters: Awaited<ReturnType<Queries['chapters']>>;
}

export async function fetchEpisodeDocs(queries: Queries, episodeId: string): Promise<EpisodeDocs> {
  const [episode, transcript, chapters] = await Promise.all([queries.episode(episodeId), queries.transcriptForPage(episodeId), queries.chapters(episodeId)]);
  return { episode, transcript, chapters };
}

/**
 * The episode page's data, or undefined (the one 404) when the episode is unknown, of another
 * channel, unpublished or archived. Round trip 1: the catalog row, transcript and chapters in
 * one `_mget` (`docs`, which the router sends beside the channel lookup); round trip 2, unless
 * `around` holds them: related episodes and the facet names, side by side.
 */
export async function loadEpisodePage(
  queries: Queries,
  channel: PageChannel,
  episodeId: string,
  docs: Promise<EpisodeDocs> = fetchEpisodeDocs(queries, episodeId),
  around?: AroundCache,
): Promise<EpisodePage | undefined> {
  const { episode, transcript, chapters } = await docs;
  if (!isShown(episode, channel.doc)) return undefined;
  const key = `${channel.doc.id}\0${episode.id}\0${episode.sourceHash}`;
  let extras = around?.get(key);
  if (!extras) {
    extras = await loadAround(queries, channel, episode);
    around?.set(key, extras);
  }
  return {
    channel,
    episode,
    url: episodeUrl(channel.origin, episode.id),
    ...extras,
    chapters: chapters && !isArchived(chapters) ? chapters.chapters : [],
    segments: transcript && !isArchived(transcript) ? readSegments(transcript.document) : [],
  };
}

/** What a page shows around its episode: names of its people and topics, its related episodes. */
type Around = Pick<EpisodePage, 'people' | 'topics' | 'related'>;

/**
 * Around an episode, kept up to `AROUND_TTL_MS` under the episode's `sourceHash`: a citation that is followed
 * often costs one round trip. The pages are cached as long by browsers and proxies (`max-age=60`), so a page
 * is never staler for it; an episode whose record changed is looked up anew at once.
 */
export type AroundCache = LRUCache<string, Around>;
export const AROUND_TTL_MS = 60_000;

export function createAroundCache(max = 5000): AroundCache {
  return new LRUCache<string, Around>({ max, ttl: AROUND_TTL_MS });
}

async function loadAround(queries: Queries, channel: PageChannel, episode: EpisodeDoc): Promise<Around> {
  const facetIds = [...episode.personIds, ...episode.topicIds];
  const [related, facets] = await Promise.all([
    queries.relatedEpisodes({ channel: channel.doc, episodeId: episode.id, topicIds: episode.topicIds }),
    Promise.all(facetIds.map((id) => queries.facet(channel.doc.id, id))),
  ]);
  const name = new Map(facets.filter((f): f is FacetDoc => f !== undefined).map((f): [string, FacetName] => [f.id, { name: f.name, generated: f.generated === true }]));
  return {
    people: episode.personIds.map((id) => name.get(id)).filter((n): n is FacetName => n !== undefined),
    topics: episode.topicIds.map((id) => name.get(id)).filter((n): n is FacetName => n !== undefined),
    related: related
      .filter((r) => isShown(r, channel.doc))
      .map((r) => ({ id: r.id, title: r.title, url: episodeUrl(channel.origin, r.id), publishedAt: r.publishedAt, durationMs: r.durationMs ?? null })),
  };
}

/** One page of the library: published episodes newest first, keyset-paged as the API's list. */
export interface LibraryPage {
  channel: PageChannel;
  episodes: { episode: EpisodeDoc; url: string }[];
  /** The cursor of the next page, or null on the last. */
  next: string | null;
}

export const LIBRARY_PAGE_SIZE = 20;

/** Throws the API's `invalid_cursor` for a cursor not made by this list. */
export async function loadLibraryPage(queries: Queries, channel: PageChannel, cursor: string | undefined, size = LIBRARY_PAGE_SIZE): Promise<LibraryPage> {
  const digest = queryDigest({ channel: channel.doc.id, status: 'live', sort: 'newest', publishedOnly: true, page: 'library' });
  const searchAfter = cursor ? decodeCursor(cursor, digest) : undefined;
  const rows = await queries.listEpisodes({ channel: channel.doc, status: 'live', sort: 'newest', publishedOnly: true, filters: {}, searchAfter, size: size + 1 });
  const page = rows.slice(0, size);
  const last = page.at(-1);
  return {
    channel,
    episodes: page.map((r) => ({ episode: r.episode, url: episodeUrl(channel.origin, r.episode.id) })),
    next: rows.length > size && last ? encodeCursor(last.sort as SortKey, digest) : null,
  };
}
