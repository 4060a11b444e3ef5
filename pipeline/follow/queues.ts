// The pipeline's BullMQ plumbing: a poll queue driven by one Job Scheduler per followed source, and a processing
// queue with one job per episode version (a deterministic id, so a re-poll cannot enqueue the same work twice).
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { FollowState } from './state.js';

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
 * Adds the processing job of an episode version unless it is already waiting, delayed or running. A finished job
 * with the same id (a `--retry`, or a job whose result was lost) is replaced, so a deliberate re-run runs.
 */
export async function enqueueProcess(queue: Queue<ProcessJob>, job: ProcessJob): Promise<{ id: string; added: boolean }> {
  const id = processJobId(job);
  const existing = await queue.getJob(id);
  if (existing) {
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return { id, added: false };
    await existing.remove();
  }
  await queue.add('process', job, { jobId: id });
  return { id, added: true };
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
