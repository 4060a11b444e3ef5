// The webhooks inside `npm run worker`: the dispatcher's Job Scheduler and worker, and the delivery worker with the
// retry schedule as its backoff strategy. Never in the API process.
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../src/ground/logger.js';
import { attemptsFor, retryDelay, type RetryPolicy } from './backoff.js';
import { deliverChange, type DeliveryOutbound, type DeliveryResult } from './deliver.js';
import { dispatchAll, type DispatchOptions } from './dispatch.js';
import { endpointSlots } from './endpoint-slot.js';
import { WebhookError } from './errors.js';
import { DISPATCH_JOB_OPTIONS, DISPATCH_SCHEDULER_ID, createDeliveryQueue, createDispatchQueue, webhookQueueNames, type DeliveryJob } from './queues.js';
import type { WebhookStoreDeps } from './store.js';

/** How often the change logs are polled for endpoints' new changes. */
export const DEFAULT_DISPATCH_EVERY_MS = 5000;

/** An endpoint marked failing gets this long per attempt: a receiver that hangs costs its slot 3 s, not 10. */
export const DEFAULT_FAILING_TIMEOUT_MS = 3000;

/** How long past its POST deadline an endpoint's slot is held at most (the store reads around the POST). */
const SLOT_MARGIN_MS = 30_000;

/** A delivery waiting for its endpoint's slot wakes within this much after the slot's expected end. */
const BUSY_SPREAD_MS = 1000;

export interface WebhookWorkersOptions {
  connection: Redis;
  indexPrefix: string;
  store: WebhookStoreDeps;
  /** OUTBOUND_ALLOW_PRIVATE, the User-Agent, the timeout (default 10 s). */
  outbound: DeliveryOutbound;
  /** The timeout of an attempt to an endpoint marked failing (default 3 s, never longer than `outbound.timeoutMs`). */
  failingTimeoutMs?: number;
  /** The retry schedule (tests shorten it). */
  retry?: RetryPolicy;
  dispatchEveryMs?: number;
  dispatch?: DispatchOptions;
  /** Deliveries at once (each is an HTTP call: the worker stays async); one endpoint has at most one of them. */
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
  failingTimeoutMs = DEFAULT_FAILING_TIMEOUT_MS,
  log,
}: WebhookWorkersOptions): Promise<WebhookWorkers> {
  const names = webhookQueueNames(indexPrefix);
  const dispatchQueue = createDispatchQueue(connection, indexPrefix);
  const deliveryQueue = createDeliveryQueue(connection, indexPrefix);
  const attempts = attemptsFor(retry.schedule);
  const deliverDeps = { store, outbound: { timeoutMs: 10_000, ...outbound }, failingTimeoutMs, log };
  // Held past one attempt's POST deadline, so only a worker that died mid-attempt lets it expire.
  const slots = endpointSlots(connection, indexPrefix, { holdMs: deliverDeps.outbound.timeoutMs + SLOT_MARGIN_MS });

  /**
   * One attempt, when no other attempt to its endpoint is in flight; else the job waits (delayed, holding no slot and
   * spending no attempt) until that one's slot frees itself at the latest, spread so waiting jobs do not wake together.
   */
  async function attempt(job: Job<DeliveryJob>, token?: string): Promise<DeliveryResult> {
    const holder = `${job.id}:${job.attemptsStarted}`;
    if (!(await slots.take(job.data.endpointId, holder))) {
      const heldMs = await slots.heldForMs(job.data.endpointId);
      await job.moveToDelayed(Date.now() + Math.min(heldMs, deliverDeps.outbound.timeoutMs) + Math.round(Math.random() * BUSY_SPREAD_MS), token);
      throw new DelayedError();
    }
    try {
      return await deliverChange(deliverDeps, job.data, { lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });
    } finally {
      await slots.give(job.data.endpointId, holder);
    }
  }

  const dispatch = new Worker(names.dispatch, () => dispatchAll({ store, deliveryQueue, attempts, log }, dispatchOptions), { connection, concurrency: 1 });
  const deliver = new Worker<DeliveryJob, DeliveryResult>(names.deliver, attempt, {
    connection,
    concurrency,
    settings: {
      backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
        retryDelay(attemptsMade, { retryAfterMs: err instanceof WebhookError ? err.retryAfterMs : undefined }, retry),
    },
  });
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
