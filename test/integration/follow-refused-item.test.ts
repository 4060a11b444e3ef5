// A feed item that ingest would refuse is skipped with its reason, and the poll goes on with the items after it,
// through `npm run follow` against the real OpenSearch and Redis (security review 2026-11-27, item 13).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow } from '../support/follow-env.js';

describe('follow: an item ingest would refuse', function () {
  this.timeout(120_000);
  let client: Client;
  let aliases: IndexAliases;
  let libraryDir: string;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;

  before(async function () {
    ({ client, libraryDir, env, aliases, drop } = await openFollowStore('follow-refused-item'));
    feed = await startFeedServer({
      title: 'Odd show',
      items: [
        // Newest first in the feed: the refused item comes before the others.
        { guid: 'far', title: 'From the far future', pubDate: new Date(Date.UTC(20000, 0, 1)) },
        { guid: 'neg', title: 'Negative length', pubDate: new Date(Date.UTC(2026, 1, 2)), durationSeconds: -5 },
        { guid: 'ok', title: 'Plain', pubDate: new Date(Date.UTC(2026, 1, 1)), durationSeconds: 60 },
      ],
    });
  });

  after(async function () {
    await feed?.close();
    await drop?.();
  });

  it('skips it with the reason ingest gives, keeps a negative duration as none, and adds the other items', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'odd', '--owner', 'u_creator'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/; 2 new,/);
    expect(run.stdout).to.contain('skipped From the far future: not imported: /publishedAt must match format "date-time"');
    const files = await readdir(join(libraryDir, 'odd', 'episodes'));
    const records = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(join(libraryDir, 'odd', 'episodes', f), 'utf8')) as { title: string; durationMs: number | null }),
    );
    expect(records.map((r) => [r.title, r.durationMs]).sort()).to.deep.equal([
      ['Negative length', null],
      ['Plain', 60_000],
    ]);
    await client.indices.refresh({ index: aliases.episodes });
    const res = await client.search({ index: aliases.episodes, body: { size: 10, query: { term: { channelId: 'ch_odd' } } } } as never);
    expect((res.body as { hits: { hits: { _source: { title: string } }[] } }).hits.hits.map((h) => h._source.title).sort()).to.deep.equal(['Negative length', 'Plain']);
  });
});
