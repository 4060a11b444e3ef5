// Issue 42 item 5, through the real worker (in-process), the real transcription service (behind a counting relay),
// Redis and OpenSearch: `npm run follow -- --list` (table and `--json`) and the worker's backlog gauges show what
// waits per class with its audio, what runs and what failed with its sentence, and move as the work is done; the
// catalog says `pending` (the API's `queued`) while an episode waits, `processing` only while its job runs, and
// `pending` again while a failed attempt waits for its retry. The audio host answers only as the test releases it, so
// the test sees the work between episodes without a clock.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { loadConfig } from '../../core/config/load.js';
import { indexAliases } from '../../core/store/opensearch.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { registerPipelineMetrics } from '../../pipeline/metrics/follow.js';
import { createProcessQueue, queueNames } from '../../pipeline/follow/queues.js';
import { factsReader, readProgress, type Progress } from '../../pipeline/follow/progress.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startCountingRelay, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';
import { startReleaseGate, type Gate } from '../support/release-gate.js';
import { speak } from '../../scripts/lib/fakes/speech.js';
import { skipUnprovisioned } from '../support/skip.js';

const TRANSCRIBE_URL = process.env.TRANSCRIBE_URL;
const SLUG = 'progress-radio';
const DAY = 86_400_000;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** An audio host that answers `/a/<name>.mp3` only as the test releases it; `arrivals` is the order of the requests. */
function startAudioGate(audio: Buffer): Promise<Gate> {
  return startReleaseGate(
    (url) => url.replace(/^\/a\//, '').replace(/\.mp3$/, ''),
    (_name, res) => {
      res.writeHead(200, { 'Content-Type': 'audio/mpeg', 'Content-Length': String(audio.length) });
      res.end(audio);
    },
  );
}

describe('follow: the progress people can see (--list, the backlog gauges, the catalog status)', function () {
  this.timeout(600_000);
  const config = loadConfig(process.env);
  let store: FollowStore;
  let env: Record<string, string>;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let gate: Gate;
  let feed: FeedServer;
  let workers: PipelineWorkers | undefined;
  let audioDir: string;
  let metrics: Registry;
  let connection: ReturnType<typeof createRedisConnection>;

  const old = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * DAY);
  const audioItem = (guid: string, pubDate: Date, durationSeconds?: number): FeedServerItem => ({
    guid,
    title: `Episode ${guid}`,
    pubDate,
    enclosure: `${gate.url}/a/${guid}.mp3`,
    ...(durationSeconds !== undefined ? { durationSeconds } : {}),
  });

  const listJson = async (): Promise<Progress> => {
    const run = await runFollow(['--list', '--json'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.not.match(CONTROL);
    return JSON.parse(run.stdout) as Progress;
  };
  const source = (p: Progress) => p.sources.find((s) => s.slug === SLUG)!;
  /** The gauges' samples as `name{labels}` → value, read as a scrape reads them. */
  const gauges = async (): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    for (const m of await metrics.getMetricsAsJSON()) {
      if (!/^cca_pipeline_(backlog|oldest|processing)/.test(m.name)) continue;
      for (const v of (m as unknown as { values: { labels: Record<string, string>; value: number }[] }).values) {
        const labels = Object.entries(v.labels).map(([k, l]) => `${k}="${l}"`);
        out.set(labels.length ? `${m.name}{${labels.join(',')}}` : m.name, v.value);
      }
    }
    return out;
  };
  const statuses = async (): Promise<Map<string, string>> => {
    const index = indexAliases(store.prefix).episodes;
    await store.client.indices.refresh({ index });
    const res = await store.client.search({ index, body: { size: 50, query: { term: { channelId: `ch_${SLUG}` } } } } as never);
    return new Map((res.body as { hits: { hits: { _source: { title: string; status: string } }[] } }).hits.hits.map((h) => [h._source.title, h._source.status]));
  };
  const startWorkers = (extra: Record<string, string> = {}) =>
    startSuiteWorkers({
      client: store.client,
      prefix: store.prefix,
      env: { ...env, ...extra },
      embeddings: store.embeddings,
      concurrency: 1,
      lockDurationMs: 5000,
      stalledIntervalMs: 2000,
    });

  before(async function () {
    if (!TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
    store = await openFollowStore('follow-progress');
    relay = await startCountingRelay(TRANSCRIBE_URL!);
    audioDir = await mkdtemp(join(tmpdir(), 'follow-progress-audio-'));
    const file = join(audioDir, 'short.mp3');
    await speak(['The bakery opens at seven.'], file, { leadMs: 200, gapMs: 200 });
    gate = await startAudioGate(await readFile(file));
    env = { ...store.env, TRANSCRIBE_URL: relay.url, FOLLOW_RECENT_DAYS: '7', FOLLOW_RECENT_ITEMS: '0' };
    feed = await startFeedServer({ title: 'Progress Radio' });
    feed.setFile('/srt/b4.srt', '1\n00:00:00,000 --> 00:00:03,000\nRye wants a longer proof.\n', 'application/srt');
    // Backfill: three with audio (two lengths given, one not), one with its transcript file, one whose transcript
    // file is gone and has no audio (it fails); and one new episode with audio.
    for (const item of [
      audioItem('b1', old(1), 120),
      audioItem('b2', old(2), 180),
      audioItem('b3', old(3)),
      { guid: 'b4', title: 'Episode b4', pubDate: old(4), transcript: { path: '/srt/b4.srt', type: 'application/srt' } },
      { guid: 'b5', title: 'Episode b5', pubDate: old(5), transcript: { path: '/srt/gone.srt', type: 'application/srt' } },
      audioItem('n1', new Date(Date.now() - 3600_000), 60),
    ])
      feed.addItem(item);
    connection = createRedisConnection(config.redisUrl);
    metrics = new Registry();
  });

  after(async function () {
    await workers?.close();
    if (!store) return;
    const name = queueNames(store.prefix).process;
    await connection.del(`bull:${name}:turn-new`, `bull:${name}:turn-backfill`);
    connection.disconnect();
    await feed?.close();
    await gate?.close();
    await relay?.close();
    await store.drop();
    await rm(audioDir, { recursive: true, force: true });
  });

  it('shows every waiting episode by class with its audio before any work, and the gauges agree', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', SLUG, '--owner', 'u_creator'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/6 new.*6 queued for transcription/);

    const p = await listJson();
    expect(p.version).to.equal(1);
    expect(p.rate, 'nothing transcribed yet: no rate, no estimate').to.equal(null);
    const s = source(p);
    expect(s.source).to.equal(feed.feedUrl);
    expect(s.poll.lastOutcome).to.equal('200');
    expect(s.waiting.new).to.include({ episodes: 1, queued: 1, deferred: 0, fromTranscriptFile: 0, audioSeconds: 60, estimatedAudioSeconds: 0, etaSeconds: null });
    // b3 has no length: the median of the source's known ones (60, 120, 180).
    expect(s.waiting.backfill).to.include({ episodes: 5, queued: 5, fromTranscriptFile: 2, audioSeconds: 120 + 180 + 120, estimatedAudioSeconds: 120, unknownDuration: 0 });
    expect(s.processing).to.deep.equal([]);
    expect(s.failed).to.deep.equal([]);
    expect(p.totals.new.episodes + p.totals.backfill.episodes).to.equal(6);

    const table = await runFollow(['--list'], env);
    expect(table.code, table.stderr).to.equal(0);
    const lines = table.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`${SLUG}\t`));
    expect(lines[at + 1]).to.match(/^ {2}waiting +new +1 episode \(1 queued\) +1 min of audio to transcribe +no estimate yet$/);
    expect(lines[at + 2]).to.match(/^ {2}waiting +backfill +5 episodes \(5 queued\) +7 min of audio to transcribe \(2 min estimated\), 2 from transcript files +no estimate yet$/);
    expect(lines.at(-2)).to.match(/^all sources: 1 new and 5 backfill episodes waiting, 8 min of audio to transcribe; no estimate/);

    registerPipelineMetrics({
      registry: metrics,
      poll: { on: () => undefined } as never,
      process: { on: () => undefined } as never,
      backlog: { libraryDir: store.libraryDir, queue: createProcessQueue(connection, store.prefix), rule: { recentDays: 7, recentItems: 0 }, minIntervalMs: 0 },
    });
    const g = await gauges();
    expect(g.get('cca_pipeline_backlog_audio_seconds{class="new"}')).to.equal(60);
    expect(g.get('cca_pipeline_backlog_audio_seconds{class="backfill"}')).to.equal(420);
    expect(g.get('cca_pipeline_backlog_episodes{class="new"}')).to.equal(1);
    expect(g.get('cca_pipeline_backlog_episodes{class="backfill"}')).to.equal(5);
    expect(g.get('cca_pipeline_oldest_new_waiting_seconds')).to.be.above(0);
    expect(g.get('cca_pipeline_processing_episodes')).to.equal(0);
    expect(
      [...(await statuses()).values()].every((v) => v === 'pending'),
      'every waiting episode is queued in the catalog',
    ).to.equal(true);
  });

  it('reads a bounded number of episode files per reading, estimating the lengths not read yet, and later readings read on', async function () {
    const queue = createProcessQueue(connection, store.prefix);
    const rule = { recentDays: 7, recentItems: 0 };
    try {
      const full = await readProgress({ libraryDir: store.libraryDir, queue, rule, details: false });
      const facts = factsReader(store.libraryDir);
      const readings = [];
      for (let i = 0; i < 4; i++) readings.push((await readProgress({ libraryDir: store.libraryDir, queue, rule, details: false, facts, maxReads: 1 })).totals.backfill);
      expect(readings[0]!.estimatedAudioSeconds, 'the first reading estimates what it did not read').to.be.above(full.totals.backfill.estimatedAudioSeconds);
      expect(readings.map((r) => r.episodes)).to.deep.equal([5, 5, 5, 5]);
      expect(readings[3]).to.deep.equal(full.totals.backfill);
    } finally {
      await queue.close();
    }
  });

  it('moves as the work is done: the new episode runs first, the failure shows its sentence, the estimate uses the measured rate', async function () {
    workers = await startWorkers();
    await until('the new episode asks for its audio', () => gate.arrivals.length === 1);
    expect(gate.arrivals).to.deep.equal(['n1']);
    let s = source(await listJson());
    expect(s.processing.map((x) => x.title)).to.deep.equal(['Episode n1']);
    expect(Date.parse(s.processing[0]!.since!)).to.be.above(0);
    expect(s.waiting.new.episodes).to.equal(0);
    expect(s.waiting.backfill.episodes).to.equal(5);
    let g = await gauges();
    expect(g.get('cca_pipeline_backlog_audio_seconds{class="new"}')).to.equal(0);
    expect(g.get('cca_pipeline_oldest_new_waiting_seconds')).to.equal(0);
    expect(g.get('cca_pipeline_processing_episodes')).to.equal(1);
    let st = await statuses();
    expect(st.get('Episode n1'), 'the running episode').to.equal('processing');
    expect(st.get('Episode b1'), 'a waiting one').to.equal('pending');

    // n1 is transcribed, b5 fails, b4 is read from its transcript file; b3 (the newest backfill with audio) then waits at the gate.
    gate.release(1);
    await until('b3 asks for its audio', () => gate.arrivals.length === 2, { timeoutMs: 300_000 });
    expect(gate.arrivals).to.deep.equal(['n1', 'b3']);
    const p = await listJson();
    s = source(p);
    expect(s.failed).to.deep.equal([{ episodeId: s.failed[0]!.episodeId, title: 'Episode b5', error: 'the transcript file could not be read, and the item has no audio' }]);
    expect(s.failedTotal).to.equal(1);
    expect(s.processing.map((x) => x.title)).to.deep.equal(['Episode b3']);
    expect(s.waiting.backfill).to.include({ episodes: 2, queued: 2, fromTranscriptFile: 0, audioSeconds: 300 });
    expect(p.rate, 'measured on the transcribed episode').to.not.equal(null);
    expect(p.rate!.episodes).to.equal(1);
    expect(p.rate!.wallSecondsPerAudioSecond).to.be.above(0);
    expect(p.slots).to.equal(1);
    expect(s.waiting.backfill.etaSeconds).to.be.closeTo(300 * p.rate!.wallSecondsPerAudioSecond, 1e-6);
    expect(p.totals.backfill.etaSeconds).to.be.closeTo(300 * p.rate!.wallSecondsPerAudioSecond, 1e-6);
    g = await gauges();
    expect(g.get('cca_pipeline_backlog_audio_seconds{class="backfill"}')).to.equal(300);
    expect(g.get('cca_pipeline_backlog_episodes{class="backfill"}')).to.equal(2);
    st = await statuses();
    expect(st.get('Episode n1')).to.equal('published');
    expect(st.get('Episode b5')).to.equal('failed');
    expect(st.get('Episode b3')).to.equal('processing');
    expect(st.get('Episode b2')).to.equal('pending');

    const table = await runFollow(['--list'], env);
    expect(table.stdout).to.match(/\n {2}processing +- +"Episode b3" +since \d{4}-/);
    expect(table.stdout).to.match(/\n {2}failed +- +"Episode b5" +the transcript file could not be read, and the item has no audio\n/);
    expect(table.stdout).to.match(
      /backfill episodes waiting, 5 min of audio to transcribe; new ones done in about 0 s, all in about \d+ (s|min) at \d\.\d{3} s per audio second \(the last 1 episode transcribed\), 1 slot/,
    );

    gate.open();
    await until('every episode but b5 published', async () => [...(await statuses()).entries()].every(([title, v]) => v === (title === 'Episode b5' ? 'failed' : 'published')), {
      timeoutMs: 300_000,
    });
    s = source(await listJson());
    expect(s.waiting.new.episodes + s.waiting.backfill.episodes).to.equal(0);
    expect(s.processing).to.deep.equal([]);
    g = await gauges();
    for (const key of [
      'cca_pipeline_backlog_audio_seconds{class="new"}',
      'cca_pipeline_backlog_audio_seconds{class="backfill"}',
      'cca_pipeline_backlog_episodes{class="backfill"}',
      'cca_pipeline_processing_episodes',
    ])
      expect(g.get(key), key).to.equal(0);
    expect(relay.count(), 'one transcription per audio episode').to.equal(4);
    await workers.close();
    workers = undefined;
  });

  it('says pending, not processing, while a failed attempt waits for its retry', async function () {
    feed.addItem(audioItem('n2', new Date(Date.now() - 1800_000), 30));
    gate.open();
    const polled = await runFollow(['--poll', SLUG], env);
    expect(polled.code, polled.stderr).to.equal(0);
    // A transcription service that cannot be reached: a transient failure, retried after BullMQ's backoff (15 s).
    workers = await startWorkers({ TRANSCRIBE_URL: store.relay.url });
    const queue = createProcessQueue(connection, store.prefix);
    try {
      await until('the first attempt failed and waits for its retry', async () => (await queue.getJobs(['delayed'])).length === 1);
      expect((await statuses()).get('Episode n2')).to.equal('pending');
      const s = source(await listJson());
      expect(s.waiting.new).to.include({ episodes: 1, queued: 1, audioSeconds: 30 });
      expect(s.processing).to.deep.equal([]);
    } finally {
      await queue.close();
    }
  });
});
