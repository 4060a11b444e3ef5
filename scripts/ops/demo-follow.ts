// The demo's followed channel: its spoken feed served on loopback, followed as a channel of the demo's paid user,
// the pipeline's workers run in the demo's process, and each episode's status printed as it changes.
import { rm } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { followSource, stopFollowing } from '../../pipeline/follow/commands.js';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { channelDir } from '../../core/library/layout.js';
import { startPipelineWorkers, type PipelineWorkers } from '../../pipeline/follow/worker.js';
import { createStages } from '../../pipeline/enrich/stages.js';
import type { FeedServer } from '../lib/fakes/feed-server.js';

/** An episode as the API lists it, as far as the demo reads it. */
export interface ListedEpisode {
  id: string;
  title: string;
  status: string;
  error?: string | null;
}

/** The contract's status views of the stored statuses. */
export function statusView(status: string): string {
  return { pending: 'queued', processing: 'indexing', indexed: 'live', published: 'live' }[status] ?? status;
}

/** One line per episode whose view differs from `seen` (updated in place): `title: queued → indexing`. */
export function statusChanges(seen: Map<string, string>, episodes: readonly ListedEpisode[]): string[] {
  const lines: string[] = [];
  for (const e of episodes) {
    const view = statusView(e.status);
    const before = seen.get(e.id);
    if (before === view) continue;
    seen.set(e.id, view);
    const error = view === 'failed' && e.error ? ` (${e.error})` : '';
    lines.push(`${e.title}: ${before ? `${before} → ` : ''}${view}${error}`);
  }
  return lines;
}

/** Done when every episode is live or failed. */
export const settled = (episodes: readonly ListedEpisode[]): boolean => episodes.length > 0 && episodes.every((e) => ['live', 'failed'].includes(statusView(e.status)));

export interface DemoChannel {
  slug: string;
  feedUrl: string;
  /** Starts the poll and processing workers in this process (after the first listing, so `queued` shows). */
  startWorkers(): Promise<void>;
  /** Stops following (the scheduler goes; the folder stays), the workers without waiting for their jobs, the feed server. */
  close(): Promise<void>;
}

/**
 * Follows `feed` as channel `slug` of `ownerId` from a clean start: the channel's library folder of an earlier run is
 * removed first, so every run shows its episodes go queued → indexing → live (a few seconds of transcription each).
 * `config.pipeline` must allow private addresses: the feed is on loopback.
 */
export async function followDemoChannel({
  config,
  ctx,
  feed,
  slug,
  ownerId,
  log,
}: {
  config: Pick<Config, 'redisUrl' | 'indexPrefix' | 'pipeline' | 'enrich' | 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir' | 'embedding'>;
  ctx: IndexContext;
  feed: FeedServer;
  slug: string;
  ownerId: string;
  log: Logger;
}): Promise<DemoChannel> {
  const { pipeline } = config;
  await rm(channelDir(pipeline.libraryDir, slug), { recursive: true, force: true });
  const connection: Redis = createRedisConnection(config.redisUrl);
  const pollQueue = createPollQueue(connection, config.indexPrefix);
  const processQueue = createProcessQueue(connection, config.indexPrefix);
  const deps = { pipeline, ctx, processQueue, pollQueue, log };
  await followSource(deps, { source: feed.feedUrl, slug, ownerId });
  let workers: PipelineWorkers | undefined;
  return {
    slug,
    feedUrl: feed.feedUrl,
    async startWorkers() {
      // Enrichment as the worker does it: the spoken episodes are published with generated chapters, moments and topics.
      const enrich = config.enrich.enabled ? { ...(await createStages(config, { log, embedder: ctx.embedder })).parts, deadlineMs: config.enrich.deadlineMs } : undefined;
      workers = await startPipelineWorkers({ connection, indexPrefix: config.indexPrefix, pipeline, ctx, log, enrich });
    },
    async close() {
      await stopFollowing({ pipeline, pollQueue }, slug).catch((err: unknown) => log.warn({ err }, 'could not stop following the demo feed'));
      // Without waiting for a transcription in progress: the channel is re-made from scratch by the next run.
      if (workers) await Promise.all([workers.poll.close(true), workers.process.close(true)]);
      await Promise.all([pollQueue.close(), processQueue.close()]);
      connection.disconnect();
      await feed.close();
    },
  };
}

/**
 * Lists the channel's episodes through the API with `key` every `everyMs` and prints each status change (against
 * `seen`, kept across calls), until every episode is live or failed (or `timeoutMs` passes: then it throws); `once`
 * lists once. Returns the last listing.
 */
export async function watchEpisodes({
  base,
  slug,
  key,
  print,
  everyMs = 1000,
  timeoutMs = 15 * 60_000,
  seen = new Map<string, string>(),
  once = false,
}: {
  base: string;
  slug: string;
  key: string;
  print: (line: string) => void;
  everyMs?: number;
  timeoutMs?: number;
  seen?: Map<string, string>;
  once?: boolean;
}): Promise<ListedEpisode[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/api/v1/channels/${slug}/episodes?status=all&sort=oldest&limit=100`, { headers: { 'x-api-key': key } });
    if (!res.ok) throw new Error(`listing ${slug}'s episodes answered ${res.status}`);
    const { episodes } = (await res.json()) as { episodes: ListedEpisode[] };
    for (const line of statusChanges(seen, episodes)) print(line);
    if (once || settled(episodes)) return episodes;
    if (Date.now() > deadline) throw new Error(`the episodes of ${slug} were not all live after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
