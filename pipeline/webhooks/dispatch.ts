// The dispatcher: follows each endpoint's channel log from the endpoint's durable cursor and enqueues one delivery per
// change; run by a Job Scheduler every few seconds (polling the log is cheap: one real-time GET per idle endpoint).
import type { Queue } from 'bullmq';
import type { Logger } from '../../core/ground/logger.js';
import { DEFAULT_GAP_GRACE_MS } from '../../core/changes/log.js';
import { changesAfter, lastSeq } from '../../core/changes/read.js';
import { memberView, pageOfChanges } from '../../core/changes/views.js';
import { deliveryJobId, deliveryJobOptions, type DeliveryJob } from './queues.js';
import { listEndpoints, moveCursor, type EndpointDoc, type WebhookStoreDeps } from './store.js';

export interface DispatchDeps {
  store: WebhookStoreDeps;
  deliveryQueue: Queue<DeliveryJob>;
  /** Attempts each delivery gets (see attemptsFor). */
  attempts: number;
  log?: Pick<Logger, 'info' | 'warn'> | undefined;
}

export interface DispatchOptions {
  /** Changes read per page of one endpoint's log. */
  pageSize?: number;
  /** Pages per endpoint and run, so one busy channel cannot hold up the others for long. */
  maxPages?: number;
  gapGraceMs?: number;
  now?: () => Date;
}

/**
 * Enqueues the deliveries of one endpoint's new changes, then moves its cursor past them: enqueued first, so a crash
 * in between enqueues them again, under the same job ids, which BullMQ keeps once (at-least-once, no duplicate jobs).
 * A channel log that holds fewer changes than the cursor was lost (dropped and begun again): the cursor starts over.
 */
export async function dispatchEndpoint(
  { store, deliveryQueue, attempts, log }: DispatchDeps,
  endpoint: EndpointDoc,
  { pageSize = 100, maxPages = 10, gapGraceMs = DEFAULT_GAP_GRACE_MS, now = () => new Date() }: DispatchOptions = {},
): Promise<number> {
  const head = await lastSeq(store.client, store.aliases.changes, endpoint.channelId);
  let cursor = endpoint.cursorSeq;
  if (head < cursor) {
    log?.warn({ endpointId: endpoint.id, channelId: endpoint.channelId, cursor, head }, 'the change log is behind the endpoint cursor (it was recreated): starting over');
    await moveCursor(store, endpoint.id, 0, { reset: true });
    cursor = 0;
  }
  let enqueued = 0;
  for (let page = 0; page < maxPages && head > cursor; page++) {
    const rows = await changesAfter(store.client, store.aliases.changes, { channelId: endpoint.channelId, afterSeq: cursor, size: pageSize });
    const next = pageOfChanges(rows, { afterSeq: cursor, limit: pageSize, fetched: pageSize, now: now(), gapGraceMs, view: memberView });
    if (next.changes.length > 0) {
      await deliveryQueue.addBulk(
        next.changes.map((change) => ({
          name: 'deliver',
          data: { endpointId: endpoint.id, change },
          opts: { ...deliveryJobOptions(attempts), jobId: deliveryJobId(endpoint.id, change.id) },
        })),
      );
      enqueued += next.changes.length;
    }
    if (next.lastSeq <= cursor) break;
    if (!(await moveCursor(store, endpoint.id, next.lastSeq))) break;
    cursor = next.lastSeq;
    if (!next.hasMore) break;
  }
  return enqueued;
}

/** One run over every endpoint; an endpoint that fails is logged and left for the next run. */
export async function dispatchAll(deps: DispatchDeps, options: DispatchOptions = {}): Promise<{ endpoints: number; enqueued: number }> {
  const endpoints = await listEndpoints(deps.store);
  let enqueued = 0;
  for (const endpoint of endpoints) {
    try {
      enqueued += await dispatchEndpoint(deps, endpoint, options);
    } catch (err) {
      deps.log?.warn({ err, endpointId: endpoint.id }, 'dispatching webhook deliveries failed; the next run tries again');
    }
  }
  return { endpoints: endpoints.length, enqueued };
}
