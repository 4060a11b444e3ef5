// BullMQ plumbing of the indexer: the queue, enqueueing with de-duplication, the worker, waiting.
import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../core/ground/logger.js';
import { embedInTurns } from './embed-turns.js';
import { jobIdOf, runJob, type EpisodeJob, type IngestJob, type JobResult, type SyncJob } from './jobs.js';
import type { IndexContext } from './load-episode.js';
import { serializeByKey } from './serialize-by-key.js';

/**
 * Options of every ingest job. A job is tried 8 times, 2 s·2ⁿ apart (2, 4, … 128 s:
 * about 4 minutes in all, enough to ride out a restart of OpenSearch or the write
 * block of a reindex); `UnrecoverableIndexError` fails at once. Finished jobs are
 * kept a day (at most 10,000) so a run can read their results.
 */
export const INGEST_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
};

/** One Redis connection for BullMQ (workers need `maxRetriesPerRequest: null`). */
export function createRedisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export type IngestQueue = Queue<IngestJob, JobResult>;

/**
 * The ingest queue. While Redis is unreachable its commands wait for the connection to
 * come back; the connection errors meanwhile are logged once per 10 s, not per retry.
 */
export function createIngestQueue({ connection, name, log }: { connection: Redis; name: string; log?: Logger }): IngestQueue {
  const queue = new Queue<IngestJob, JobResult>(name, { connection, defaultJobOptions: INGEST_JOB_OPTIONS });
  queue.on(
    'error',
    throttled(10_000, (err: Error) => log?.warn({ err: err.message }, 'queue: Redis unreachable, waiting for it')),
  );
  return queue;
}

/** `fn`, called at most once per `ms` (later calls inside the window are dropped). */
function throttled<A extends unknown[]>(ms: number, fn: (...args: A) => void): (...args: A) => void {
  let last = 0;
  return (...args) => {
    if (Date.now() - last < ms) return;
    last = Date.now();
    fn(...args);
  };
}

/**
 * Adds `job` under its content id. The same content waiting, delayed or active is
 * not added twice; a finished job with that id is replaced so that a deliberate
 * re-run always runs (cheaply: an unchanged episode is skipped by the worker).
 */
export async function enqueue(queue: IngestQueue, job: IngestJob): Promise<{ id: string; deduplicated: boolean }> {
  const id = jobIdOf(job);
  const existing = await queue.getJob(id);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return { id, deduplicated: true };
    await existing.remove();
  }
  await queue.add(job.kind, job, { jobId: id });
  return { id, deduplicated: false };
}

export interface IngestWorkerOptions {
  connection: Redis;
  name: string;
  ctx: IndexContext;
  /**
   * Jobs run at once. Default 2: the next episode embeds while the one before waits for its
   * writes; embedding calls still run one at a time, the earliest started job's first (as
   * `loadLibrary` does it). More than 2 only queues more jobs for the same embedder.
   */
  concurrency?: number;
  /** How long a job's lock lives without renewal; a killed worker's job is recovered after it. Default 30 s. */
  lockDurationMs?: number;
  /** How often stalled jobs (lock expired) are looked for and put back to wait. Default 30 s. */
  stalledIntervalMs?: number;
  /** Times a job may stall (its worker died) before it is failed. Default 3. */
  maxStalledCount?: number;
  log?: Logger | undefined;
}

/**
 * The worker: runs each job with {@link runJob}, `concurrency` at once. Episode jobs share
 * the embedder in turns (one call at a time, the job that started first embeds first), and
 * two jobs of the same episode (two versions queued one after the other) never overlap:
 * they run one after the other in the order this worker took them. A job whose worker dies
 * is moved back to wait by BullMQ's stalled-job check and run again; writes are keyed by
 * stable ids and the catalog row is written last, so a re-run ends in the same state.
 */
export function createIngestWorker({
  connection,
  name,
  ctx,
  concurrency = 2,
  lockDurationMs = 30_000,
  stalledIntervalMs = 30_000,
  maxStalledCount = 3,
  log,
}: IngestWorkerOptions): Worker<IngestJob, JobResult> {
  // For the sync's look at the queue (a Worker cannot list jobs).
  let queue: IngestQueue | undefined;
  const embedderFor = embedInTurns(ctx.embedder);
  // Two versions of one episode side by side would race: each deletes the stored passages the
  // other's version does not have, and the catalog row of whichever finished last would win.
  // Within this worker they take turns; across workers they did not before either (see README).
  const sameEpisode = serializeByKey();
  // Two meta jobs of one library side by side would race too: each removes the stored facet names its own payload
  // does not hold, so an older job finishing last would delete the names a newer one just wrote.
  const sameLibrary = serializeByKey();
  let started = 0;

  const run = (job: Job<IngestJob, JobResult>, jobCtx: IndexContext): Promise<JobResult> => {
    let embedded = 0;
    return runJob(jobCtx, job.data, {
      onEmbedded: (n) => {
        embedded += n;
        void job.updateProgress({ embedded }).catch(() => undefined);
      },
    });
  };

  const worker = new Worker<IngestJob, JobResult>(
    name,
    async (job: Job<IngestJob, JobResult>) => {
      const data = job.data;
      if (data.kind === 'episode') {
        // The turn order is taken when the job starts work, not while it waits for its episode's
        // earlier job: a job already writing is not held up by one that was waiting.
        return sameEpisode.run(episodeKey(data), () => run(job, { ...ctx, embedder: embedderFor(started++) }));
      }
      if (data.kind === 'meta') return sameLibrary.run(libraryKey(data), () => run(job, ctx));
      // Sync jobs need no turn (meta writes users, channels and facets, which no episode job
      // reads, and takes turns with the library's other meta jobs above). A sync beside an episode job: the episodes it keeps are untouched
      // (its deletes name only episodes not in `keepIds`), and jobs of the episodes it removes
      // are dropped or waited for first, also when they run (or wait for their turn) in this worker.
      if (data.kind === 'sync') {
        queue ??= createIngestQueue({ connection, name, log });
        const dropped = await dropJobsOfRemovedEpisodes(queue, data);
        if (dropped > 0) log?.info({ jobId: job.id, dropped }, 'sync: dropped queued jobs of removed episodes');
      }
      return run(job, ctx);
    },
    { connection, concurrency, lockDuration: lockDurationMs, stalledInterval: stalledIntervalMs, maxStalledCount },
  );
  worker.on('closed', () => void queue?.close());
  worker.on('completed', (job, result) => log?.info({ jobId: job.id, ...summarize(result) }, 'job completed'));
  worker.on('failed', (job, err) => log?.error({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message, name: err.name }, 'job failed'));
  worker.on('stalled', (jobId) => log?.warn({ jobId }, 'job stalled (its worker died); it will run again'));
  worker.on(
    'error',
    throttled(10_000, (err: Error) => log?.error({ err: err.message }, 'worker error (repeats within 10 s not logged)')),
  );
  return worker;
}

/** The channels a meta job writes the names of (its facet documents and their cleanup are scoped by them). */
function libraryKey(job: Extract<IngestJob, { kind: 'meta' }>): string {
  const ids = Array.isArray(job.channels) ? job.channels.map((c) => String((c as { id?: unknown })?.id)) : [];
  return [...ids].sort().join('\n');
}

/** The episode a job writes; a payload without a usable id still gets a key (its job fails validation). */
function episodeKey(job: EpisodeJob): string {
  return String((job.record as { id?: unknown } | undefined)?.id);
}

const EPISODE_JOB_ID = /^episode-(.+)-[0-9a-f]{16}(?:-force)?$/;

/**
 * Keeps an older job from bringing back an episode the sync is about to remove: jobs of
 * the sync's channels for episodes it does not keep are taken off the queue while they
 * wait (say, for a retry), and those running are waited for (at most `waitMs`) so that
 * the removal comes after their writes. Returns how many were dropped.
 */
export async function dropJobsOfRemovedEpisodes(
  queue: IngestQueue,
  sync: Pick<SyncJob, 'channelIds' | 'keepIds'>,
  { waitMs = 5 * 60_000 }: { waitMs?: number } = {},
): Promise<number> {
  const keep = new Set(sync.keepIds);
  const channels = new Set(sync.channelIds);
  // Ids first (they name the episode), then only the candidates' payloads (they name the channel).
  const doomed = async (states: Parameters<IngestQueue['getRanges']>[0]) => {
    const ids: string[] = [];
    for (const id of await queue.getRanges(states, 0, -1)) {
      const episodeId = EPISODE_JOB_ID.exec(id)?.[1];
      if (episodeId === undefined || keep.has(episodeId)) continue;
      const job = await queue.getJob(id);
      if (job?.data.kind === 'episode' && channels.has(job.data.record.channelId)) ids.push(id);
    }
    return ids;
  };
  let dropped = 0;
  const drop = async () => {
    for (const id of await doomed(['waiting', 'delayed', 'prioritized'])) dropped += (await queue.remove(id)) ? 1 : 0;
  };
  const deadline = Date.now() + waitMs;
  // Again after each wait: a dead worker's job goes from active back to waiting.
  for (;;) {
    await drop();
    if ((await doomed(['active'])).length === 0 || Date.now() >= deadline) {
      // Once more: a job that failed an attempt between the drop and the look at the active
      // ones went to `delayed` for its retry (likelier now that a sync shares its worker with
      // an episode job), and would bring its episode back.
      await drop();
      return dropped;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function summarize(result: JobResult): Record<string, unknown> {
  return result.kind === 'episode' ? { episodeId: result.id, outcome: result.outcome, passages: result.passages, embedded: result.embedded, reused: result.reused } : { ...result };
}
