// A source read into what the follower compares: the channel's fields and, per item, its catalog record (as the
// importer maps it, through the importer's own helpers) and where its transcript or audio is to be found.
import { parseRssFeed } from 'feedsmith';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import { durationOf, episodeRecord, FacetNames, httpUrl, ingestProblem, summaryOf, type ImportedChannel } from '../../importer/model.js';
import { cleanText, htmlToText, stableHash } from '../../importer/text.js';
import { importYtdlpFolder } from '../../importer/ytdlp.js';
import { channelIdOf, episodeIdOf, itemKey, withoutQuery } from './identity.js';
import type { ItemSource, TranscriptSource } from './state.js';

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

type Feed = ReturnType<typeof parseRssFeed>;
type Item = NonNullable<Feed['items']>[number];

/** Digest of where an item's content comes from: a change means its transcript must be made again. */
export function sourceDigest(enclosureUrl: string | null, transcripts: readonly TranscriptSource[], chaptersUrl: string | null): string {
  // Without the query: hosts rotate tracking tokens on the same audio, which must not cost a transcription each time.
  return stableHash(enclosureUrl ? withoutQuery(enclosureUrl) : '', chaptersUrl ?? '', ...transcripts.map((t) => t.url));
}

/** `url` resolved against the feed's own URL (a relative transcript link), or null when it is no http(s) URL. */
function absolute(url: string | undefined, base: string): string | null {
  if (!url) return null;
  try {
    return httpUrl(new URL(url, base).href);
  } catch {
    return null;
  }
}

function publishedAt(item: Item): string | undefined {
  const date = item.pubDate ? new Date(item.pubDate) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** Not an RSS feed: thrown with the parser's reason. */
export class NotAFeedError extends Error {
  override name = 'NotAFeedError';
}

/**
 * Parses a feed body fetched from `feedUrl` into a snapshot, every item `pending` with no transcript. `feedKey`: the
 * identity pinned when the source was first read (else the feed's own, as the importer takes it).
 */
export function feedSnapshot(xml: string, { slug, feedUrl, feedKey: pinned }: { slug: string; feedUrl: string; feedKey?: string }): SourceSnapshot {
  let feed: Feed;
  try {
    feed = parseRssFeed(xml);
  } catch (err) {
    throw new NotAFeedError(`not an RSS feed (${(err as Error).message})`);
  }
  const title = cleanText(feed.title ?? '') || cleanText(feed.itunes?.title ?? '');
  if (!title) throw new NotAFeedError('the feed has no title');
  // The feed's own identity, as the importer takes it: podcast:guid, else its link, else its title.
  const feedKey = pinned ?? feed.podcast?.guid ?? feed.link ?? title;
  const channelId = channelIdOf(slug);
  const people = new FacetNames('p');
  const topics = new FacetNames('t');
  const out: SourceSnapshot = {
    channel: {
      title,
      description: htmlToText(feed.description ?? feed.itunes?.summary ?? '') || null,
      language: feed.language?.trim() || null,
      artwork: httpUrl(feed.itunes?.image ?? feed.image?.url),
      providerType: 'rss',
    },
    items: [],
    people: [],
    topics: [],
    skipped: [],
    feedKey,
  };
  const seen = new Set<string>();
  for (const [index, item] of (feed.items ?? []).entries()) {
    const label = cleanText(item.title ?? '') || `item ${index + 1}`;
    const enclosureUrl = absolute(item.enclosures?.[0]?.url, feedUrl);
    const key = itemKey({ guid: item.guid?.value, enclosureUrl: item.enclosures?.[0]?.url, link: item.link });
    if (!key) {
      out.skipped.push({ item: label, reason: 'no guid, enclosure or link to identify it' });
      continue;
    }
    const date = publishedAt(item);
    if (!date) {
      out.skipped.push({ item: label, reason: `no valid pubDate (${item.pubDate ?? 'missing'})` });
      continue;
    }
    const id = episodeIdOf(slug, feedKey, key);
    if (seen.has(id)) {
      out.skipped.push({ item: label, reason: 'the same guid as an earlier item' });
      continue;
    }
    seen.add(id);
    const transcripts: TranscriptSource[] = (item.podcast?.transcripts ?? []).flatMap((t: { url?: string; type?: string; language?: string; rel?: string }) => {
      const url = absolute(t.url, feedUrl);
      return url ? [{ url, type: t.type, language: t.language, rel: t.rel }] : [];
    });
    const chaptersUrl = absolute(item.podcast?.chapters?.url, feedUrl);
    const html = item.description ?? item.content?.encoded ?? item.itunes?.summary ?? '';
    const description = htmlToText(html);
    const persons = item.podcast?.persons ?? feed.podcast?.persons ?? [];
    const keywords = [...(item.itunes?.keywords ?? []), ...(item.categories ?? []).map((c: { name?: string }) => c.name ?? '')];
    const record = episodeRecord({
      id,
      channelId,
      title: label,
      description: description || null,
      summary: summaryOf(description),
      link: httpUrl(item.link),
      thumbnail: httpUrl(item.itunes?.image),
      mediaUrl: enclosureUrl,
      // As the importer reads it: a negative, infinite or absurd duration (`-5`) is no duration, not a refused item.
      durationMs: durationOf(item.itunes?.duration),
      publishedAt: date,
      viewCount: null,
      personIds: people.ids(persons.map((p: { display?: string }) => p.display ?? '')),
      topicIds: topics.ids(keywords),
      transcript: null,
      chapters: [],
    });
    // What ingest would refuse is skipped with its reason here, as the importer does: thrown by the poll's write, it
    // stopped the poll and every item after it (security review 2026-11-27, item 13).
    const refused = ingestProblem({ ...record, status: 'pending' });
    if (refused) {
      out.skipped.push({ item: label, reason: refused });
      continue;
    }
    out.items.push({
      record: { ...record, status: 'pending' },
      source: { key, enclosureUrl, transcripts, chaptersUrl, notes: html || null, publishedAt: date, digest: sourceDigest(enclosureUrl, transcripts, chaptersUrl) },
    });
  }
  out.people = people.records();
  out.topics = topics.records();
  return out;
}

/** A yt-dlp download folder re-read with the importer: its records are final (captions beside the videos, nothing fetched). */
export async function ytdlpSnapshot(dir: string, { slug }: { slug: string }): Promise<SourceSnapshot> {
  const imported: ImportedChannel = await importYtdlpFolder(dir, { slug });
  return {
    channel: { title: imported.channel.title, description: null, language: null, artwork: null, providerType: 'youtube' },
    items: imported.episodes.map((record) => ({
      record,
      source: { key: record.id, enclosureUrl: null, transcripts: [], chaptersUrl: null, notes: null, digest: stableHash(JSON.stringify(record)) },
    })),
    people: imported.people,
    topics: imported.topics,
    skipped: imported.items.filter((i) => i.outcome === 'skipped').map((i) => ({ item: i.item, reason: i.notes.join('; ') })),
  };
}
