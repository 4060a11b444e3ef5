// The webhooks inside `npm run worker`: the dispatcher's Job Scheduler and worker, and the delivery worker with the
// retry schedule as its backoff strategy. Never in the API process.
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ground/logger.js';
import { attemptsFor, retryDelay, type RetryPolicy } from './backoff.js';
import { deliveryJournal } from './journal.js';
import { deliverChange, type DeliveryOutbound, type DeliveryResult } from './deliver.js';
import { dispatchAll, type DispatchOptions } from './dispatch.js';
import { endpointSlots } from './endpoint-slot.js';
import { WebhookError } from './errors.js';
import { DISPATCH_JOB_OPTIONS, DISPATCH_SCHEDULER_ID, createDeliveryQueue, createDispatchQueue, webhookQueueNames, type DeliveryJob } from './queues.js';
import { recoverDeliveries, startDeliveryCheckpoints } from './recover.js';
import { resealSecrets } from './reseal.js';
import { heldKeys, sealedKeyId, type Keyring } from './sealed.js';
import { listEndpoints, type WebhookStoreDeps } from './store.js';

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
  /** SECRETS_KEY (and SECRETS_KEY_PREVIOUS), which open the endpoints' sealed secrets; see {@link prepareSecrets}. */
  keyring: Keyring | undefined;
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

/** Why a worker without SECRETS_KEY does not deliver to the endpoints that exist: one sentence with what to set. */
function missingKeySentence(endpoints: { secret: string; previousSecret: string | null }[]): string {
  const ids = [...new Set(endpoints.flatMap((e) => [sealedKeyId(e.secret), sealedKeyId(e.previousSecret)]).filter((id) => id !== undefined))];
  const which =
    ids.length > 0 ? `the key their secrets are sealed under (id ${ids.join(', ')})` : 'a new random key (`openssl rand -base64 32`), which seals their secrets at start';
  return `${endpoints.length} ${endpoints.length === 1 ? 'webhook endpoint exists' : 'webhook endpoints exist'} and SECRETS_KEY is unset: set SECRETS_KEY to ${which}, for the worker and \`npm run webhooks\` alike, or start the worker with --no-webhooks`;
}

/**
 * What the worker checks before delivering: without a keyring, no endpoint may exist (else WebhookError
 * `secrets_key_missing`, a sentence saying what to set); with one, every secret must name a key it holds (else
 * `secrets_key_unknown`), and secrets stored in clear before sealing are sealed now (the migration).
 */
export async function prepareSecrets(store: WebhookStoreDeps, keyring: Keyring | undefined, log?: Logger): Promise<void> {
  if (!keyring) {
    const endpoints = await listEndpoints(store, { size: 10_000 });
    if (endpoints.length > 0) throw new WebhookError('secrets_key_missing', missingKeySentence(endpoints));
    return;
  }
  const report = await resealSecrets(store, keyring, { scope: 'clear', log });
  if (report.resealed > 0) log?.info({ resealed: report.resealed, keyId: keyring.current.id }, 'webhook secrets stored in clear are now sealed');
}

/** Starts the dispatcher (a Job Scheduler every `dispatchEveryMs`, one run at a time per worker) and the delivery worker. */
export async function startWebhookWorkers({
  connection,
  indexPrefix,
  store,
  keyring,
  outbound,
  retry = {},
  dispatchEveryMs = DEFAULT_DISPATCH_EVERY_MS,
  dispatch: dispatchOptions = {},
  concurrency = 8,
  failingTimeoutMs = DEFAULT_FAILING_TIMEOUT_MS,
  log,
}: WebhookWorkersOptions): Promise<WebhookWorkers> {
  await prepareSecrets(store, keyring, log);
  const names = webhookQueueNames(indexPrefix);
  const dispatchQueue = createDispatchQueue(connection, indexPrefix);
  const deliveryQueue = createDeliveryQueue(connection, indexPrefix);
  const attempts = attemptsFor(retry.schedule);
  // Before the dispatcher runs: what Redis may have lost since the last delivered checkpoint is enqueued again (recover.ts).
  await recoverDeliveries(store, log);
  const deliverDeps = { store, keyring, outbound: { timeoutMs: 10_000, ...outbound }, failingTimeoutMs, log, journal: deliveryJournal(connection, indexPrefix) };
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

  // Without a key (no endpoint existed at start), endpoints registered since wait: their cursors stay where they are,
  // so a worker restarted with SECRETS_KEY delivers every change since their registration.
  let waitingSaid = false;
  async function dispatchRun(): Promise<{ endpoints: number; enqueued: number }> {
    if (keyring) return dispatchAll({ store, deliveryQueue, attempts, log }, dispatchOptions);
    const endpoints = await listEndpoints(store, { size: 10_000 });
    if (endpoints.length > 0 && !waitingSaid) {
      waitingSaid = true;
      log?.error({ endpoints: endpoints.length }, `webhook deliveries wait for a worker started with SECRETS_KEY: ${missingKeySentence(endpoints)}`);
    }
    return { endpoints: endpoints.length, enqueued: 0 };
  }

  const dispatch = new Worker(names.dispatch, dispatchRun, { connection, concurrency: 1 });
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
  const checkpoints = startDeliveryCheckpoints({ store, deliveryQueue, log });
  log?.info({ queues: names, dispatchEveryMs, attempts, sealing: heldKeys(keyring) }, 'webhook workers started');

  return {
    dispatch,
    deliver,
    async close() {
      await Promise.all([dispatch.close(), deliver.close()]);
      await checkpoints.stop();
      await Promise.all([dispatchQueue.close(), deliveryQueue.close()]);
    },
  };
}
