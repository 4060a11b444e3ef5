// A channel imported (`npm run import`, `npm run ingest`), then followed (`npm run follow`) from the same feed on
// loopback, against the real OpenSearch and Redis: items without a guid, enclosure URLs with a rotating query and
// with the file named in the query, an item with only a link. Every episode is held once, under the id the import
// gave it, and so are those of a library the old importer wrote (whose key kept the whole enclosure URL).
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { episodeIdOf } from '../../importer/item-identity.js';
import { runScript } from '../../scripts/lib/child.js';
import { feedXml, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, type FollowStore } from '../support/follow-env.js';

const TITLE = 'Imported then followed';
const day = (d: number) => new Date(Date.UTC(2026, 0, d, 10));

/** The feed's items; `updated` is the tracking parameter its host changes between fetches. */
const itemsAt = (updated: number): FeedServerItem[] => [
  { guid: 'g-1', title: 'With a guid', pubDate: day(1), enclosure: '/audio/1.mp3' },
  { guid: 'plain', withoutGuid: true, title: 'Plain file', pubDate: day(2), enclosure: '/audio/plain.mp3' },
  { guid: 'tracked', withoutGuid: true, title: 'Tracked file', pubDate: day(3), enclosure: `/audio/tracked.mp3?updated=${updated}&utm_source=rss` },
  { guid: 'named-1', withoutGuid: true, title: 'Named in the query, one', pubDate: day(4), enclosure: '/download.php?id=1' },
  { guid: 'named-2', withoutGuid: true, title: 'Named in the query, two', pubDate: day(5), enclosure: '/download.php?id=2' },
  { guid: 'link', withoutGuid: true, title: 'Only a link', pubDate: day(6), link: 'https://show.example/episodes/7' },
];

describe('follow: a channel imported first, then followed from its feed', function () {
  this.timeout(240_000);
  let store: FollowStore;
  /** The feed files and the library they are imported into. */
  let work: string;
  const feeds: Record<string, FeedServer> = {};
  /** The ids of each channel's episode files, as the library held them before the follow. */
  const libraryIds: Record<string, string[]> = {};
  /** The id the old importer gave the tracked item of `older`. */
  let oldTrackedId = '';

  const storedEpisodes = async (slug: string) => {
    await store.client.indices.refresh({ index: store.aliases.episodes });
    const res = await store.client.search({
      index: store.aliases.episodes,
      body: { query: { term: { channelId: `ch_${slug}` } }, size: 100, _source: ['id', 'title'] },
    } as never);
    return (res.body as { hits: { hits: { _source: { id: string; title: string } }[] } }).hits.hits.map((h) => h._source);
  };
  const followedIds = async (slug: string) => Object.keys((JSON.parse(await readFile(join(store.libraryDir, slug, 'follow.json'), 'utf8')) as { items: object }).items);

  before(async function () {
    store = await openFollowStore('follow-imported');
    work = await mkdtemp(join(tmpdir(), 'follow-imported-'));
    const lib = join(work, 'library');
    const env = { ...process.env, ...store.env };
    for (const slug of ['fresh', 'older']) {
      // The host serves the feed with the tracking parameter at 2; the import read it when it was 1.
      feeds[slug] = await startFeedServer({ title: TITLE, items: itemsAt(2) });
      const file = join(work, `${slug}.xml`);
      await writeFile(file, feedXml({ title: TITLE, language: 'en', base: feeds[slug].url, items: itemsAt(1) }));
      const imported = runScript('bin/import.ts', [file, '--out', lib, '--channel', slug, '--owner', 'u_creator'], env);
      expect(await imported.exited, imported.stderr()).to.equal(0);
    }
    // `older` as the importer before one identity wrote it: the same records, the guid-less tracked item under the id
    // of its whole enclosure URL.
    const episodesDir = join(lib, 'episodes');
    for (const name of await readdir(episodesDir)) {
      const record = JSON.parse(await readFile(join(episodesDir, name), 'utf8')) as EpisodeRecord;
      if (record.channelId !== 'ch_older' || record.title !== 'Tracked file') continue;
      const oldId = episodeIdOf('older', `${feeds.older!.url}/`, record.mediaUrl!);
      oldTrackedId = oldId;
      if (oldId === record.id) continue;
      await rename(join(episodesDir, name), join(episodesDir, `${oldId}.json`));
      await writeFile(join(episodesDir, `${oldId}.json`), JSON.stringify({ ...record, id: oldId }, null, 2) + '\n');
    }
    for (const name of await readdir(episodesDir)) {
      const record = JSON.parse(await readFile(join(episodesDir, name), 'utf8')) as EpisodeRecord;
      (libraryIds[record.channelId.slice(3)] ??= []).push(record.id);
    }
    const ingest = runScript('bin/ingest.ts', [lib, '--direct'], env);
    expect(await ingest.exited, ingest.stderr()).to.equal(0);
    for (const slug of ['fresh', 'older']) expect((await storedEpisodes(slug)).map((e) => e.id)).to.have.members(libraryIds[slug]!);
  });

  after(async function () {
    for (const feed of Object.values(feeds)) await feed.close();
    await store?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const slug of ['fresh', 'older']) {
    it(`keeps every episode of ${slug === 'fresh' ? 'a library the importer wrote' : 'a library the old importer wrote'} once, under its id, when the channel is followed`, async function () {
      const run = await runFollow([feeds[slug]!.feedUrl, '--channel', slug, '--owner', 'u_creator'], store.env);
      expect(run.code, run.stderr).to.equal(0);
      const stored = await storedEpisodes(slug);
      expect(stored.map((e) => e.title)).to.have.members(itemsAt(0).map((i) => i.title));
      expect(stored.map((e) => e.id)).to.have.members(libraryIds[slug]!);
      expect(await followedIds(slug)).to.have.members(libraryIds[slug]!);
      if (slug === 'older') expect(libraryIds.older).to.include(oldTrackedId);
    });
  }

  it('keeps them once when the host changes the tracking parameter again and the feed is polled', async function () {
    const feed = feeds.fresh!;
    feed.removeItem('tracked');
    feed.addItem(itemsAt(3)[2]!);
    const run = await runFollow(['--poll', 'fresh'], store.env);
    expect(run.code, run.stderr).to.equal(0);
    expect(feed.requests.filter((r) => r.path === '/feed.xml' && r.status === 200)).to.have.length(2);
    expect((await storedEpisodes('fresh')).map((e) => e.id)).to.have.members(libraryIds.fresh!);
    expect(await followedIds('fresh')).to.have.members(libraryIds.fresh!);
  });
});
