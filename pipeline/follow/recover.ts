// What the feed pipeline rebuilds in Redis when the worker starts, from the library folders (follow.json of each
// followed source): one poll scheduler per source, and the processing job of every episode version not processed yet,
// under its deterministic id. With Redis intact this finds everything in place and adds nothing; with Redis's data lost
// it re-enqueues exactly the unfinished work: a published episode is never transcribed again (its outcome is in
// follow.json), a waiting one never forgotten.
import type { Queue } from 'bullmq';
import type { Logger } from '../../core/ground/logger.js';
import { enqueueUnprocessed, type WorkOrderSettings } from './poll.js';
import { MAX_PROCESS_STARTS, syncPollSchedulers, type PollJob, type ProcessJob } from './queues.js';
import { listStates, startsOf, type FollowState } from '../../core/library/follow-state.js';

export interface FollowRecovery {
  /** Followed sources (stopped ones included). */
  sources: number;
  /** Schedulers made or kept (sources not stopped), and removed (sources stopped or gone). */
  schedulers: number;
  removedSchedulers: number;
  /** Processing jobs Redis held (waiting, running, delayed) before the rebuild: 0 after its data was lost. */
  jobsInRedis: number;
  /** Episode versions of feeds still to process, by follow.json. */
  unfinished: number;
  /** Of those, jobs added now (lost, or never enqueued), and those left for later polls (FOLLOW_MAX_QUEUED_PER_CHANNEL). */
  requeued: number;
  deferred: number;
  /** Versions started more often than any job may start them without an outcome: not enqueued again. */
  exhausted: number;
}

/** The episode versions of a feed's follow.json still to process, and those past the start limit. */
export function unfinishedItems(state: Pick<FollowState, 'kind' | 'items'>): { unfinished: number; exhausted: number } {
  // A yt-dlp folder's items are published by the poll itself: nothing of theirs waits in a queue.
  if (state.kind !== 'feed') return { unfinished: 0, exhausted: 0 };
  let unfinished = 0;
  let exhausted = 0;
  for (const source of Object.values(state.items)) {
    if (source.processed?.digest === source.digest) continue;
    if (startsOf(source, source.digest) > MAX_PROCESS_STARTS) exhausted++;
    else unfinished++;
  }
  return { unfinished, exhausted };
}

/**
 * Rebuilds the pipeline's Redis state from the library folders: the schedulers (idempotent upserts, stale ones
 * removed), then the unfinished episodes in the work order. Logged once with its counts.
 */
export async function recoverFollowWork({
  pollQueue,
  processQueue,
  pipeline,
  log,
}: {
  pollQueue: Queue<PollJob>;
  processQueue: Queue<ProcessJob>;
  pipeline: { libraryDir: string; pollIntervalSeconds: number } & Pick<WorkOrderSettings, 'recentDays' | 'recentItems' | 'maxQueuedPerChannel'>;
  log?: Pick<Logger, 'info' | 'warn'> | undefined;
}): Promise<FollowRecovery> {
  const jobsInRedis = await processQueue.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized');
  // A source whose follow.json fails its schema is named in the log and left out: it is not polled until the file is fixed.
  const states = await listStates(pipeline.libraryDir, { onBroken: (err) => log?.warn({ err: err.message }, 'a follow state is refused') });
  const { active, removed } = await syncPollSchedulers(pollQueue, states, pipeline.pollIntervalSeconds);
  const report: FollowRecovery = { sources: states.length, schedulers: active, removedSchedulers: removed, jobsInRedis, unfinished: 0, requeued: 0, deferred: 0, exhausted: 0 };
  for (const state of states) {
    const { unfinished, exhausted } = unfinishedItems(state);
    report.unfinished += unfinished;
    report.exhausted += exhausted;
    const queued = await enqueueUnprocessed({ processQueue, pipeline }, state);
    report.requeued += queued.enqueued;
    report.deferred += queued.deferred;
  }
  log?.info({ ...report }, 'follow work rebuilt from the library folders');
  return report;
}
