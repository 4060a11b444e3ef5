// bench:transcribe's pipeline parts: freshness (a followed feed's new item until it is searchable) and the work order
// under a backfill, each on a throw-away pipeline of the services `up` runs (see transcribe.ts for the whole bench).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type Client } from '../../core/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { followSource } from '../../pipeline/follow/commands.js';
import { pollSource } from '../../pipeline/follow/poll.js';
import { readState } from '../../core/library/follow-state.js';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { startPipelineWorkers } from '../../pipeline/follow/worker.js';
import { probeSeconds } from '../../pipeline/transcribe/audio.js';
import { transcribeFile } from '../../pipeline/transcribe/transcribe.js';
import { startFeedServer } from '../lib/fakes/feed-server.js';
import { speak } from '../lib/fakes/speech.js';
import { runScript } from '../lib/child.js';
import { ensureModel } from '../ops/provision/model.js';
import { CACHE_DIR } from '../ops/provision/paths.js';
import { servicesUp } from '../ops/provision/services.js';
import { createLogger } from '../../core/ground/logger.js';

const log = createLogger({ name: 'bench:transcribe', level: 'warn', fd: 2 });
const say = (line: string) => process.stderr.write(`bench:transcribe: ${line}\n`);

/** Peak resident memory of a process so far (VmHWM), MB. */
export function peakRssMb(pid: number): number | undefined {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : undefined;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

/** Short items for freshness: two sentences each, about 6 s of speech, none repeating another's words much. */
const FRESH_ITEMS = [
  ['The ferry leaves the harbour at seven.', 'Passengers buy tickets from the kiosk on the pier.'],
  ['Our orchard grows twelve kinds of apple.', 'The cider press runs every weekend in October.'],
  ['A violin bow is strung with horse hair.', 'Rosin helps the hair grip the strings.'],
  ['Glaciers carve deep valleys over thousands of years.', 'Meltwater carries gravel far down the mountain.'],
  ['The library opens late on Thursdays.', 'Volunteers read stories to children after school.'],
  ['Copper roofs turn green as they weather.', 'The patina protects the metal underneath.'],
  ['Owls hunt by sound as much as by sight.', 'Their feathers make almost no noise in flight.'],
  ['The marathon route crosses four bridges.', 'Runners drink water at every fifth kilometre.'],
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Whether the episode titled `title` is published and a search for `sentence` finds one of its passages. */
async function searchable(client: Client, aliases: { episodes: string; passages: string }, title: string, sentence: string): Promise<boolean> {
  const res = await client.search({ index: aliases.episodes, body: { size: 1, query: { match_phrase: { title } }, _source: ['id', 'status'] } } as never);
  const episode = (res.body as { hits: { hits: { _source: { id: string; status: string } }[] } }).hits.hits[0]?._source;
  if (episode?.status !== 'published') return false;
  const hit = await client.search({
    index: aliases.passages,
    body: { size: 1, query: { bool: { must: { match: { text: { query: sentence, minimum_should_match: '75%' } } }, filter: { term: { episodeId: episode.id } } } } },
  } as never);
  return (hit.body as { hits: { hits: unknown[] } }).hits.hits.length > 0;
}

/** A throw-away pipeline: its indices, queues and library folder on the services `up` runs, the real embedding model. */
async function openStack(transcribeUrl: string, kind: string) {
  const urls = await servicesUp({ log });
  const modelDir = loadConfig(process.env).modelDir ?? (await ensureModel({ cacheDir: CACHE_DIR, log }));
  const prefix = `bench-${kind}-${randomBytes(4).toString('hex')}-`;
  const libraryDir = await mkdtemp(path.join(tmpdir(), `bench-${kind}-`));
  const env = {
    ...process.env,
    OPENSEARCH_URL: urls.opensearchUrl,
    REDIS_URL: urls.redisUrl,
    MODEL_DIR: modelDir,
    INDEX_PREFIX: prefix,
    FOLLOW_LIBRARY_DIR: libraryDir,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    TRANSCRIBE_URL: transcribeUrl,
    FOLLOW_POLL_INTERVAL_SECONDS: '3600',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const connection = createRedisConnection(config.redisUrl);
  const pollQueue = createPollQueue(connection, prefix);
  const processQueue = createProcessQueue(connection, prefix);
  const embedder = await createIndexerEmbedder(config, { log });
  const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, layout: config.indexLayout });
  await client.index({ index: aliases.users, id: 'u_bench', body: userDocument({ id: 'u_bench', name: 'Bench', plan: 'paid' }), refresh: true } as never);
  const ctx = { client, embedder, aliases, log };
  let workers: Awaited<ReturnType<typeof startPipelineWorkers>> | undefined;
  return {
    env,
    config,
    client,
    aliases,
    ctx,
    pollQueue,
    processQueue,
    deps: { pipeline: config.pipeline, ctx, processQueue, pollQueue, log },
    async startWorkers() {
      workers = await startPipelineWorkers({ connection, indexPrefix: prefix, pipeline: config.pipeline, ctx, log });
      return workers;
    },
    async close() {
      if (workers) await workers.close();
      for (const q of [pollQueue, processQueue]) {
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
      connection.disconnect();
      await deleteIndices(client, prefix).catch(() => undefined);
      await client.close();
      await rm(libraryDir, { recursive: true, force: true });
    },
  };
}

/** Speaks `sentences` into `name` under the bench's cache folder, once. */
async function spoken(name: string, sentences: readonly string[]): Promise<string> {
  const dir = path.join(CACHE_DIR, 'bench', 'transcribe');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  try {
    readFileSync(file);
  } catch {
    await speak([...sentences], file, { gapMs: 700 });
  }
  return file;
}

/**
 * Freshness: `items` short spoken items added one at a time to a followed loopback feed, each timed from
 * `follow --poll` to searchable, against the transcription of the same audio alone. Uses the services `up` runs
 * (or OPENSEARCH_URL, REDIS_URL), throw-away indices, queues and library folder.
 */
export async function freshness(transcribeUrl: string, items: number) {
  const stack = await openStack(transcribeUrl, 'fresh');
  const feed = await startFeedServer({ title: 'Freshness Radio' });
  try {
    const { client, aliases, config, env } = stack;
    const list = [];
    for (let i = 0; i < items; i++) {
      const sentences = FRESH_ITEMS[i % FRESH_ITEMS.length]!;
      const file = await spoken(`fresh-${i % FRESH_ITEMS.length}.mp3`, sentences);
      feed.setFile(`/audio/fresh-${i}.mp3`, await readFile(file), 'audio/mpeg');
      list.push({ i, sentences, file });
    }
    // A first item with its own SRT, so the feed is followed before the timed items come (nothing transcribed).
    feed.setFile('/srt/intro.srt', '1\n00:00:00,000 --> 00:00:03,000\nWelcome to the freshness bench.\n', 'application/srt');
    feed.addItem({ guid: 'intro', title: 'Intro', pubDate: new Date(Date.UTC(2026, 0, 1)), transcript: { path: '/srt/intro.srt', type: 'application/srt' } });
    await followSource(stack.deps, { source: feed.feedUrl, slug: 'freshness-radio', ownerId: 'u_bench' });
    await stack.startWorkers();
    await until(() => searchable(client, aliases, 'Intro', 'Welcome to the freshness bench.'), 120_000);

    const runs: { freshSeconds: number; pollSeconds: number; transcribeSeconds: number; audioSeconds: number }[] = [];
    for (const item of list) {
      const alone = await transcribeFile(item.file, {
        url: transcribeUrl,
        model: config.pipeline.transcribe.model,
        maxUploadBytes: config.pipeline.transcribe.maxUploadBytes,
        timeoutMs: config.pipeline.transcribe.timeoutMs,
        log,
      });
      const title = `Fresh item ${item.i + 1}`;
      // With its duration, as hosts write it (a feed without one re-indexes transcribed items on its next change).
      const durationSeconds = Math.round(await probeSeconds(item.file));
      feed.addItem({ guid: `fresh-${item.i}`, title, pubDate: new Date(Date.UTC(2026, 0, 2 + item.i)), enclosure: `/audio/fresh-${item.i}.mp3`, durationSeconds });
      const started = performance.now();
      const poll = runScript('bin/follow.ts', ['--poll', 'freshness-radio'], env);
      const code = await poll.exited;
      if (code !== 0) throw new Error(`follow --poll exited ${code}: ${poll.stderr().trim().split('\n').at(-1)}`);
      const pollSeconds = (performance.now() - started) / 1000;
      await until(() => searchable(client, aliases, title, item.sentences[1]!), 300_000);
      const freshSeconds = (performance.now() - started) / 1000;
      runs.push({ freshSeconds, pollSeconds, transcribeSeconds: alone.seconds, audioSeconds: alone.audioSeconds });
      say(
        `freshness ${runs.length}/${items}: searchable ${freshSeconds.toFixed(1)} s after --poll (the poll command itself ${pollSeconds.toFixed(1)} s); the same ${alone.audioSeconds.toFixed(1)} s of audio transcribed alone in ${alone.seconds.toFixed(1)} s`,
      );
    }
    const p50 = median(runs.map((r) => r.freshSeconds));
    const transcribeP50 = median(runs.map((r) => r.transcribeSeconds));
    return {
      items,
      audioSecondsP50: round2(median(runs.map((r) => r.audioSeconds))),
      p50Seconds: round2(p50),
      pollCommandP50Seconds: round2(median(runs.map((r) => r.pollSeconds))),
      transcribeP50Seconds: round2(transcribeP50),
      overheadP50Seconds: round2(p50 - transcribeP50),
      goal: { overheadSeconds: 10, met: p50 - transcribeP50 <= 10 },
      peakRssMb: peakRssMb(process.pid),
      runs: runs.map((r) => ({ freshSeconds: round2(r.freshSeconds), pollSeconds: round2(r.pollSeconds), transcribeSeconds: round2(r.transcribeSeconds) })),
    };
  } finally {
    await stack.close();
    await feed.close();
  }
}

/** Backfill items: three sentences each (about 10 s of speech), the same audio under each item's own URL. */
const BACKFILL_SENTENCES = [
  'This is an old episode from the archive of the show.',
  'It talks about the weather, the garden and the neighbours.',
  'Nobody is waiting for it, so it can wait its turn.',
];

/**
 * The work order as a user meets it: a channel follows a feed of `count` old items (all backfill but its newest, the
 * FOLLOW_RECENT_ITEMS default); once three are published a new item is added and the feed polled; then another
 * channel is followed with one new item. The figures are in units of one episode's processing (the median time a
 * backfill job held the worker), as the goals are.
 */
export async function backfill(transcribeUrl: string, count: number) {
  const stack = await openStack(transcribeUrl, 'backfill');
  const backlog = await startFeedServer({ title: 'Backlog Radio' });
  const other = await startFeedServer({ title: 'Other Channel' });
  try {
    const old = await readFile(await spoken('backfill.mp3', BACKFILL_SENTENCES));
    const fresh = await readFile(await spoken('fresh-0.mp3', FRESH_ITEMS[0]!));
    const durationSeconds = Math.round(await probeSeconds(await spoken('backfill.mp3', BACKFILL_SENTENCES)));
    for (let i = 0; i < count; i++) {
      backlog.setFile(`/audio/old-${i}.mp3`, old, 'audio/mpeg');
      backlog.addItem({ guid: `old-${i}`, title: `Old ${i}`, pubDate: new Date(Date.UTC(2024, 0, 1 + i)), enclosure: `/audio/old-${i}.mp3`, durationSeconds });
    }
    backlog.setFile('/audio/new.mp3', fresh, 'audio/mpeg');
    other.setFile('/audio/new.mp3', fresh, 'audio/mpeg');

    const done: { episodeId: string; at: number }[] = [];
    say(`backfill: following a feed of ${count} old items`);
    await followSource(stack.deps, { source: backlog.feedUrl, slug: 'backlog-radio', ownerId: 'u_bench' });
    const workers = await stack.startWorkers();
    workers.process.on('completed', (_job, result) => done.push({ episodeId: result.episodeId, at: performance.now() }));
    await until(async () => done.length >= 3, 600_000);

    backlog.addItem({ guid: 'new', title: 'New today', pubDate: new Date(), enclosure: '/audio/new.mp3', durationSeconds: 7 });
    const polled = performance.now();
    await pollSource(stack.deps, 'backlog-radio', { force: true });
    const newId = await episodeOf('backlog-radio', 'new');
    const before = done.length;
    await until(async () => done.some((d) => d.episodeId === newId), 600_000);
    const newAt = done.find((d) => d.episodeId === newId)!;
    const newJob = await timesOf(newId);

    say('backfill: another channel follows a feed with one new item');
    other.addItem({ guid: 'other-new', title: 'Other new', pubDate: new Date(), enclosure: '/audio/new.mp3', durationSeconds: 7 });
    const followed = performance.now();
    await followSource(stack.deps, { source: other.feedUrl, slug: 'other-channel', ownerId: 'u_bench' });
    const otherId = await episodeOf('other-channel', 'other-new');
    await until(async () => done.some((d) => d.episodeId === otherId), 600_000);
    const otherAt = done.find((d) => d.episodeId === otherId)!;
    const otherJob = await timesOf(otherId);

    // One episode's processing: how long a backfill job held the worker (download, transcription, embedding, writes).
    const jobs = await stack.processQueue.getJobs(['completed'], 0, -1);
    const held = jobs
      .filter((j) => j.data.slug === 'backlog-radio' && j.data.episodeId !== newId && j.processedOn && j.finishedOn)
      .map((j) => (j.finishedOn! - j.processedOn!) / 1000);
    const episodeSeconds = median(held);
    const backfillBefore = done.slice(0, done.indexOf(newAt)).filter((d) => d.episodeId !== newId).length;
    const otherWait = otherJob.waitSeconds;
    return {
      backfillItems: count,
      episodeSeconds: round2(episodeSeconds),
      newItem: {
        backfillPublishedBefore: backfillBefore,
        backfillPublishedWhileWaiting: done.indexOf(newAt) - before,
        latencySeconds: round2((newAt.at - polled) / 1000),
        latencyRatio: round2((newAt.at - polled) / 1000 / episodeSeconds),
        waitSeconds: round2(newJob.waitSeconds),
        waitRatio: round2(newJob.waitSeconds / episodeSeconds),
      },
      otherChannel: {
        latencySeconds: round2((otherAt.at - followed) / 1000),
        waitSeconds: round2(otherWait),
        waitRatio: round2(otherWait / episodeSeconds),
      },
      goal: { halfOfBackfill: backfillBefore < count / 2, otherWaitAtMostOneEpisode: otherWait <= episodeSeconds, met: backfillBefore < count / 2 && otherWait <= episodeSeconds },
    };
  } finally {
    await stack.close();
    await backlog.close();
    await other.close();
  }

  /** The episode id of the item `guid` of a followed channel. */
  async function episodeOf(slug: string, guid: string): Promise<string> {
    const state = await readState(stack.config.pipeline.libraryDir, slug);
    const found = Object.entries(state?.items ?? {}).find(([, item]) => item.key === guid);
    if (!found) throw new Error(`no item ${guid} in ${slug}`);
    return found[0];
  }

  /** How long the episode's job waited in the queue before a worker took it (BullMQ's own times). */
  async function timesOf(episodeId: string): Promise<{ waitSeconds: number }> {
    const jobs = await stack.processQueue.getJobs(['completed'], 0, -1);
    const job = jobs.find((j) => j.data.episodeId === episodeId);
    if (!job?.processedOn) throw new Error(`no finished job for ${episodeId}`);
    return { waitSeconds: (job.processedOn - job.timestamp) / 1000 };
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not searchable within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
