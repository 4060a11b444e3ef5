// A processing job runs in a straight line (issue 47, item 3): it embeds its episode's new passages before the
// publishing write takes the channel's lock, and indexes after that write released it, so no embedding request and no
// write to the store is made while the lock is held (a slow embedder or store never keeps the channel's other writers
// waiting), and it takes the lock twice: its start and its publishing write.
import { existsSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { expect } from 'chai';
import type { Embedder } from '../../core/embedding/embedder.js';
import type { Client } from '../../core/store/opensearch.js';
import { lockPathOf } from '../../core/library/writer.js';
import { channelDir } from '../../core/library/layout.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';

const SLUG = 'embed-lock';
const OWNER = 'u_embed_lock_owner';
const pad = (n: number) => String(n).padStart(2, '0');
const clock = (s: number) => `00:${pad(Math.floor(s / 60))}:${pad(s % 60)},000`;
const srt = Array.from({ length: 40 }, (_, i) => `${i + 1}\n${clock(i * 5)} --> ${clock(i * 5 + 5)}\nSentence number ${i} about rivers, soil and the weather this spring.\n`).join(
  '\n',
);

describe('follow: a processing job embeds and indexes outside the channel lock, and takes it twice', function () {
  this.timeout(180_000);
  let store: FollowStore;
  let feed: FeedServer;
  let workers: PipelineWorkers | undefined;

  before(async function () {
    store = await openFollowStore('follow-embed-lock', { owners: [OWNER] });
    feed = await startFeedServer({
      title: 'Embed Lock',
      items: [{ guid: 'one', title: 'One', pubDate: new Date(Date.UTC(2026, 0, 1)), transcript: { path: '/one.srt', type: 'application/srt' } }],
    });
    feed.setFile('/one.srt', srt, 'application/srt');
  });

  after(async function () {
    await workers?.close();
    await feed?.close();
    await store?.drop();
  });

  it('publishes an episode whose passages were embedded and whose documents were written while no writer held the channel lock', async function () {
    const followed = await runFollow([feed.feedUrl, '--channel', SLUG, '--owner', OWNER], store.env);
    expect(followed.code, followed.stderr).to.equal(0);
    // No poll from here on: the only lock holder left is the processing job itself.
    const stopped = await runFollow(['--stop', SLUG], store.env);
    expect(stopped.code, stopped.stderr).to.equal(0);

    const lock = lockPathOf(channelDir(store.libraryDir, SLUG));
    const calls: { texts: number; locked: boolean }[] = [];
    const real = store.embeddings.embedder();
    const watched: Embedder = {
      modelId: real.modelId,
      dimension: real.dimension,
      ...(real.signature ? { signature: real.signature } : {}),
      get embeddedCount() {
        return real.embeddedCount;
      },
      embedQuery: (text) => real.embedQuery(text),
      embedPassages: (texts) => {
        calls.push({ texts: texts.length, locked: existsSync(lock) });
        return real.embedPassages(texts);
      },
    };
    // Every write the worker makes to the store, and whether the lock was held then.
    const writes: { method: string; locked: boolean }[] = [];
    const WRITES = new Set(['bulk', 'index', 'create', 'update', 'delete', 'deleteByQuery', 'updateByQuery']);
    const client = new Proxy(store.client, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        const bound = (value as (...a: unknown[]) => unknown).bind(target);
        if (!WRITES.has(String(prop))) return bound;
        return (...args: unknown[]) => {
          writes.push({ method: String(prop), locked: existsSync(lock) });
          return bound(...args);
        };
      },
    }) as Client;
    // Each time the lock is taken its folder appears (and goes again when it is released): a hold is the lock found
    // present at an event of its name after it was last found absent.
    let holds = 0;
    let held = existsSync(lock);
    const watcher = watch(dirname(lock), (event, name) => {
      if (name !== basename(lock)) return;
      const now = existsSync(lock);
      if (now && !held) holds++;
      held = now;
    });
    try {
      workers = await startSuiteWorkers({ client, prefix: store.prefix, env: store.env, embeddings: { ...store.embeddings, embedder: () => watched } });
      await publishedAndIndexed();
    } finally {
      watcher.close();
    }
    expect(writes.length, 'writes to the store').to.be.greaterThan(0);
    expect(
      writes.filter((w) => w.locked),
      'writes to the store made while the channel lock was held',
    ).to.deep.equal([]);
    expect(holds, 'times the processing job took the channel lock').to.equal(2);

    async function publishedAndIndexed(): Promise<void> {
      const episodes = join(store.libraryDir, SLUG, 'episodes');
      await until('the episode is published and indexed', async () => {
        const file = (await readFile(join(episodes, `${(await firstEpisodeId(store))!}.json`), 'utf8').catch(() => '{}')) as string;
        if ((JSON.parse(file) as { status?: string }).status !== 'published') return false;
        await store.client.indices.refresh({ index: store.aliases.episodes });
        const res = await store.client.search({ index: store.aliases.episodes, body: { query: { term: { channelId: `ch_${SLUG}` } } } } as never);
        return (res.body as { hits: { hits: { _source: { status: string } }[] } }).hits.hits.some((h) => h._source.status === 'published');
      });
    }
    expect(
      calls.reduce((n, c) => n + c.texts, 0),
      'passages embedded',
    ).to.be.greaterThan(0);
    expect(
      calls.filter((c) => c.locked),
      'embedding calls made while the channel lock was held',
    ).to.deep.equal([]);
  });
});

/** The id of the channel's one episode, from its follow state. */
async function firstEpisodeId(store: FollowStore): Promise<string | undefined> {
  const state = JSON.parse(await readFile(join(store.libraryDir, SLUG, 'follow.json'), 'utf8')) as { items: Record<string, unknown> };
  return Object.keys(state.items)[0];
}
