// The webhooks' BullMQ plumbing: a dispatch queue driven by one Job Scheduler (reads the change logs, enqueues
// deliveries), and a delivery queue with one job per change and endpoint (a deterministic id: enqueued once).
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Change } from '../../core/contract/changes.js';

/** One change to POST to one endpoint. */
export interface DeliveryJob {
  endpointId: string;
  change: Change;
}

/** Queue names derive from INDEX_PREFIX, so two deployments (or two test suites) sharing a Redis never meet. */
export const webhookQueueNames = (indexPrefix: string) => ({ dispatch: `${indexPrefix}webhooks-dispatch`, deliver: `${indexPrefix}webhooks-deliver` });

/** BullMQ refuses `:` in ids; endpoint ids (`wh_…`) and change ids (`chg_<uuid>`) have none. */
export const deliveryJobId = (endpointId: string, changeId: string): string => `deliver-${endpointId}-${changeId}`;

export const DISPATCH_SCHEDULER_ID = 'webhooks-dispatch';

/** The backoff type the delivery worker's strategy answers (see retryDelay). */
export const DELIVERY_BACKOFF = 'webhook';

/**
 * Options of a delivery job. Finished jobs are kept two days, so a dispatcher that enqueues a change again (its cursor
 * write was lost) finds the id taken and adds nothing; failed ones a week, for debugging.
 */
export function deliveryJobOptions(attempts: number): JobsOptions {
  return {
    attempts,
    backoff: { type: DELIVERY_BACKOFF },
    removeOnComplete: { age: 2 * 24 * 3600, count: 100_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
  };
}

export const DISPATCH_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };

export function createDispatchQueue(connection: Redis, indexPrefix: string): Queue {
  return new Queue(webhookQueueNames(indexPrefix).dispatch, { connection, defaultJobOptions: DISPATCH_JOB_OPTIONS });
}

export function createDeliveryQueue(connection: Redis, indexPrefix: string): Queue<DeliveryJob> {
  return new Queue<DeliveryJob>(webhookQueueNames(indexPrefix).deliver, { connection });
}
