// Redis's data deleted between two runs of the real worker, on a private Redis started by the provisioner (the
// services' Redis is never touched): a followed feed with episodes published and episodes waiting, a webhook endpoint
// whose deliveries were enqueued but not delivered. Shared by `npm run drill -- redis-loss` (which prints what it saw)
// and the integration suite (which asserts it).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { changesAfter } from '../../core/changes/read.js';
import { deleteIndices, ensureIndices, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createProcessQueue } from '../../pipeline/follow/queues.js';
import { getEndpoint } from '../../pipeline/webhooks/store.js';
import type { CheckpointedEndpoint } from '../../pipeline/webhooks/recover.js';
import { deleteRedisData, ensureRedis, redisDir, stopRedis } from '../ops/provision/redis.js';
import { runScript, type Child } from '../lib/child.js';
import { startCountingRelay, startFeedServer, type FeedServer } from '../lib/fakes/feed-server.js';
import { followEnv, runFollow } from '../../test/support/follow-env.js';
import { startHashEmbeddingsServer } from '../lib/fakes/hash-embeddings-server.js';
import { privatePrefix, testClient } from '../../test/support/indexer-env.js';
import { speak } from '../lib/fakes/speech.js';

const SLUG = 'redis-loss-radio';
const OWNER = 'u_redis_loss';

/** Short spoken episodes: the first `before` are published by the first worker run, the rest wait when Redis is lost. */
const EPISODES: [string, string[]][] = [
  ['Lanterns', ['Lanterns were lit at dusk.', 'The keeper trimmed every wick.']],
  ['Harbours', ['The harbour froze in January.', 'Boats waited for the thaw.']],
  ['Orchards', ['Apple trees need a cold winter.', 'Prune them before the buds swell.']],
  ['Glaciers', ['A glacier moves a few metres a day.', 'Its ice can be very old.']],
  ['Beehives', ['Bees keep the hive warm in winter.', 'They cluster around the queen.']],
];

export interface RedisLossOptions {
  /** Episodes published before the loss; the rest wait in Redis when its data is deleted. */
  before?: number;
  /** The transcription service the counting relay passes to (TRANSCRIBE_URL). */
  transcribeUrl: string;
  /** Bound of each wait. */
  timeoutMs?: number;
  /** Progress lines (the drill writes them to stderr). */
  say?: (line: string) => void;
}

/** What the scenario saw, for the drill's checks and the suite's assertions. */
export interface RedisLossOutcome {
  episodes: { title: string; status: string | undefined; audioDownloads: number }[];
  /** Transcription requests through the relay: in the first worker run, and in all. */
  transcriptionsBefore: number;
  transcriptions: number;
  /** Processing jobs the private Redis held just before its data was deleted, and keys it held just after. */
  jobsBeforeLoss: number;
  keysAfterLoss: number;
  /** The endpoint when the first worker stopped: its cursor and its delivered checkpoint. */
  endpointAtStop: { cursorSeq: number; deliveredSeq: number | null | undefined };
  /** Changes of the channel after the endpoint was registered (each must be delivered at least once). */
  changes: string[];
  /** Changes answered 503 before the loss (enqueued, not delivered). */
  failedBeforeLoss: string[];
  /** Changes answered 2xx, and how often each. */
  delivered: Map<string, number>;
  /** The second worker's structured start-up lines: the follow rebuild and the webhook rewind. */
  followRecovery: Record<string, unknown> | undefined;
  webhookRecovery: Record<string, unknown> | undefined;
  /** From the second worker's start: every episode published, every change delivered. */
  publishedAfterMs: number | undefined;
  deliveredAfterMs: number | undefined;
  outageSeconds: number;
  workerExits: (number | null)[];
}

interface Receiver {
  url: string;
  status: number;
  attempts: { id: string; status: number }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { status: 503, attempts: [] as { id: string; status: number }[] };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.attempts.push({ id: String(req.headers['webhook-id']), status: receiver.status });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function statuses(client: Client, aliases: IndexAliases): Promise<Map<string, string>> {
  await client.indices.refresh({ index: aliases.episodes });
  const res = await client.search({ index: aliases.episodes, body: { size: 100, query: { term: { channelId: `ch_${SLUG}` } } } } as never);
  const hits = (res.body as { hits: { hits: { _source: { title: string; status: string } }[] } }).hits.hits;
  return new Map(hits.map((h) => [h._source.title, h._source.status]));
}

/** The JSON log line of `child` whose `msg` starts with `msg`. */
function logLine(child: Child, msg: string): Record<string, unknown> | undefined {
  for (const line of child.stderr().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.msg === 'string' && entry.msg.startsWith(msg)) return entry;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

async function stopWorker(worker: Child): Promise<number | null> {
  if (worker.alive()) worker.process.kill('SIGTERM');
  return worker.exited;
}

/** Runs the scenario and cleans up after it (private Redis, prefix, library folder, servers), whatever happens. */
export async function runRedisLoss({ before = 2, transcribeUrl, timeoutMs = 5 * 60_000, say = () => undefined }: RedisLossOptions): Promise<RedisLossOutcome> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  const instance = `redis-loss-${process.pid}`;
  const client = testClient();
  const prefix = privatePrefix('redis-loss');
  const libraryDir = await mkdtemp(join(tmpdir(), 'redis-loss-lib-'));
  const audioDir = await mkdtemp(join(tmpdir(), 'redis-loss-audio-'));
  const cleanups: (() => Promise<unknown>)[] = [];
  const workers: Child[] = [];
  try {
    const redis = await ensureRedis({ env: { ...process.env, REDIS_PORT: '' }, log, instance, preferredPort: 6391 });
    cleanups.push(async () => {
      await stopRedis({ log, instance, crash: true });
      await rm(redisDir(instance), { recursive: true, force: true });
    });
    const relay = await startCountingRelay(transcribeUrl);
    cleanups.push(relay.close);
    const embeddings = await startHashEmbeddingsServer();
    cleanups.push(embeddings.close);
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const feed: FeedServer = await startFeedServer({ title: 'Redis Loss Radio' });
    cleanups.push(feed.close);
    cleanups.push(() => deleteIndices(client, prefix));

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env }),
      REDIS_URL: redis.url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
    };
    const cfg = loadConfig(env);
    const aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: cfg.indexLayout });
    await client.index({ index: aliases.users, id: OWNER, body: userDocument({ id: OWNER, name: 'Owner', plan: 'paid' }), refresh: true } as never);

    say(`speaking ${EPISODES.length} episodes`);
    const day = (n: number) => new Date(Date.UTC(2026, 10, n));
    const items = await Promise.all(
      EPISODES.map(async ([title, sentences], i) => {
        const file = join(audioDir, `${title}.mp3`);
        await speak(sentences, file);
        feed.setFile(`/audio/${title}.mp3`, await readFile(file), 'audio/mpeg');
        return { guid: title.toLowerCase(), title, pubDate: day(i + 1), enclosure: `/audio/${title}.mp3` };
      }),
    );
    for (const item of items.slice(0, before)) feed.addItem(item);

    const follow = async (args: string[]) => {
      const run = await runFollow(args, env as Record<string, string>);
      if (run.code !== 0) throw new Error(`follow ${args.join(' ')}: ${run.stderr.trim().split('\n').pop()}`);
    };
    await follow([feed.feedUrl, '--channel', SLUG, '--owner', OWNER]);
    const added = runScript('bin/webhooks.ts', ['add', '--channel', SLUG, '--url', receiver.url], env);
    if ((await added.exited) !== 0) throw new Error(`webhooks add: ${added.stderr().trim().split('\n').pop()}`);
    const store = { client, aliases };
    const endpointId = /"endpointId":"(wh_[0-9a-f]+)"/.exec(added.stderr())?.[1];
    if (!endpointId) throw new Error('webhooks add: no endpoint id in its log');
    const registeredAt = (await getEndpoint(store, endpointId))!.cursorSeq;

    // First run: the first episodes published; their changes enqueued for delivery and refused (503), so they wait in Redis.
    say(`worker 1: publishing ${before} episodes; the receiver answers 503`);
    const first = runScript('bin/worker.ts', [], env);
    workers.push(first);
    await until(`${before} episodes published`, async () => [...(await statuses(client, aliases)).values()].filter((s) => s === 'published').length === before, timeoutMs);
    const changesNow = async () => {
      await client.indices.refresh({ index: aliases.changes });
      return (await changesAfter(client, aliases.changes, { channelId: `ch_${SLUG}`, afterSeq: registeredAt, size: 1000 })).map((c) => c.id);
    };
    const firstChanges = await changesNow();
    await until('every change of the first run attempted once', () => firstChanges.every((id) => receiver.attempts.some((a) => a.id === id)), timeoutMs);
    const workerExits = [await stopWorker(first)];
    const transcriptionsBefore = relay.count();
    const atStop = (await getEndpoint(store, endpointId)) as CheckpointedEndpoint;

    // While no worker runs: the rest of the feed polled by the CLI, their jobs enqueued in Redis.
    for (const item of items.slice(before)) feed.addItem(item);
    await follow(['--poll', SLUG]);
    const connection = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const processQueue = createProcessQueue(connection, prefix);
    const jobsBeforeLoss = await processQueue.getJobCountByTypes('waiting', 'prioritized', 'delayed', 'active');
    await processQueue.close();
    connection.disconnect();

    // The loss: Redis stopped, its append-only files deleted, started again empty on the same port.
    say(`deleting the private Redis's data (${jobsBeforeLoss} processing jobs and the undelivered webhooks in it)`);
    const lostAt = Date.now();
    await stopRedis({ log, instance });
    await deleteRedisData({ instance });
    await ensureRedis({ env: { ...process.env, REDIS_PORT: String(redis.port) }, log, instance });
    const outageSeconds = (Date.now() - lostAt) / 1000;
    const fresh = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const keysAfterLoss = await fresh.dbsize();
    fresh.disconnect();

    // Second run on the empty Redis; the receiver accepts now.
    receiver.status = 200;
    say('worker 2: starting on the empty Redis; the receiver answers 200');
    const secondAt = Date.now();
    const second = runScript('bin/worker.ts', [], env);
    workers.push(second);
    let publishedAfterMs: number | undefined;
    let deliveredAfterMs: number | undefined;
    await until(
      'every episode published',
      async () => [...(await statuses(client, aliases)).values()].filter((s) => s === 'published').length === EPISODES.length || !second.alive(),
      timeoutMs,
    );
    if (second.alive()) publishedAfterMs = Date.now() - secondAt;
    const isDelivered = (id: string) => receiver.attempts.some((a) => a.id === id && a.status === 200);
    let changes = await changesNow();
    await until(
      'every change delivered',
      async () => {
        changes = await changesNow();
        return changes.every(isDelivered) || !second.alive();
      },
      timeoutMs,
    ).catch(() => undefined); // judged below: the outcome says what is missing
    if (changes.every(isDelivered)) deliveredAfterMs = Date.now() - secondAt;
    workerExits.push(await stopWorker(second));

    const final = await statuses(client, aliases);
    const delivered = new Map<string, number>();
    for (const a of receiver.attempts) if (a.status === 200) delivered.set(a.id, (delivered.get(a.id) ?? 0) + 1);
    return {
      episodes: EPISODES.map(([title]) => ({
        title,
        status: final.get(title),
        audioDownloads: feed.requests.filter((r) => r.path === `/audio/${title}.mp3` && r.status === 200).length,
      })),
      transcriptionsBefore,
      transcriptions: relay.count(),
      jobsBeforeLoss,
      keysAfterLoss,
      endpointAtStop: { cursorSeq: atStop.cursorSeq, deliveredSeq: atStop.deliveredSeq },
      changes,
      failedBeforeLoss: firstChanges,
      delivered,
      followRecovery: logLine(second, 'follow work rebuilt'),
      webhookRecovery: logLine(second, 'webhook cursors moved back'),
      publishedAfterMs,
      deliveredAfterMs,
      outageSeconds,
      workerExits,
    };
  } finally {
    for (const w of workers) if (w.alive()) w.process.kill('SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await client.close();
    await rm(libraryDir, { recursive: true, force: true });
    await rm(audioDir, { recursive: true, force: true });
  }
}
