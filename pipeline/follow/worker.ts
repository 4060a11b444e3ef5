// The pipeline's workers inside `npm run worker`: polls (from the Job Schedulers) and processing jobs, and what Redis
// holds of the pipeline re-made from the library folders when the worker starts (recover.ts).
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { PipelineConfig } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { startEnrichThread, type EnrichThreadOptions } from '../enrich/enrich-thread.js';
import { pollSource, type PollReport } from './poll.js';
import { processEpisode, type ProcessResult } from './process.js';
import { createPollQueue, createProcessQueue, queueNames, recordStart, type PollJob, type ProcessJob } from './queues.js';
import { recoverFollowWork } from './recover.js';
import { markStalledWaiting } from './stalled.js';
import { followRequestQueueName, type FollowRequestJob, type FollowRequestResult } from './requests.js';
import { runFollowRequest } from './run-request.js';

export interface PipelineWorkersOptions {
  connection: Redis;
  indexPrefix: string;
  pipeline: PipelineConfig;
  ctx: IndexContext;
  /** Processing jobs at once; default TRANSCRIBE_CONCURRENCY per service in TRANSCRIBE_URL (transcription is an HTTP call: the worker stays async). */
  concurrency?: number;
  /** Lock of a processing job; a dead worker's job is taken over after it. Default 30 s (renewed while it runs). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  log?: Logger | undefined;
  /**
   * Enrichment before publishing (ENRICH on), in one thread beside the event loop with a deadline per episode (its
   * I/O answered here); unset: episodes are published as transcribed.
   */
  enrich?: Omit<EnrichThreadOptions, 'log'> | undefined;
}

export interface PipelineWorkers {
  poll: Worker<PollJob, PollReport>;
  process: Worker<ProcessJob, ProcessResult>;
  /** Follows asked for in the console (requests.ts), one at a time. */
  requests: Worker<FollowRequestJob, FollowRequestResult>;
  /** Sources whose scheduler was (re)made at start. */
  sources: number;
  close(): Promise<void>;
}

/**
 * Starts the poll and processing workers and re-makes each followed source's scheduler (idempotent), then
 * re-enqueues work whose job Redis no longer has, in the work order (recent episodes first, channels in turn).
 * Processing jobs stalled by a dead worker go back to wait and run again (at most 3 stalls before they fail).
 */
export async function startPipelineWorkers({
  connection,
  indexPrefix,
  pipeline,
  ctx,
  concurrency = pipeline.transcribe.concurrency * Math.max(1, pipeline.transcribe.urls.length),
  lockDurationMs = 30_000,
  stalledIntervalMs = 30_000,
  log,
  enrich,
}: PipelineWorkersOptions): Promise<PipelineWorkers> {
  const names = queueNames(indexPrefix);
  const pollQueue = createPollQueue(connection, indexPrefix);
  const processQueue = createProcessQueue(connection, indexPrefix);
  const enricher = enrich ? startEnrichThread({ ...enrich, log }) : undefined;
  const deps = { pipeline, ctx, processQueue, log, enrich: enricher };

  const poll = new Worker<PollJob, PollReport>(names.poll, (job: Job<PollJob>) => pollSource(deps, job.data.slug, { force: job.data.force === true }), {
    connection,
    concurrency: 4,
  });
  const process = new Worker<ProcessJob, ProcessResult>(
    names.process,
    async (job: Job<ProcessJob>) => {
      // The round moves on: a channel that had nothing queued joins at this turn, not ahead of it (work-order.ts).
      // Bookkeeping of the order only: a failed write must not fail the episode.
      await recordStart(connection, processQueue, job.priority).catch((err: Error) => log?.warn({ jobId: job.id, err: err.message }, 'the turn could not be recorded'));
      return processEpisode(deps, job.data, { lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });
    },
    { connection, concurrency, lockDuration: lockDurationMs, stalledInterval: stalledIntervalMs, maxStalledCount: 3 },
  );
  const requests = new Worker<FollowRequestJob, FollowRequestResult>(
    followRequestQueueName(indexPrefix),
    (job: Job<FollowRequestJob>) => runFollowRequest({ ...deps, pollQueue, redis: connection, indexPrefix }, job),
    { connection, concurrency: 1 },
  );
  requests.on('failed', (job, err) => log?.info({ jobId: job?.id, err: err.message }, 'follow request refused'));
  poll.on('failed', (job, err) => log?.error({ jobId: job?.id, err: err.message }, 'poll job failed'));
  process.on('completed', (job, result) => log?.info({ jobId: job.id, ...result }, 'episode processed'));
  process.on('failed', (job, err) => log?.warn({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message }, 'processing job failed'));
  process.on('stalled', (jobId) => {
    log?.warn({ jobId }, 'processing job stalled (its worker died); it will run again');
    markStalledWaiting({ libraryDir: pipeline.libraryDir, ctx }, processQueue, jobId).catch((err: Error) =>
      log?.warn({ jobId, err: err.message }, 'the waiting status could not be written'),
    );
  });
  for (const w of [poll, process, requests]) w.on('error', (err) => log?.error({ err: err.message }, 'pipeline worker error'));

  const recovered = await recoverFollowWork({ pollQueue, processQueue, pipeline, log });
  log?.info({ sources: recovered.schedulers, queues: names }, 'pipeline workers started');

  return {
    poll,
    process,
    requests,
    sources: recovered.schedulers,
    async close() {
      await Promise.all([poll.close(), process.close(), requests.close()]);
      await Promise.all([pollQueue.close(), processQueue.close(), enricher?.close()]);
    },
  };
}
