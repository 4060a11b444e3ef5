// A takedown holds: an episode archived by hand stays archived, in its library file and in the real store, when the
// next `npm run follow -- --poll` finds its item still in the feed and changed (security review 2026-11-27, item 12).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { saveEpisode } from '../../pipeline/follow/library.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow } from '../support/follow-env.js';

describe('follow: an episode archived by hand', function () {
  this.timeout(120_000);
  let client: Client;
  let aliases: IndexAliases;
  let libraryDir: string;
  let embeddings: HashEmbeddingsServer;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;

  before(async function () {
    ({ client, libraryDir, embeddings, env, aliases, drop } = await openFollowStore('follow-takedown'));
    feed = await startFeedServer({ title: 'Takedown show', items: [{ guid: 'a', title: 'Said too much', pubDate: new Date(Date.UTC(2026, 1, 1)) }] });
  });

  after(async function () {
    await feed?.close();
    await drop?.();
  });

  it('stays archived, in the library and the store, when the next poll finds its item retitled', async function () {
    const first = await runFollow([feed.feedUrl, '--channel', 'takedown', '--owner', 'u_creator'], env);
    expect(first.code, first.stderr).to.equal(0);
    const dir = join(libraryDir, 'takedown');
    const [file] = await readdir(join(dir, 'episodes'));
    const path = join(dir, 'episodes', file!);
    const record = JSON.parse(await readFile(path, 'utf8')) as EpisodeRecord;
    // The creator's takedown: the library file says archived, and the store is told, as an edit plus ingest does.
    await saveEpisode(dir, { ...record, status: 'archived' }, { client, embedder: embeddings.embedder(), aliases });

    feed.removeItem('a');
    feed.addItem({ guid: 'a', title: 'Said too much (full version)', pubDate: new Date(Date.UTC(2026, 1, 1)) });
    const poll = await runFollow(['--poll', 'takedown'], env);
    expect(poll.code, poll.stderr).to.equal(0);
    expect(poll.stdout).to.match(/0 new, 0 updated, 0 to process again/);

    const after = JSON.parse(await readFile(path, 'utf8')) as EpisodeRecord;
    expect(after).to.include({ status: 'archived', title: 'Said too much' });
    await client.indices.refresh({ index: aliases.episodes });
    const row = await client.get({ index: aliases.episodes, id: record.id } as never, { ignore: [404] });
    const source = (row.body as { _source?: { status: string } })._source;
    // Archiving is a deletion for every reader: the row is gone or says archived, never published or pending.
    expect(source?.status ?? 'absent').to.be.oneOf(['archived', 'absent']);
  });
});
