// The pipeline's BullMQ plumbing: a poll queue driven by one Job Scheduler per followed source, and a processing
// queue with one job per episode version (a deterministic id, so a re-poll cannot enqueue the same work twice),
// ordered by priority: recent episodes first, channels in turn (work-order.ts).
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { FollowState } from '../../core/library/follow-state.js';
import { turnOfPriority, type WorkClass } from './work-order.js';

/** A poll: the channel's slug; `force` polls before the next poll time (a CLI `--poll`). */
export interface PollJob {
  slug: string;
  force?: boolean;
}

/** One episode to transcribe and publish, at the source version (`digest`) it was enqueued for. */
export interface ProcessJob {
  slug: string;
  episodeId: string;
  digest: string;
}

/** Queue names derive from INDEX_PREFIX, so two deployments (or two test suites) sharing a Redis never meet. */
export const queueNames = (indexPrefix: string) => ({ poll: `${indexPrefix}follow-poll`, process: `${indexPrefix}follow-process` });

/**
 * Options of a processing job: 5 tries, 15 s·2ⁿ apart (15, 30, 60, 120 s: about 4 minutes, enough for a
 * transcription service restarting or answering 429); only transient errors are retried (the processor throws
 * `UnrecoverableError` for the rest). Finished jobs are kept a day, failed ones a week, for `--list` and debugging.
 */
export const PROCESS_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 15_000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
};

/**
 * Processing starts of one source version before it is failed without trying: two jobs' worth of attempts. Every
 * start is counted in follow.json (retries and runs after a dead worker included), so no version is downloaded and
 * transcribed without end, whatever stops it from recording an outcome.
 */
export const MAX_PROCESS_STARTS = 2 * (PROCESS_JOB_OPTIONS.attempts ?? 1);

/** A poll is not retried by BullMQ: its own backoff (the next poll time in follow.json) decides when it runs again. */
export const POLL_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } };

/** BullMQ refuses `:` in ids; episode ids and digests have none. */
export const processJobId = ({ episodeId, digest }: Pick<ProcessJob, 'episodeId' | 'digest'>): string => `process-${episodeId}-${digest}`;
export const schedulerId = (slug: string): string => `poll-${slug}`;

export function createPollQueue(connection: Redis, indexPrefix: string): Queue<PollJob> {
  return new Queue<PollJob>(queueNames(indexPrefix).poll, { connection, defaultJobOptions: POLL_JOB_OPTIONS });
}

export function createProcessQueue(connection: Redis, indexPrefix: string): Queue<ProcessJob> {
  return new Queue<ProcessJob>(queueNames(indexPrefix).process, { connection, defaultJobOptions: PROCESS_JOB_OPTIONS });
}

/**
 * Adds the processing job of an episode version at `priority` (see work-order.ts) unless it is already waiting,
 * delayed or running. A finished job with the same id (a `--retry`, or a job whose result was lost) is replaced, so a
 * deliberate re-run runs.
 */
export async function enqueueProcess(queue: Queue<ProcessJob>, job: ProcessJob, { priority }: { priority?: number } = {}): Promise<{ id: string; added: boolean }> {
  const id = processJobId(job);
  const existing = await queue.getJob(id);
  if (existing) {
    const state = await existing.getState();
    if (!FINISHED.has(state)) return { id, added: false };
    await existing.remove();
  }
  await queue.add('process', job, { jobId: id, ...(priority ? { priority } : {}) });
  return { id, added: true };
}

/** Job states after which an episode version's job no longer holds its place (it may be added again). */
export const FINISHED: ReadonlySet<string> = new Set(['completed', 'failed', 'unknown']);

/** Where the turn last started in a class is kept: beside the queue's own keys. */
const turnKey = (queue: Pick<Queue, 'toKey'>, cls: WorkClass) => queue.toKey(`turn-${cls}`);

/** The turn last started in each class (0 before any): where a channel with nothing queued joins the round. */
export async function readFronts(queue: Queue<ProcessJob>): Promise<Record<WorkClass, number>> {
  const client = await queue.getBackend().client;
  const [fresh, backfill] = await Promise.all([client.get(turnKey(queue, 'new')), client.get(turnKey(queue, 'backfill'))]);
  return { new: Number(fresh) || 0, backfill: Number(backfill) || 0 };
}

/** Records that a job of `priority` started: the front of its class moves up to its turn (never back, as a retry may be older). */
export async function recordStart(connection: Redis, queue: Pick<Queue, 'toKey'>, priority: number | undefined): Promise<void> {
  const { cls, turn } = turnOfPriority(priority);
  if (turn <= 0) return;
  await connection.eval(
    "local c = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > c then redis.call('SET', KEYS[1], ARGV[1]) end return 1",
    1,
    turnKey(queue, cls),
    String(turn),
  );
}

/** The source's scheduler: a poll job every interval (idempotent; the poll itself skips until its next poll time). */
export async function upsertPollScheduler(queue: Queue<PollJob>, slug: string, intervalSeconds: number): Promise<void> {
  await queue.upsertJobScheduler(schedulerId(slug), { every: intervalSeconds * 1000 }, { name: 'poll', data: { slug }, opts: POLL_JOB_OPTIONS });
}

/**
 * Makes the schedulers match the followed sources: one per source not stopped, none for the others. Run when a
 * worker starts, so schedulers lost with Redis come back from the library folders.
 */
export async function syncPollSchedulers(queue: Queue<PollJob>, states: readonly FollowState[], intervalSeconds: number): Promise<{ active: number; removed: number }> {
  const active = states.filter((s) => !s.stoppedAt);
  for (const s of active) await upsertPollScheduler(queue, s.slug, intervalSeconds);
  const wanted = new Set(active.map((s) => schedulerId(s.slug)));
  let removed = 0;
  for (const scheduler of await queue.getJobSchedulers(0, -1)) {
    const id = scheduler.id ?? scheduler.key;
    if (id.startsWith('poll-') && !wanted.has(id)) removed += (await queue.removeJobScheduler(id)) ? 1 : 0;
  }
  return { active: active.length, removed };
}
