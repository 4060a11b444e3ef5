// A podcast RSS feed (Podcasting 2.0 namespace) → one channel and its episodes. feedsmith parses the feed; this
// module only maps: transcripts and chapters the items point at, persons, soundbites, keywords, duration.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseRssFeed } from 'feedsmith';
import PQueue from 'p-queue';
import { addSoundbites, jsonChapters } from './chapters.js';
import { episodeEnd, episodeRecord, FacetNames, httpUrl, summaryOf, transcriptRecord, type ImportedChannel, type ItemReport } from './model.js';
import { parseChaptersText, parseTranscriptText, readSource } from './sources.js';
import { cleanText, htmlToText, ImportProblem, primaryLanguage, slugify, stableHash, type DraftTranscript } from './text.js';

export interface FeedOptions {
  /** The channel's slug; derived from the feed's title when absent. */
  slug?: string;
  /** Fetch absolute http(s) transcript and chapter URLs. */
  fetch: boolean;
  /** Called as each item's files have been read (progress). */
  onItem?: (done: number, total: number) => void;
}

/** Items whose files are fetched at once with --fetch. */
const FETCH_CONCURRENCY = 4;

type Feed = ReturnType<typeof parseRssFeed>;
type Item = NonNullable<Feed['items']>[number];
type FeedTranscript = NonNullable<NonNullable<Item['podcast']>['transcripts']>[number];

/**
 * The item's transcripts in the feed's language (or with none named; all of them when none is), each read and
 * parsed; the best is the one with the source's own word times, then one timed by cue (captions first) before an
 * HTML transcript, whose times mark only where monologues start.
 */
async function bestTranscript(
  item: Item,
  feed: { language?: string | undefined; durationMs: number | null; baseDir: string; fetch: boolean },
  notes: string[],
): Promise<DraftTranscript | undefined> {
  const all: FeedTranscript[] = item.podcast?.transcripts ?? [];
  const want = primaryLanguage(feed.language);
  const mine = all.filter((t: FeedTranscript) => !want || !t.language || primaryLanguage(t.language) === want);
  const drafts: { draft: DraftTranscript; captions: boolean }[] = [];
  for (const t of mine.length > 0 ? mine : all) {
    try {
      const { text, name } = await readSource(t.url, { baseDir: feed.baseDir, fetch: feed.fetch });
      drafts.push({ draft: await parseTranscriptText(text, name, feed.durationMs), captions: t.rel === 'captions' });
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : `${t.url}: ${(err as Error).message}`);
    }
  }
  const rank = (d: { draft: DraftTranscript; captions: boolean }) => (d.draft.timing === 'source' ? 4 : 0) + (d.draft.format === 'html' ? 0 : 2) + (d.captions ? 1 : 0);
  return drafts.sort((a, b) => rank(b) - rank(a))[0]?.draft;
}

function publishedAt(item: Item): string | undefined {
  const date = item.pubDate ? new Date(item.pubDate) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** An item with its files read, or the reason it is skipped. */
type ItemDraft =
  | { label: string; skip: string }
  | { label: string; item: Item; id: string; date: string; durationMs: number | null; draft?: DraftTranscript; chapters: ReturnType<typeof jsonChapters>; notes: string[] };

/** Reads what one item points at: its transcripts (the best kept), its chapters and soundbites. */
async function readItem(item: Item, index: number, feed: { slug: string; feedKey: string; language?: string | undefined; baseDir: string; fetch: boolean }): Promise<ItemDraft> {
  const label = cleanText(item.title ?? '') || `item ${index + 1}`;
  const guid = item.guid?.value ?? item.enclosures?.[0]?.url ?? item.link;
  if (!guid) return { label, skip: 'no guid, enclosure or link to identify it' };
  const date = publishedAt(item);
  if (!date) return { label, skip: `no valid pubDate (${item.pubDate ?? 'missing'})` };
  const notes: string[] = [];
  const durationMs = typeof item.itunes?.duration === 'number' ? Math.round(item.itunes.duration * 1000) : null;
  const draft = await bestTranscript(item, { ...feed, durationMs }, notes);
  let chapters: ReturnType<typeof jsonChapters> = [];
  if (item.podcast?.chapters?.url) {
    try {
      const { text, name } = await readSource(item.podcast.chapters.url, { baseDir: feed.baseDir, fetch: feed.fetch });
      chapters = jsonChapters(parseChaptersText(text, name), episodeEnd(durationMs, draft));
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : (err as Error).message);
    }
  }
  const { dropped } = addSoundbites(chapters, item.podcast?.soundbites ?? [], draft?.segments ?? []);
  if (dropped > 0) notes.push(`${dropped} soundbite(s) left out: no chapter holds them`);
  if (!draft) notes.push('imported without a transcript');
  return { label, item, id: `ep_${feed.slug}_${stableHash(feed.feedKey, guid)}`, date, durationMs, ...(draft ? { draft } : {}), chapters, notes };
}

/** Reads and maps one feed file. A feed that cannot be parsed is an ImportProblem; a bad item is only skipped. */
export async function importFeed(file: string, opts: FeedOptions): Promise<ImportedChannel> {
  const xml = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new ImportProblem(file, err.code === 'ENOENT' ? 'file not found' : err.message);
  });
  let feed: Feed;
  try {
    feed = parseRssFeed(xml);
  } catch (err) {
    throw new ImportProblem(file, `not an RSS feed (${(err as Error).message})`);
  }
  const title = cleanText(feed.title ?? '') || cleanText(feed.itunes?.title ?? '');
  if (!title) throw new ImportProblem(file, 'the feed has no title');
  const slug = opts.slug ?? slugify(title);
  const channelId = `ch_${slug}`;
  // The feed's own identity: podcast:guid, else its link, else its title.
  const feedKey = feed.podcast?.guid ?? feed.link ?? title;
  const baseDir = dirname(file);
  const people = new FacetNames('p');
  const topics = new FacetNames('t');
  const out: ImportedChannel = { channel: { id: channelId, slug, title, providerType: 'rss' }, episodes: [], people: [], topics: [], items: [], warnings: [] };

  // Reading an item's files may mean fetching them: a few items at a time. Records are built afterwards, in the
  // feed's order, so the same feed always gives the same ids and bytes.
  const items: Item[] = feed.items ?? [];
  const queue = new PQueue({ concurrency: opts.fetch ? FETCH_CONCURRENCY : 1 });
  let read = 0;
  const drafts = await Promise.all(
    items.map((item, index) =>
      queue.add(async () => {
        const draft = await readItem(item, index, { slug, feedKey, language: feed.language, baseDir, fetch: opts.fetch });
        opts.onItem?.(++read, items.length);
        return draft;
      }),
    ),
  );
  for (const d of drafts) {
    if ('skip' in d) {
      out.items.push({ item: d.label, outcome: 'skipped', notes: [d.skip] } satisfies ItemReport);
      continue;
    }
    const { item, notes, draft } = d;
    const description = htmlToText(item.description ?? item.content?.encoded ?? item.itunes?.summary ?? '');
    // An item's persons replace the channel's (Podcasting 2.0).
    const persons = item.podcast?.persons ?? feed.podcast?.persons ?? [];
    const keywords = [...(item.itunes?.keywords ?? []), ...(item.categories ?? []).map((c: { name?: string }) => c.name ?? '')];
    out.episodes.push(
      episodeRecord({
        id: d.id,
        channelId,
        title: d.label,
        description: description || null,
        summary: summaryOf(description),
        link: httpUrl(item.link),
        thumbnail: httpUrl(item.itunes?.image),
        mediaUrl: httpUrl(item.enclosures?.[0]?.url),
        durationMs: d.durationMs,
        publishedAt: d.date,
        viewCount: null,
        personIds: people.ids(persons.map((p: { display?: string }) => p.display ?? '')),
        topicIds: topics.ids(keywords),
        transcript: draft ? transcriptRecord(draft) : null,
        chapters: d.chapters,
      }),
    );
    out.items.push({ item: d.id, outcome: 'imported', notes });
  }
  out.people = people.records();
  out.topics = topics.records();
  return out;
}
