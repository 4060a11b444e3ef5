// A poll fetches its feed without the channel's lock: while a slow feed answers, the channel's other writers (an
// import, a processing job, an enrichment run) go on; what the poll read is then written under the lock in one go.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { LibraryBusyError, withLibraryLock } from '../../core/library/writer.js';
import { channelDir } from '../../core/library/layout.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, until, type FollowStore } from '../support/follow-env.js';

const SLUG = 'slow-feed';
const OWNER = 'u_slow_owner';

/** A front of the feed server that holds each feed request while `holding`, until released. */
async function startHoldingFront(feed: FeedServer) {
  let holding = false;
  let waiting = 0;
  let release: () => void = () => undefined;
  let released = Promise.resolve();
  const server = http.createServer((req, res) => {
    void (async () => {
      if (holding) {
        waiting++;
        await released;
      }
      const up = await fetch(`${feed.url}${req.url ?? '/'}`, { headers: { 'if-none-match': String(req.headers['if-none-match'] ?? '') } });
      const body = Buffer.from(await up.arrayBuffer());
      res.writeHead(up.status, { 'Content-Type': up.headers.get('content-type') ?? 'application/rss+xml', ...(up.headers.get('etag') ? { ETag: up.headers.get('etag')! } : {}) });
      res.end(body);
    })().catch(() => {
      res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    feedUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`,
    waiting: () => waiting,
    hold() {
      holding = true;
      released = new Promise<void>((resolve) => (release = resolve));
    },
    release() {
      holding = false;
      release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('follow: a poll fetches its feed outside the channel lock', function () {
  this.timeout(120_000);
  let store: FollowStore;
  let feed: FeedServer;
  let front: Awaited<ReturnType<typeof startHoldingFront>>;

  before(async function () {
    store = await openFollowStore('follow-poll-lock', { owners: [OWNER] });
    feed = await startFeedServer({
      title: 'Slow Feed',
      items: [{ guid: 'one', title: 'One', pubDate: new Date(Date.UTC(2026, 0, 1)), transcript: { path: '/one.srt', type: 'application/srt' } }],
    });
    feed.setFile('/one.srt', '1\n00:00:00,000 --> 00:00:02,000\nThe first episode.\n', 'application/srt');
    front = await startHoldingFront(feed);
  });

  after(async function () {
    await front?.close();
    await feed?.close();
    await store?.drop();
  });

  it('leaves the lock free while the feed answers, then writes what it read', async function () {
    const followed = await runFollow([front.feedUrl, '--channel', SLUG, '--owner', OWNER], store.env);
    expect(followed.code, followed.stderr).to.equal(0);
    feed.addItem({ guid: 'two', title: 'Two', pubDate: new Date(Date.UTC(2026, 0, 2)), transcript: { path: '/two.srt', type: 'application/srt' } });
    feed.setFile('/two.srt', '1\n00:00:00,000 --> 00:00:02,000\nThe second episode.\n', 'application/srt');

    front.hold();
    const polling = runFollow(['--poll', SLUG], store.env);
    await until('the poll is waiting for its feed', () => front.waiting() > 0, { timeoutMs: 60_000 });
    // Another writer of the channel takes the lock now, while the feed has not answered yet.
    const took = await withLibraryLock(channelDir(store.libraryDir, SLUG), async () => 'took the lock', { waitMs: 2_000 }).catch((err: unknown) => err);
    front.release();
    const polled = await polling;
    expect(took, took instanceof LibraryBusyError ? 'the poll held the lock across its fetch' : String(took)).to.equal('took the lock');
    expect(polled.code, polled.stderr).to.equal(0);
    expect(polled.stdout).to.match(/; 1 new, /);
    expect((await readdir(join(store.libraryDir, SLUG, 'episodes'))).filter((n) => n.endsWith('.json'))).to.have.length(2);
  });
});
