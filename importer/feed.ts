// A podcast RSS feed (Podcasting 2.0 namespace) → one channel and its episodes. feedsmith parses the feed; this
// module only maps: transcripts and chapters the items point at, persons, soundbites, keywords, duration.
import { basename, dirname } from 'node:path';
import { parseRssFeed } from 'feedsmith';
import PQueue from 'p-queue';
import { addSoundbites, jsonChapters, showNoteChapters } from './chapters.js';
import type { ChannelSourceRecord, ChapterRecord, EpisodeRecord } from '../core/contract/library-format.js';
import {
  durationOf,
  episodeEnd,
  episodeRecord,
  FacetNames,
  httpUrl,
  ingestProblem,
  summaryOf,
  transcriptRecord,
  type ImportedChannel,
  type ImportedChannelInfo,
  type ItemReport,
} from './model.js';
import { FEED_MAX_BYTES } from '../core/ground/outbound/safe-fetch.js';
import { parseChaptersText, parseTranscriptText, readConfinedText, readSource, type OutboundOptions } from './sources.js';
import { cleanText, htmlToText, ImportProblem, primaryLanguage, slugify, stableHash, type DraftTranscript } from './text.js';

export interface FeedOptions {
  /** The channel's slug; derived from the feed's title when absent. */
  slug?: string;
  /** Fetch absolute http(s) transcript and chapter URLs. */
  fetch: boolean;
  /** Outbound rules when fetching (address rule, User-Agent); default: private addresses refused. */
  outbound?: OutboundOptions;
  /** Called as each item's files have been read (progress). */
  onItem?: (done: number, total: number) => void;
}

/** Items whose files are fetched at once with --fetch. */
const FETCH_CONCURRENCY = 4;

/** A parsed RSS feed (feedsmith). */
export type Feed = ReturnType<typeof parseRssFeed>;
/** One item of a parsed feed. */
export type Item = NonNullable<Feed['items']>[number];
type FeedTranscript = NonNullable<NonNullable<Item['podcast']>['transcripts']>[number];

/**
 * The item's transcripts in the feed's language (or with none named; all of them when none is), each read and
 * parsed; the best is the one with the source's own word times, then one timed by cue (captions first) before an
 * HTML transcript, whose times mark only where monologues start.
 */
async function bestTranscript(
  item: Item,
  feed: { language?: string | undefined; durationMs: number | null; baseDir: string; fetch: boolean; outbound?: OutboundOptions | undefined },
  notes: string[],
): Promise<DraftTranscript | undefined> {
  const all: FeedTranscript[] = item.podcast?.transcripts ?? [];
  const want = primaryLanguage(feed.language);
  const mine = all.filter((t: FeedTranscript) => !want || !t.language || primaryLanguage(t.language) === want);
  const drafts: { draft: DraftTranscript; captions: boolean }[] = [];
  for (const t of mine.length > 0 ? mine : all) {
    try {
      const { text, name } = await readSource(t.url, { baseDir: feed.baseDir, fetch: feed.fetch, outbound: feed.outbound });
      drafts.push({ draft: await parseTranscriptText(text, name, feed.durationMs), captions: t.rel === 'captions' });
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : `${t.url}: ${(err as Error).message}`);
    }
  }
  return bestDraft(drafts);
}

/**
 * The best of an item's parsed transcripts: the source's own word times first, then one timed by cue (captions
 * before other cues) before an HTML transcript, whose times mark only where monologues start.
 */
export function bestDraft(drafts: readonly { draft: DraftTranscript; captions: boolean }[]): DraftTranscript | undefined {
  const rank = (d: { draft: DraftTranscript; captions: boolean }) => (d.draft.timing === 'source' ? 4 : 0) + (d.draft.format === 'html' ? 0 : 2) + (d.captions ? 1 : 0);
  return [...drafts].sort((a, b) => rank(b) - rank(a))[0]?.draft;
}

function publishedAt(item: Item): string | undefined {
  const date = item.pubDate ? new Date(item.pubDate) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** What every item of one feed shares: the channel it belongs to, where its files are, and the facet registries. */
export interface FeedContext {
  channelId: string;
  slug: string;
  /** The feed's own identity (podcast:guid, else its link, else its title): item ids are hashed with it. */
  feedKey: string;
  language?: string | undefined;
  /** Folder that relative transcript and chapter URLs resolve against (the feed file's). */
  baseDir: string;
  /** Fetch absolute http(s) transcript and chapter URLs. */
  fetch: boolean;
  outbound?: OutboundOptions | undefined;
  /** The channel's `podcast:person` list: an item's own list replaces it. */
  channelPersons: { display?: string }[];
  people: FacetNames;
  topics: FacetNames;
}

/** One item as the importer (or a feed follower) makes it: an episode record, or only the report saying why not. */
export interface ItemResult {
  report: ItemReport;
  episode?: EpisodeRecord;
}

/** The item's description as plain text, and the HTML it came from (show notes, where chapters may be listed). */
function itemDescription(item: Item): { html: string; text: string } {
  const html = item.description ?? item.content?.encoded ?? item.itunes?.summary ?? '';
  return { html, text: htmlToText(html) };
}

/**
 * One feed item → one episode record: its transcripts read (the best kept), its chapters from a JSON chapters
 * file, else from timestamps in its show notes, its soundbites, persons and keywords. An item without an identity
 * or a date, or whose record ingest would refuse (EPISODE_LIMITS), gives no episode and a report saying why.
 * `index` only names an untitled item in the report.
 */
export async function itemRecord(item: Item, ctx: FeedContext, { index = 0 }: { index?: number } = {}): Promise<ItemResult> {
  const label = cleanText(item.title ?? '') || `item ${index + 1}`;
  const skip = (reason: string): ItemResult => ({ report: { item: label, outcome: 'skipped', notes: [reason] } });
  const guid = item.guid?.value ?? item.enclosures?.[0]?.url ?? item.link;
  if (!guid) return skip('no guid, enclosure or link to identify it');
  const date = publishedAt(item);
  if (!date) return skip(`no valid pubDate (${item.pubDate ?? 'missing'})`);
  const notes: string[] = [];
  const rawDuration: unknown = item.itunes?.duration;
  const durationMs = durationOf(typeof rawDuration === 'number' ? rawDuration : null);
  if (rawDuration !== undefined && durationMs === null) notes.push(`itunes:duration ${String(rawDuration)} is not a duration: left out`);
  const draft = await bestTranscript(item, { ...ctx, durationMs }, notes);
  const end = episodeEnd(durationMs, draft);
  const description = itemDescription(item);
  let chapters: ChapterRecord[] = [];
  if (item.podcast?.chapters?.url) {
    try {
      const { text, name } = await readSource(item.podcast.chapters.url, { baseDir: ctx.baseDir, fetch: ctx.fetch, outbound: ctx.outbound });
      chapters = jsonChapters(parseChaptersText(text, name), end);
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : (err as Error).message);
    }
  }
  if (chapters.length === 0 && description.html) {
    const fromNotes = showNoteChapters(description.html, end);
    chapters = fromNotes.chapters;
    if (fromNotes.warning) notes.push(fromNotes.warning.replace('description timestamps', 'show-note timestamps'));
  }
  const { dropped } = addSoundbites(chapters, item.podcast?.soundbites ?? [], draft?.segments ?? []);
  if (dropped > 0) notes.push(`${dropped} soundbite(s) left out: no chapter holds them`);
  if (!draft) notes.push('imported without a transcript');
  const id = `ep_${ctx.slug}_${stableHash(ctx.feedKey, guid)}`;
  // An item's persons replace the channel's (Podcasting 2.0).
  const persons = item.podcast?.persons ?? ctx.channelPersons;
  const keywords = [...(item.itunes?.keywords ?? []), ...(item.categories ?? []).map((c: { name?: string }) => c.name ?? '')];
  const episode = episodeRecord({
    id,
    channelId: ctx.channelId,
    title: label,
    description: description.text || null,
    summary: summaryOf(description.text),
    link: httpUrl(item.link),
    thumbnail: httpUrl(item.itunes?.image),
    mediaUrl: httpUrl(item.enclosures?.[0]?.url),
    durationMs,
    publishedAt: date,
    viewCount: null,
    personIds: ctx.people.ids(persons.map((p: { display?: string }) => p.display ?? '')),
    topicIds: ctx.topics.ids(keywords),
    transcript: draft ? transcriptRecord(draft) : null,
    chapters,
  });
  const refused = ingestProblem(episode);
  if (refused) return { report: { item: id, outcome: 'skipped', notes: [refused, ...notes] } };
  return { report: { item: id, outcome: 'imported', notes }, episode };
}

/** A feed's text parsed; one that is not RSS is an ImportProblem naming `file`. */
export function parseFeed(xml: string, file: string): Feed {
  try {
    return parseRssFeed(xml);
  } catch (err) {
    throw new ImportProblem(file, `not an RSS feed (${(err as Error).message})`);
  }
}

/**
 * The channel a parsed feed describes and the context its items are built in. The source identity is the feed's
 * `podcast:guid`, else its link, else its title.
 */
export function feedChannel(
  feed: Feed,
  opts: { file: string; slug?: string | undefined; fetch: boolean; outbound?: OutboundOptions | undefined },
): { channel: ImportedChannelInfo; context: FeedContext } {
  const title = cleanText(feed.title ?? '') || cleanText(feed.itunes?.title ?? '');
  if (!title) throw new ImportProblem(opts.file, 'the feed has no title');
  const slug = opts.slug ?? slugify(title);
  const channelId = `ch_${slug}`;
  const link = httpUrl(feed.link);
  const guid = cleanText(feed.podcast?.guid ?? '');
  // The feed's own identity: podcast:guid, else its link, else its title.
  const feedKey = feed.podcast?.guid ?? feed.link ?? title;
  const source: ChannelSourceRecord = { kind: 'rss', id: guid ? `podcast:guid:${guid}` : link ? link : `title:${title}`, url: link };
  return {
    channel: { id: channelId, slug, title, providerType: 'rss', source },
    context: {
      channelId,
      slug,
      feedKey,
      language: feed.language,
      baseDir: dirname(opts.file),
      fetch: opts.fetch,
      outbound: opts.outbound,
      channelPersons: feed.podcast?.persons ?? [],
      people: new FacetNames('p'),
      topics: new FacetNames('t'),
    },
  };
}

/** Reads and maps one feed file. A feed that cannot be parsed is an ImportProblem; a bad item is only skipped. */
export async function importFeed(file: string, opts: FeedOptions): Promise<ImportedChannel> {
  const xml = await readConfinedText(dirname(file), basename(file), { maxBytes: FEED_MAX_BYTES });
  const feed = parseFeed(xml, file);
  const { channel, context } = feedChannel(feed, { file, slug: opts.slug, fetch: opts.fetch, outbound: opts.outbound });
  const out: ImportedChannel = { channel, episodes: [], people: [], topics: [], items: [], warnings: [] };

  // Reading an item's files may mean fetching them: a few items at a time. Results are kept in the feed's order,
  // and facet ids come from names, so the same feed always gives the same ids and bytes.
  const items: Item[] = feed.items ?? [];
  const queue = new PQueue({ concurrency: opts.fetch ? FETCH_CONCURRENCY : 1 });
  let read = 0;
  const results = await Promise.all(
    items.map((item, index) =>
      queue.add(async () => {
        const result = await itemRecord(item, context, { index });
        opts.onItem?.(++read, items.length);
        return result;
      }),
    ),
  );
  for (const { report, episode } of results) {
    out.items.push(report);
    if (episode) out.episodes.push(episode);
  }
  out.people = context.people.records();
  out.topics = context.topics.records();
  return out;
}
