// A parsed podcast feed mapped once, for the importer and the follower alike: the channel, and per item its identity,
// its catalog record (no transcript or chapters yet) and where its audio, transcripts, chapters and show notes are.
// The importer reads the transcripts on top of this; the follower computes digests and diffs on top of it.
import type { parseRssFeed } from 'feedsmith';
import type { ChannelSourceRecord, EpisodeRecord, FacetRecord } from '../core/contract/library-format.js';
import { channelIdOf, episodeIdOf, formerIdentity, itemKey, type FormerIdentity } from './item-identity.js';
import { durationOf, episodeRecord, FacetNames, httpUrl, summaryOf, type ImportedChannelInfo } from './model.js';
import { cleanText, htmlToText, ImportProblem, slugify } from './text.js';

/** A parsed RSS feed (feedsmith). */
export type Feed = ReturnType<typeof parseRssFeed>;
/** One item of a parsed feed. */
export type Item = NonNullable<Feed['items']>[number];

export interface MapFeedOptions {
  /** Names the feed in errors: its file or URL. */
  source: string;
  /** The channel's slug; derived from the feed's title when absent. */
  slug?: string | undefined;
  /** The feed identity item ids are hashed with, pinned earlier (a follower's); else the feed's own. */
  feedKey?: string | undefined;
  /** The URL the feed was fetched from: item URLs resolve against it. Without it (a feed file) they stay as written. */
  baseUrl?: string | undefined;
}

/** A `podcast:transcript` of an item. */
export interface TranscriptSource {
  url: string;
  type?: string | undefined;
  language?: string | undefined;
  rel?: string | undefined;
}

/** Where an item's content is: audio, transcripts and chapters (resolved against the feed's URL when it has one). */
export interface ItemSources {
  enclosureUrl: string | null;
  transcripts: TranscriptSource[];
  chaptersUrl: string | null;
  /** The HTML show notes, where chapters may be written as timestamps. */
  notes: string | null;
}

export interface MappedItem {
  /** Its place in the feed. */
  index: number;
  /** Its title, or `item <n>`. */
  label: string;
  /** The identity key its id is made from (item-identity.ts). */
  key: string;
  /** How an episode stored under an earlier key is found again, for keepHeldIds. */
  former: FormerIdentity;
  /** Status `published`, no transcript, no chapters: what the feed itself says of the episode. */
  record: EpisodeRecord;
  sources: ItemSources;
  /** What was left out while mapping (a duration that is none). */
  notes: string[];
}

/** The channel a feed describes: the importer's fields, and the follower's additive ones. */
export interface MappedChannel extends ImportedChannelInfo {
  providerType: 'rss';
  source: ChannelSourceRecord;
  description: string | null;
  language: string | null;
  artwork: string | null;
}

export interface MappedFeed {
  channel: MappedChannel;
  /** The feed identity the item ids were hashed with. */
  feedKey: string;
  items: MappedItem[];
  /** Items that gave no episode, and why. */
  skipped: { index: number; item: string; reason: string }[];
  people: FacetRecord[];
  topics: FacetRecord[];
}

function publishedAt(item: Item): string | undefined {
  const date = item.pubDate ? new Date(item.pubDate) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** A URL of the feed: resolved against `base` and kept when http(s) (null otherwise); as written without a base. */
function located(url: string | undefined, base: string | undefined): string | null {
  if (!url) return null;
  if (base === undefined) return url;
  try {
    return httpUrl(new URL(url, base).href);
  } catch {
    return null;
  }
}

/**
 * Maps a parsed feed: the channel (a feed without a title is an ImportProblem naming `source`) and each item, in the
 * feed's order. An item without an identity or a valid date, or with the id of an earlier item, is skipped with the
 * reason. Nothing is read or fetched; ingest's checks are the caller's, once its record is whole.
 */
export function mapFeed(feed: Feed, { source, slug: given, feedKey: pinned, baseUrl }: MapFeedOptions): MappedFeed {
  const title = cleanText(feed.title ?? '') || cleanText(feed.itunes?.title ?? '');
  if (!title) throw new ImportProblem(source, 'the feed has no title');
  const slug = given ?? slugify(title);
  const channelId = channelIdOf(slug);
  const link = httpUrl(feed.link);
  const guid = cleanText(feed.podcast?.guid ?? '');
  // The feed's own identity: podcast:guid, else its link, else its title.
  const feedKey = pinned ?? feed.podcast?.guid ?? feed.link ?? title;
  const channel: MappedChannel = {
    id: channelId,
    slug,
    title,
    providerType: 'rss',
    source: { kind: 'rss', id: guid ? `podcast:guid:${guid}` : link ? link : `title:${title}`, url: link },
    description: htmlToText(feed.description ?? feed.itunes?.summary ?? '') || null,
    language: feed.language?.trim() || null,
    artwork: httpUrl(feed.itunes?.image ?? feed.image?.url),
  };
  const people = new FacetNames('p');
  const topics = new FacetNames('t');
  const out: MappedFeed = { channel, feedKey, items: [], skipped: [], people: [], topics: [] };
  const seen = new Set<string>();
  for (const [index, item] of (feed.items ?? []).entries()) {
    const label = cleanText(item.title ?? '') || `item ${index + 1}`;
    const skip = (reason: string) => void out.skipped.push({ index, item: label, reason });
    const ids = { guid: item.guid?.value, enclosureUrl: item.enclosures?.[0]?.url, link: item.link };
    const key = itemKey(ids);
    if (!key) {
      skip('no guid, enclosure or link to identify it');
      continue;
    }
    const date = publishedAt(item);
    if (!date) {
      skip(`no valid pubDate (${item.pubDate ?? 'missing'})`);
      continue;
    }
    const id = episodeIdOf(slug, feedKey, key);
    if (seen.has(id)) {
      skip('the same identity (guid, enclosure or link) as an earlier item');
      continue;
    }
    seen.add(id);
    const notes: string[] = [];
    const rawDuration: unknown = item.itunes?.duration;
    // A negative, infinite or absurd duration (`-5`) is no duration, not a refused item.
    const durationMs = durationOf(typeof rawDuration === 'number' ? rawDuration : null);
    if (rawDuration !== undefined && durationMs === null) notes.push(`itunes:duration ${String(rawDuration)} is not a duration: left out`);
    const html = item.description ?? item.content?.encoded ?? item.itunes?.summary ?? '';
    const description = htmlToText(html);
    const enclosureUrl = baseUrl === undefined ? httpUrl(item.enclosures?.[0]?.url) : located(item.enclosures?.[0]?.url, baseUrl);
    const transcripts: TranscriptSource[] = (item.podcast?.transcripts ?? []).flatMap((t: { url?: string; type?: string; language?: string; rel?: string }) => {
      const url = located(t.url, baseUrl);
      return url ? [{ url, type: t.type, language: t.language, rel: t.rel }] : [];
    });
    // An item's persons replace the channel's (Podcasting 2.0).
    const persons = item.podcast?.persons ?? feed.podcast?.persons ?? [];
    const keywords = [...(item.itunes?.keywords ?? []), ...(item.categories ?? []).map((c: { name?: string }) => c.name ?? '')];
    out.items.push({
      index,
      label,
      key,
      former: formerIdentity(slug, feedKey, ids, enclosureUrl),
      record: episodeRecord({
        id,
        channelId,
        title: label,
        description: description || null,
        summary: summaryOf(description),
        link: httpUrl(item.link),
        thumbnail: httpUrl(item.itunes?.image),
        mediaUrl: enclosureUrl,
        durationMs,
        publishedAt: date,
        viewCount: null,
        personIds: people.ids(persons.map((p: { display?: string }) => p.display ?? '')),
        topicIds: topics.ids(keywords),
        transcript: null,
        chapters: [],
      }),
      sources: { enclosureUrl, transcripts, chaptersUrl: located(item.podcast?.chapters?.url, baseUrl), notes: html || null },
      notes,
    });
  }
  out.people = people.records();
  out.topics = topics.records();
  return out;
}
