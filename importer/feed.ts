// A podcast RSS feed (Podcasting 2.0 namespace) → one channel and its episodes. feedsmith parses the feed and
// map-feed.ts maps it (the follower's mapping too); this module reads what the items point at: transcripts (the best
// kept), chapters and soundbites.
import { basename, dirname } from 'node:path';
import { parseRssFeed } from 'feedsmith';
import PQueue from 'p-queue';
import { addSoundbites, jsonChapters, showNoteChapters } from './chapters.js';
import type { ChapterRecord, EpisodeRecord } from '../core/contract/library-format.js';
import { keepHeldIds, type HeldEpisode } from './item-identity.js';
import { mapFeed, type Feed, type Item, type MappedItem, type TranscriptSource } from './map-feed.js';
import { episodeEnd, ingestProblem, transcriptRecord, type ImportedChannel, type ItemReport } from './model.js';
import { FEED_MAX_BYTES } from '../core/ground/outbound/safe-fetch.js';
import { parseChaptersText, parseTranscriptText, readConfinedText, readSource, type OutboundOptions } from './sources.js';
import { ImportProblem, primaryLanguage, type DraftTranscript } from './text.js';

export interface FeedOptions {
  /** The channel's slug; derived from the feed's title when absent. */
  slug?: string;
  /** Fetch absolute http(s) transcript and chapter URLs. */
  fetch: boolean;
  /** Outbound rules when fetching (address rule, User-Agent); default: private addresses refused. */
  outbound?: OutboundOptions;
  /** Called as each item's files have been read (progress). */
  onItem?: (done: number, total: number) => void;
  /**
   * The episodes the library already holds for the channel: an item an earlier importer keyed otherwise keeps the id
   * it was written under (keepHeldIds). Without it every item gets the id of its key.
   */
  held?: (channelId: string) => Promise<readonly HeldEpisode[]>;
}

/** Items whose files are fetched at once with --fetch. */
const FETCH_CONCURRENCY = 4;

/**
 * The item's transcripts in the feed's language (or with none named; all of them when none is), each read and
 * parsed; the best is the one with the source's own word times, then one timed by cue (captions first) before an
 * HTML transcript, whose times mark only where monologues start.
 */
async function bestTranscript(
  all: readonly TranscriptSource[],
  feed: { language?: string | undefined; durationMs: number | null; baseDir: string; fetch: boolean; outbound?: OutboundOptions | undefined },
  notes: string[],
): Promise<DraftTranscript | undefined> {
  const want = primaryLanguage(feed.language);
  const mine = all.filter((t) => !want || !t.language || primaryLanguage(t.language) === want);
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

/** One mapped item as the importer makes it: an episode record, or only the report saying why not. */
export interface ItemResult {
  report: ItemReport;
  episode?: EpisodeRecord;
}

/**
 * One mapped item → its episode record: its transcripts read (the best kept), its chapters from a JSON chapters
 * file, else from timestamps in its show notes, its soundbites. A record ingest would refuse (EPISODE_LIMITS) gives
 * no episode and a report saying why.
 */
export async function itemRecord(
  mapped: MappedItem,
  item: Item,
  ctx: { language?: string | undefined; baseDir: string; fetch: boolean; outbound?: OutboundOptions | undefined },
): Promise<ItemResult> {
  const { record, sources } = mapped;
  const notes = [...mapped.notes];
  const draft = await bestTranscript(sources.transcripts, { ...ctx, durationMs: record.durationMs ?? null }, notes);
  const end = episodeEnd(record.durationMs ?? null, draft);
  let chapters: ChapterRecord[] = [];
  if (sources.chaptersUrl) {
    try {
      const { text, name } = await readSource(sources.chaptersUrl, { baseDir: ctx.baseDir, fetch: ctx.fetch, outbound: ctx.outbound });
      chapters = jsonChapters(parseChaptersText(text, name), end);
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : (err as Error).message);
    }
  }
  if (chapters.length === 0 && sources.notes) {
    const fromNotes = showNoteChapters(sources.notes, end);
    chapters = fromNotes.chapters;
    if (fromNotes.warning) notes.push(fromNotes.warning.replace('description timestamps', 'show-note timestamps'));
  }
  const { dropped } = addSoundbites(chapters, item.podcast?.soundbites ?? [], draft?.segments ?? []);
  if (dropped > 0) notes.push(`${dropped} soundbite(s) left out: no chapter holds them`);
  if (!draft) notes.push('imported without a transcript');
  const episode: EpisodeRecord = { ...record, transcript: draft ? transcriptRecord(draft) : null, chapters };
  const refused = ingestProblem(episode);
  if (refused) return { report: { item: record.id, outcome: 'skipped', notes: [refused, ...notes] } };
  return { report: { item: record.id, outcome: 'imported', notes }, episode };
}

/** A feed's text parsed; one that is not RSS is an ImportProblem naming `file`. */
export function parseFeed(xml: string, file: string): Feed {
  try {
    return parseRssFeed(xml);
  } catch (err) {
    throw new ImportProblem(file, `not an RSS feed (${(err as Error).message})`);
  }
}

/** Reads and maps one feed file. A feed that cannot be parsed is an ImportProblem; a bad item is only skipped. */
export async function importFeed(file: string, opts: FeedOptions): Promise<ImportedChannel> {
  const xml = await readConfinedText(dirname(file), basename(file), { maxBytes: FEED_MAX_BYTES });
  const feed = parseFeed(xml, file);
  const mapped = mapFeed(feed, { source: file, slug: opts.slug });
  const { held } = opts;
  const items = held ? await keepHeldIds(mapped.items, () => held(mapped.channel.id)) : mapped.items;
  const { id, slug, title, providerType, source } = mapped.channel;
  const feedItems: Item[] = feed.items ?? [];
  const ctx = { language: mapped.channel.language ?? undefined, baseDir: dirname(file), fetch: opts.fetch, outbound: opts.outbound };

  // Reading an item's files may mean fetching them: a few items at a time. Results are kept in the feed's order,
  // and facet ids come from names, so the same feed always gives the same ids and bytes.
  const queue = new PQueue({ concurrency: opts.fetch ? FETCH_CONCURRENCY : 1 });
  let read = 0;
  const results = await Promise.all(
    items.map((item) =>
      queue.add(async () => {
        const result = await itemRecord(item, feedItems[item.index]!, ctx);
        opts.onItem?.(++read, items.length);
        return { index: item.index, ...result };
      }),
    ),
  );
  const skipped = mapped.skipped.map(({ index, item, reason }) => ({ index, report: { item, outcome: 'skipped' as const, notes: [reason] } }));
  const reports = [...results, ...skipped].sort((a, b) => a.index - b.index);
  return {
    channel: { id, slug, title, providerType, source },
    episodes: results.flatMap((r) => (r.episode ? [r.episode] : [])),
    people: mapped.people,
    topics: mapped.topics,
    items: reports.map((r) => r.report),
    warnings: [],
  };
}
