// Waiting for ingest jobs: woken by BullMQ's QueueEvents, swept now and then for jobs Redis lost.
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobResult } from './jobs.js';
import type { IngestQueue } from './queue.js';

export interface JobOutcome {
  id: string;
  state: 'completed' | 'failed';
  result?: JobResult;
  reason?: string;
}

/**
 * Waits until every job in `ids` has completed or failed for good (a job waiting
 * for a retry is not done). BullMQ's `QueueEvents` wakes the wait when one of them
 * completes or fails, and the states are read then; a sweep every `pollMs` (default
 * 5 s) reads them too, which finds lost jobs and anything an event stream missed while
 * Redis was away. Calls `onUpdate` after each reading.
 *
 * A job that is gone from the queue (Redis lost it: a crash before its append-only
 * file was synced, a flush, an eviction) is handed to `requeue` once per poll with
 * every other lost id, and watched again under the same id; after `maxRequeues` losses
 * of one job, or with no `requeue`, it counts as failed. While Redis is down the
 * polls simply wait (the connection queues commands until it is back).
 */
export async function waitForJobs(
  queue: IngestQueue,
  ids: readonly string[],
  {
    pollMs = 5000,
    onOutcome,
    onUpdate,
    requeue,
    maxRequeues = 3,
    signal,
  }: {
    pollMs?: number;
    onOutcome?: (outcome: JobOutcome) => void;
    onUpdate?: (done: number, total: number) => void;
    /** Puts the lost jobs back on the queue under the same ids. */
    requeue?: (lost: ReadonlySet<string>) => Promise<void>;
    maxRequeues?: number;
    signal?: AbortSignal;
  } = {},
): Promise<JobOutcome[]> {
  const outcomes: JobOutcome[] = [];
  const requeued = new Map<string, number>();
  let pending = [...ids];
  const watched = new Set(ids);
  // Its own connection: QueueEvents blocks on XREAD, which would hold up the queue's commands.
  const connection = (queue.opts.connection as Redis).duplicate();
  const events = new QueueEvents(queue.name, { connection });
  events.on('error', () => undefined); // Redis away: the sweep keeps going, the stream resumes by itself
  // An event that arrives while the states are being read is not lost: the next wait returns at once.
  let dirty = false;
  let wake: (() => void) | undefined;
  const onEvent = ({ jobId }: { jobId: string }) => {
    if (!watched.has(jobId)) return;
    dirty = true;
    wake?.();
  };
  events.on('completed', onEvent).on('failed', onEvent);
  const nextReading = async () => {
    if (!dirty) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    dirty = false;
  };
  try {
    while (pending.length > 0) {
      signal?.throwIfAborted();
      const still: string[] = [];
      const lost = new Set<string>();
      for (let i = 0; i < pending.length; i += 100) {
        const slice = pending.slice(i, i + 100);
        // State first, then the job: a job read before its state could predate its result.
        const states = await Promise.all(slice.map((id) => queue.getJobState(id)));
        for (const [k, id] of slice.entries()) {
          const state = states[k];
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') {
            still.push(id);
            continue;
          }
          const job = await queue.getJob(id);
          if (!job && requeue && (requeued.get(id) ?? 0) < maxRequeues) {
            requeued.set(id, (requeued.get(id) ?? 0) + 1);
            lost.add(id);
            still.push(id);
            continue;
          }
          const outcome: JobOutcome = !job
            ? { id, state: 'failed', reason: 'job disappeared from the queue' }
            : state === 'completed'
              ? { id, state, result: job.returnvalue }
              : state === 'failed'
                ? { id, state, reason: job.failedReason }
                : { id, state: 'failed', reason: `job in state ${state}` };
          outcomes.push(outcome);
          onOutcome?.(outcome);
        }
      }
      if (lost.size > 0) await requeue!(lost);
      pending = still;
      onUpdate?.(ids.length - pending.length, ids.length);
      if (pending.length > 0) await nextReading();
    }
  } finally {
    await events.close().catch(() => undefined);
    connection.disconnect();
  }
  return outcomes;
}
