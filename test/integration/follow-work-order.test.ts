// Decision 28 and security review 2026-11-27 item 4, through the real worker (in-process), Redis and OpenSearch:
// recent episodes are transcribed before backfill and channels take turns; a poll takes a bounded slice of a feed and
// a channel a bounded share of the queue; a changed `<link>` renames no episode; a trickling audio host is cut by the
// rate floor and not retried. Items carry their transcript files, served by a gate that answers one request at a time
// when the test says so: the order of the requests is the order of the work, with no clock in any assertion.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { ensureIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { createProcessQueue, queueNames } from '../../pipeline/follow/queues.js';
import type { FollowState } from '../../core/library/follow-state.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { feedXml, startCountingRelay, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';
import { dropFollowStore, followEnv, runFollow, startSuiteWorkers, until } from '../support/follow-env.js';
import { startReleaseGate, type Gate } from '../support/release-gate.js';

const OWNER = 'u_work_order_owner';
const DAY = 86_400_000;

/** Transcript files on loopback (`/t/<name>.srt`), answered only as the test releases them. */
function startGate(): Promise<Gate> {
  const srt = (name: string) => `1\n00:00:00,000 --> 00:00:02,000\nThis is episode ${name}.\n\n2\n00:00:02,000 --> 00:00:04,000\nThank you for listening.\n`;
  return startReleaseGate(
    (url) => url.replace(/^\/t\//, '').replace(/\.srt$/, ''),
    (name, res) => {
      res.writeHead(200, { 'Content-Type': 'application/srt' });
      res.end(srt(name));
    },
  );
}

/** An audio host that sends its headers and then one byte every 200 ms, for ever; counts its requests. */
async function startTrickle(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'Content-Type': 'audio/mpeg', 'Content-Length': String(10 * 1024 ** 2) });
    const timer = setInterval(() => res.write(Buffer.from([0xff])), 200);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Row {
  id: string;
  title: string;
  status: string;
  error: string | null;
}

describe('follow: the work order (recent episodes first, channels in turn) and the bounds one feed cannot pass', function () {
  this.timeout(300_000);
  const config = loadConfig(process.env);
  let client: Client;
  let prefix: string;
  let libraryDir: string;
  let embeddings: HashEmbeddingsServer;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let gate: Gate;
  let trickle: Awaited<ReturnType<typeof startTrickle>>;
  const feeds = new Map<string, FeedServer>();
  let env: Record<string, string>;
  let workers: PipelineWorkers | undefined;

  const old = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * DAY);
  /** `count` old items of channel `slug`, each with its transcript behind the gate (`<slug>-01` the oldest). */
  const backlog = (slug: string, count: number): FeedServerItem[] =>
    Array.from({ length: count }, (_, i) => {
      const guid = `${slug}-${String(i + 1).padStart(2, '0')}`;
      return { guid, title: `${slug} episode ${i + 1}`, pubDate: old(i), transcript: { path: `${gate.url}/t/${guid}.srt`, type: 'application/srt' } };
    });
  const fresh = (slug: string): FeedServerItem => ({
    guid: `${slug}-new`,
    title: `${slug} new episode`,
    pubDate: new Date(Date.now() - 3600_000),
    transcript: { path: `${gate.url}/t/${slug}-new.srt`, type: 'application/srt' },
  });
  const follow = async (slug: string, items: FeedServerItem[], extra: Record<string, string> = {}) => {
    const feed = await startFeedServer({ title: `Work order ${slug}`, items });
    feeds.set(slug, feed);
    const r = await runFollow([feed.feedUrl, '--channel', slug, '--owner', OWNER], { ...env, ...extra });
    expect(r.code, r.stderr).to.equal(0);
    return r.stdout;
  };
  const poll = async (slug: string, extra: Record<string, string> = {}) => {
    const r = await runFollow(['--poll', slug], { ...env, ...extra });
    expect(r.code, r.stderr).to.equal(0);
    return r.stdout;
  };
  const state = async (slug: string) => JSON.parse(await readFile(join(libraryDir, slug, 'follow.json'), 'utf8')) as FollowState;
  const rows = async (slug: string): Promise<Row[]> => {
    const index = indexAliases(prefix).episodes;
    await client.indices.refresh({ index });
    const res = await client.search({ index, body: { size: 200, query: { term: { channelId: `ch_${slug}` } } } } as never);
    return (res.body as { hits: { hits: { _source: Row }[] } }).hits.hits.map((h) => h._source);
  };
  const queuedJobsOf = async (slug: string) => {
    const connection = createRedisConnection(config.redisUrl);
    const queue = createProcessQueue(connection, prefix);
    const jobs = await queue.getJobs(['prioritized', 'waiting', 'delayed', 'active']);
    await queue.close();
    connection.disconnect();
    return jobs.filter((j) => j.data.slug === slug);
  };

  const startWorkers = (): Promise<PipelineWorkers> => startSuiteWorkers({ client, prefix, env, embeddings, concurrency: 1, lockDurationMs: 5000, stalledIntervalMs: 2000 });

  before(async function () {
    client = testClient();
    prefix = privatePrefix('follow-order');
    libraryDir = await mkdtemp(join(tmpdir(), 'follow-order-lib-'));
    relay = await startCountingRelay('http://127.0.0.1:9');
    embeddings = await startHashEmbeddingsServer();
    gate = await startGate();
    trickle = await startTrickle();
    env = {
      ...followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env }),
      FOLLOW_RECENT_DAYS: '7',
      FOLLOW_RECENT_ITEMS: '0',
      AUDIO_MIN_BYTES_PER_SECOND: '1024',
      AUDIO_RATE_WINDOW_SECONDS: '1',
    };
    const aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: OWNER, body: userDocument({ id: OWNER, name: 'Owner', plan: 'paid' }), refresh: true } as never);
  });

  after(async function () {
    await workers?.close();
    await embeddings?.close();
    if (!client) return;
    const connection = createRedisConnection(config.redisUrl);
    const name = queueNames(prefix).process;
    await connection.del(`bull:${name}:turn-new`, `bull:${name}:turn-backfill`);
    connection.disconnect();
    await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    for (const feed of feeds.values()) await feed.close();
    await relay?.close();
    await gate?.close();
    await trickle?.close();
    await rm(libraryDir, { recursive: true, force: true });
  });

  it("publishes a new episode after at most the one episode in progress, another channel's too, and alternates the backlogs", async function () {
    expect(await follow('order-a', backlog('order-a', 40))).to.match(/40 queued/);
    expect(await follow('order-b', backlog('order-b', 5))).to.match(/5 queued/);
    workers = await startWorkers();

    // Each job asks for its transcript first; one answer at a time lets the test see (and hold) the order.
    await until('the first transcript request', () => gate.arrivals.length === 1);
    gate.release(2);
    await until('the third transcript request', () => gate.arrivals.length === 3);
    const channels = (names: readonly string[]) => names.map((n) => n.replace(/-(\d+|new)$/, '').replace(/^order-/, ''));
    expect(gate.arrivals, 'the backlogs alternate, each newest first').to.deep.equal(['order-a-40', 'order-b-05', 'order-a-39']);

    // A's backlog holds the only slot; B publishes a new episode.
    feeds.get('order-b')!.addItem(fresh('order-b'));
    expect(await poll('order-b')).to.match(/1 new.*1 queued for transcription/);
    gate.release(1);
    await until('the fourth transcript request', () => gate.arrivals.length === 4);
    expect(gate.arrivals[3], "B's new episode waits for the one episode of A's backlog in progress, no more").to.equal('order-b-new');

    // Now A publishes one while B's new episode is in progress.
    feeds.get('order-a')!.addItem(fresh('order-a'));
    expect(await poll('order-a')).to.match(/1 new.*1 queued for transcription/);
    gate.release(1);
    await until('the fifth transcript request', () => gate.arrivals.length === 5);
    expect(gate.arrivals[4]).to.equal('order-a-new');

    gate.open();
    await until(
      'all 47 episodes published',
      async () =>
        (await rows('order-a')).length + (await rows('order-b')).length === 47 && [...(await rows('order-a')), ...(await rows('order-b'))].every((r) => r.status === 'published'),
    );
    const backfillBefore = gate.arrivals.slice(0, gate.arrivals.indexOf('order-a-new')).filter((n) => /^order-a-\d+$/.test(n)).length;
    expect(backfillBefore, "A's backfill done before its new episode").to.be.below(40 / 2);
    expect(channels(gate.arrivals.slice(0, 12)), "B's backlog keeps its turn after the new episodes").to.deep.equal(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
    expect(gate.arrivals.slice(5, 12)).to.deep.equal(['order-b-04', 'order-a-38', 'order-b-03', 'order-a-37', 'order-b-02', 'order-a-36', 'order-b-01']);
    expect(gate.arrivals, 'each episode was transcribed once').to.have.length(47);
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
    await workers.close();
    workers = undefined;
  });

  it('keeps every episode id when the feed changes its <link>', async function () {
    const items = backlog('order-c', 3).map((i) => ({ ...i, transcript: undefined }));
    expect(await follow('order-c', items)).to.match(/3 new/);
    const before = Object.keys((await state('order-c')).items).sort();
    const feed = feeds.get('order-c')!;
    for (const version of ['?v=2', 'elsewhere/?v=3']) {
      const xml = feedXml({ title: 'Work order order-c', language: 'en', base: feed.url, items }).replace(`<link>${feed.url}/</link>`, `<link>${feed.url}/${version}</link>`);
      expect(xml).to.include(version);
      feed.setFeedAnswer({ status: 200, headers: { 'Content-Type': 'application/rss+xml' }, body: xml });
      expect(await poll('order-c')).to.match(/: 200; 3 items; 0 new, 0 updated.*0 queued for transcription/);
    }
    expect(Object.keys((await state('order-c')).items).sort()).to.deep.equal(before);
    expect((await readdir(join(libraryDir, 'order-c', 'episodes'))).sort()).to.deep.equal(before.map((id) => `${id}.json`));
    expect(await rows('order-c')).to.have.length(3);
  });

  it('takes a bounded slice of a long feed per poll, newest first, and queues a bounded share per channel', async function () {
    const caps = { FOLLOW_MAX_ITEMS_PER_POLL: '3', FOLLOW_MAX_QUEUED_PER_CHANNEL: '2' };
    const items = backlog('order-d', 7).map((i) => ({ ...i, transcript: undefined }));
    const first = await follow('order-d', items, caps);
    expect(first).to.match(/7 items; 3 new.*2 queued for transcription/);
    expect(first).to.match(/4 more new items left for the next polls/);
    expect(first).to.match(/1 more episodes to be queued by the next polls/);
    const keys = async () => Object.values((await state('order-d')).items).map((s) => s.key);
    expect((await keys()).sort()).to.deep.equal(['order-d-05', 'order-d-06', 'order-d-07']);
    expect(await queuedJobsOf('order-d')).to.have.length(2);

    // The same body again: the items left over are taken, not skipped as unchanged.
    const second = await poll('order-d', caps);
    expect(second).to.match(/3 new.*0 queued for transcription/);
    expect(second).to.match(/1 more new items left/);
    expect(second).to.match(/4 more episodes to be queued/);
    const third = await poll('order-d', caps);
    expect(third).to.match(/1 new/);
    expect(third).not.to.match(/new items left/);
    expect((await keys()).sort()).to.deep.equal(items.map((i) => i.guid).sort());
    expect(await queuedJobsOf('order-d')).to.have.length(2);
    expect(await rows('order-d')).to.have.length(7);
  });

  it('cuts an audio download that trickles below the rate floor, once, without a retry', async function () {
    const items: FeedServerItem[] = [{ guid: 'order-e-01', title: 'Trickled', pubDate: old(1), enclosure: `${trickle.url}/slow.mp3` }];
    expect(await follow('order-e', items)).to.match(/1 queued/);
    workers = await startWorkers();
    await until('the trickled episode failed', async () => (await rows('order-e'))[0]?.status === 'failed');
    const [row] = await rows('order-e');
    expect(row!.error).to.equal('the audio URL sent its data slower than 1 KB/s, so the download was stopped');
    expect(trickle.requests(), 'audio requests: a too slow host is not retried').to.equal(1);
    expect(relay.count()).to.equal(0);
    const s = await state('order-e');
    expect(Object.values(s.items)[0]!.processed?.outcome).to.equal('failed');
  });
});
