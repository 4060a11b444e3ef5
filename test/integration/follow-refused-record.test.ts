// Security review 2026-11-27, item 1: an item whose finished record ingest would refuse (2,001 chapters, 50,001
// cues) is processed once and its outcome recorded, never re-made by every poll; and a source version started too
// often without an outcome is failed without being fetched again. Through the real worker (in-process), Redis and
// OpenSearch; every item has its transcript in the feed, so the transcriber (a relay to nowhere) is never asked.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { EPISODE_LIMITS } from '../../core/contract/library-format.js';
import { indexAliases, type Client } from '../../core/store/opensearch.js';
import { createProcessQueue, MAX_PROCESS_STARTS } from '../../pipeline/follow/queues.js';
import { createRedisConnection } from '../../indexer/queue.js';
import type { FollowState } from '../../core/library/follow-state.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import type { HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { feedXml, type startCountingRelay, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, startSuiteWorkers, until } from '../support/follow-env.js';

const SLUG = 'refused-records';
const OWNER = 'u_refused_owner';
const TITLE = 'Refused Records';
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const clock = (s: number) => `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)},000`;
/** An SRT file of `count` one-second cues. */
const srt = (count: number, text = (i: number) => `Line number ${i} of the show.`) =>
  Array.from({ length: count }, (_, i) => `${i + 1}\n${clock(i)} --> ${clock(i + 1)}\n${text(i)}\n`).join('\n');

interface Row {
  id: string;
  title: string;
  status: string;
  error: string | null;
}

describe('follow: a record ingest refuses is processed once, not on every poll', function () {
  this.timeout(240_000);
  let client: Client;
  let prefix: string;
  let libraryDir: string;
  let embeddings: HashEmbeddingsServer;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;
  let workers: PipelineWorkers | undefined;

  const items: FeedServerItem[] = [
    {
      guid: 'chapters',
      title: 'Too many chapters',
      pubDate: new Date(Date.UTC(2026, 2, 1)),
      durationSeconds: 7200,
      transcript: { path: '/srt/chapters.srt', type: 'application/srt' },
    },
    { guid: 'cues', title: 'Too many cues', pubDate: new Date(Date.UTC(2026, 2, 2)), transcript: { path: '/srt/cues.srt', type: 'application/srt' } },
    { guid: 'starts', title: 'Started too often', pubDate: new Date(Date.UTC(2026, 2, 3)), transcript: { path: '/srt/starts.srt', type: 'application/srt' } },
  ];
  /** The feed with a `podcast:chapters` on the first item; `comment` changes the body (a 200 the poll applies). */
  const serveFeed = (comment = '') => {
    const xml = feedXml({ title: TITLE, language: 'en', base: feed.url, items }).replace(
      '<guid isPermaLink="false">chapters</guid>',
      `<guid isPermaLink="false">chapters</guid>\n      <podcast:chapters url="${feed.url}/chapters.json" type="application/json+chapters"/>`,
    );
    feed.setFeedAnswer({ status: 200, headers: { 'Content-Type': 'application/rss+xml' }, body: `${xml}<!--${comment}-->\n` });
  };
  const fetches = (path: string) => feed.requests.filter((r) => r.path === path).length;

  const rows = async (): Promise<Map<string, Row>> => {
    const index = indexAliases(prefix).episodes;
    await client.indices.refresh({ index });
    const res = await client.search({ index, body: { size: 100, query: { term: { channelId: `ch_${SLUG}` } } } } as never);
    return new Map((res.body as { hits: { hits: { _source: Row }[] } }).hits.hits.map((h) => [h._source.title, h._source]));
  };
  const statePath = () => join(libraryDir, SLUG, 'follow.json');
  /** Processing jobs that completed or failed so far. */
  const finishedJobs = async (): Promise<number> => {
    const connection = createRedisConnection(loadConfig({ ...process.env, ...env }).redisUrl);
    const queue = createProcessQueue(connection, prefix);
    try {
      return await queue.getJobCountByTypes('completed', 'failed');
    } finally {
      await queue.close();
      connection.disconnect();
    }
  };
  const state = async () => JSON.parse(await readFile(statePath(), 'utf8')) as FollowState;
  const episodeFile = async (id: string) =>
    JSON.parse(await readFile(join(libraryDir, SLUG, 'episodes', `${id}.json`), 'utf8')) as {
      status: string;
      error: string | null;
      chapters: unknown[];
      transcript: { segments: unknown[] } | null;
    };

  const startWorkers = (): Promise<PipelineWorkers> => startSuiteWorkers({ client, prefix, env, embeddings, lockDurationMs: 3000, stalledIntervalMs: 1000 });

  before(async function () {
    ({ client, prefix, libraryDir, relay, embeddings, env, drop } = await openFollowStore('follow-refused', { owners: [OWNER] }));
    feed = await startFeedServer({ title: TITLE });
    feed.setFile('/srt/chapters.srt', srt(3), 'application/srt');
    feed.setFile(
      '/srt/cues.srt',
      srt(EPISODE_LIMITS.segments + 1, () => 'Hi.'),
      'application/srt',
    );
    feed.setFile('/srt/starts.srt', srt(2), 'application/srt');
    const chapters = Array.from({ length: EPISODE_LIMITS.chapters + 1 }, (_, i) => ({ startTime: i * 3, title: `Chapter ${i}` }));
    feed.setFile('/chapters.json', JSON.stringify({ version: '1.2.0', chapters }), 'application/json+chapters');
    serveFeed();
  });

  after(async function () {
    await workers?.close();
    await feed?.close();
    await drop?.();
  });

  it('publishes the transcript without the refused chapters, fails the refused transcript with a sentence, and stops a version started too often', async function () {
    const followed = await runFollow([feed.feedUrl, '--channel', SLUG, '--owner', OWNER], env);
    expect(followed.code, followed.stderr).to.equal(0);
    expect(followed.stdout).to.match(/3 queued/);
    // As if every start of this version had died before recording an outcome (the worker is not running yet).
    const s = await state();
    const startsId = Object.keys(s.items).find((id) => s.items[id]!.transcripts[0]?.url.endsWith('/starts.srt'))!;
    s.items[startsId]!.starts = { digest: s.items[startsId]!.digest, count: MAX_PROCESS_STARTS };
    await writeFile(statePath(), JSON.stringify(s, null, 2));

    workers = await startWorkers();
    await until('every item finished', async () => [...(await rows()).values()].every((e) => e.status === 'published' || e.status === 'failed'));
    const now = await rows();

    const withChapters = now.get('Too many chapters')!;
    expect(withChapters).to.include({ status: 'published', error: null });
    const published = await episodeFile(withChapters.id);
    expect(published.status).to.equal('published');
    expect(published.transcript!.segments).to.have.length(3);
    expect(published.chapters).to.deep.equal([]);

    const cues = now.get('Too many cues')!;
    expect(cues).to.include({ status: 'failed', error: 'the episode could not be published: transcript has 50,001 segments: more than the 50,000 allowed' });
    expect((await episodeFile(cues.id)).status, 'the library file says what the index says').to.equal('failed');

    const started = now.get('Started too often')!;
    expect(started).to.include({ status: 'failed', error: `processing was started ${MAX_PROCESS_STARTS} times without finishing, so it was stopped` });
    expect(fetches('/srt/starts.srt'), 'a version started too often is not fetched again').to.equal(0);

    const after = await state();
    expect(after.items[withChapters.id]!.processed).to.deep.equal({ digest: after.items[withChapters.id]!.digest, outcome: 'published' });
    expect(after.items[cues.id]!.processed).to.deep.equal({ digest: after.items[cues.id]!.digest, outcome: 'failed' });
    expect(after.items[started.id]!.processed).to.deep.equal({ digest: after.items[started.id]!.digest, outcome: 'failed' });
  });

  it('enqueues none of them again on later polls, changed feed body or not, and fetches each file once', async function () {
    const finishedBefore = await finishedJobs();
    // As if even the give-up's outcome had been lost: its start count alone keeps it out of the queue.
    const s = await state();
    const startsId = Object.keys(s.items).find((id) => s.items[id]!.transcripts[0]?.url.endsWith('/starts.srt'))!;
    expect(s.items[startsId]!.starts).to.deep.equal({ digest: s.items[startsId]!.digest, count: MAX_PROCESS_STARTS + 1 });
    delete s.items[startsId]!.processed;
    await writeFile(statePath(), JSON.stringify(s, null, 2));
    for (const comment of ['', 'changed body', 'changed body']) {
      serveFeed(comment);
      const r = await runFollow(['--poll', SLUG], env);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/; 0 queued for transcription/);
    }
    // Nothing was enqueued (none waits, is delayed or runs, and none finished since the first test), so there is no job
    // that could still fetch a file: the counts below are final without waiting for one.
    const connection = createRedisConnection(loadConfig({ ...process.env, ...env }).redisUrl);
    const queue = createProcessQueue(connection, prefix);
    try {
      expect(await queue.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized', 'waiting-children')).to.equal(0);
      expect(await queue.getJobCountByTypes('completed', 'failed')).to.equal(finishedBefore);
    } finally {
      await queue.close();
      connection.disconnect();
    }
    expect(fetches('/srt/chapters.srt')).to.equal(1);
    expect(fetches('/chapters.json')).to.equal(1);
    expect(fetches('/srt/cues.srt')).to.equal(1);
    expect(fetches('/srt/starts.srt')).to.equal(0);
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
    expect([...(await rows()).values()].map((e) => e.status).sort()).to.deep.equal(['failed', 'failed', 'published']);
  });
});
