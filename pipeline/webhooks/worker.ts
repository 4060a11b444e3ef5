// The webhooks inside `npm run worker`: the dispatcher's Job Scheduler and worker, and the delivery worker with the
// retry schedule as its backoff strategy. Never in the API process.
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../src/ground/logger.js';
import { attemptsFor, retryDelay, type RetryPolicy } from './backoff.js';
import { deliverChange, type DeliveryOutbound, type DeliveryResult } from './deliver.js';
import { dispatchAll, type DispatchOptions } from './dispatch.js';
import { WebhookError } from './errors.js';
import { DISPATCH_JOB_OPTIONS, DISPATCH_SCHEDULER_ID, createDeliveryQueue, createDispatchQueue, webhookQueueNames, type DeliveryJob } from './queues.js';
import type { WebhookStoreDeps } from './store.js';

/** How often the change logs are polled for endpoints' new changes. */
export const DEFAULT_DISPATCH_EVERY_MS = 5000;

export interface WebhookWorkersOptions {
  connection: Redis;
  indexPrefix: string;
  store: WebhookStoreDeps;
  /** OUTBOUND_ALLOW_PRIVATE, the User-Agent, the timeout (default 10 s). */
  outbound: DeliveryOutbound;
  /** The retry schedule (tests shorten it). */
  retry?: RetryPolicy;
  dispatchEveryMs?: number;
  dispatch?: DispatchOptions;
  /** Deliveries at once (each is an HTTP call: the worker stays async). */
  concurrency?: number;
  log?: Logger | undefined;
}

export interface WebhookWorkers {
  dispatch: Worker;
  deliver: Worker<DeliveryJob, DeliveryResult>;
  close(): Promise<void>;
}

/** Starts the dispatcher (a Job Scheduler every `dispatchEveryMs`, one run at a time per worker) and the delivery worker. */
export async function startWebhookWorkers({
  connection,
  indexPrefix,
  store,
  outbound,
  retry = {},
  dispatchEveryMs = DEFAULT_DISPATCH_EVERY_MS,
  dispatch: dispatchOptions = {},
  concurrency = 8,
  log,
}: WebhookWorkersOptions): Promise<WebhookWorkers> {
  const names = webhookQueueNames(indexPrefix);
  const dispatchQueue = createDispatchQueue(connection, indexPrefix);
  const deliveryQueue = createDeliveryQueue(connection, indexPrefix);
  const attempts = attemptsFor(retry.schedule);
  const deliverDeps = { store, outbound: { timeoutMs: 10_000, ...outbound }, log };

  const dispatch = new Worker(names.dispatch, () => dispatchAll({ store, deliveryQueue, attempts, log }, dispatchOptions), { connection, concurrency: 1 });
  const deliver = new Worker<DeliveryJob, DeliveryResult>(
    names.deliver,
    (job: Job<DeliveryJob>) => deliverChange(deliverDeps, job.data, { lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) }),
    {
      connection,
      concurrency,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
          retryDelay(attemptsMade, { retryAfterMs: err instanceof WebhookError ? err.retryAfterMs : undefined }, retry),
      },
    },
  );
  dispatch.on('failed', (job, err) => log?.warn({ jobId: job?.id, err: err.message }, 'webhook dispatch failed'));
  deliver.on('completed', (job, result) => log?.info({ jobId: job.id, ...result }, 'webhook delivered'));
  for (const w of [dispatch, deliver]) w.on('error', (err) => log?.error({ err: err.message }, 'webhook worker error'));
  await dispatchQueue.upsertJobScheduler(DISPATCH_SCHEDULER_ID, { every: dispatchEveryMs }, { name: 'dispatch', data: {}, opts: DISPATCH_JOB_OPTIONS });
  log?.info({ queues: names, dispatchEveryMs, attempts }, 'webhook workers started');

  return {
    dispatch,
    deliver,
    async close() {
      await Promise.all([dispatch.close(), deliver.close()]);
      await Promise.all([dispatchQueue.close(), deliveryQueue.close()]);
    },
  };
}
