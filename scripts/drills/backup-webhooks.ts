// The backup drill's webhook deliveries: a loopback receiver that counts each POST by its `webhook-id`, and the real
// webhook workers (dispatcher, delivery worker, delivered checkpoints) run in-process on the services' Redis under the
// drill's own queue names (they derive from its index prefix), emptied before and after.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ground/logger.js';
import type { ChangeDoc } from '../../core/changes/log.js';
import { changesAfter } from '../../core/changes/read.js';
import { recordChanges } from '../../core/changes/record.js';
import { webhookQueueNames } from '../../pipeline/webhooks/queues.js';
import type { Keyring } from '../../pipeline/webhooks/sealed.js';
import type { WebhookStoreDeps } from '../../pipeline/webhooks/store.js';
import { startWebhookWorkers, type WebhookWorkers } from '../../pipeline/webhooks/worker.js';

/** How often the drill's dispatcher polls the change log. */
export const DRILL_DISPATCH_EVERY_MS = 500;

export interface HookReceiver {
  url: string;
  /** Every POST received (answered 204), in order: its `webhook-id` (the change id) and when it came. */
  deliveries: { id: string; at: number }[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that accepts every delivery. */
export async function startHookReceiver(): Promise<HookReceiver> {
  const deliveries: HookReceiver['deliveries'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries.push({ id: String(req.headers['webhook-id']), at: Date.now() });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/backup-drill`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Empties the drill's webhook queues (jobs, finished-job ids, the dispatcher's Job Scheduler). */
export async function clearHookQueues(connection: Redis, prefix: string): Promise<void> {
  for (const name of Object.values(webhookQueueNames(prefix))) {
    const queue = new Queue(name, { connection });
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }
}

/** The real webhook workers, as `npm run worker` starts them, with a short dispatch period and retry schedule. */
export function startHookWorkers({
  connection,
  prefix,
  store,
  keyring,
  log,
}: {
  connection: Redis;
  prefix: string;
  store: WebhookStoreDeps;
  keyring: Keyring;
  log: Logger;
}): Promise<WebhookWorkers> {
  return startWebhookWorkers({
    connection,
    indexPrefix: prefix,
    store,
    keyring,
    outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/drill (+http://localhost)', timeoutMs: 5000 },
    retry: { schedule: [1000, 2000], jitter: 0 },
    dispatchEveryMs: DRILL_DISPATCH_EVERY_MS,
    log,
  });
}

/** Every change in the channel's log after `afterSeq`, oldest first. */
export async function changesSince(store: WebhookStoreDeps, channelId: string, afterSeq: number): Promise<ChangeDoc[]> {
  await store.client.indices.refresh({ index: store.aliases.changes });
  return changesAfter(store.client, store.aliases.changes, { channelId, afterSeq, size: 10_000 });
}

/** Records an `episode.updated` of an episode the log already names, as the indexer records one when an episode is rewritten. */
export async function recordEdit(store: WebhookStoreDeps, channelId: string): Promise<ChangeDoc> {
  const known = (await changesSince(store, channelId, 0)).find((c) => c.type !== 'episode.deleted');
  if (!known) throw new Error(`the change log of ${channelId} names no episode to edit`);
  const [doc] = await recordChanges(store.client, store.aliases.changes, [
    { channelId, type: 'episode.updated', episodeId: known.episodeId, status: known.status, previousStatus: known.status },
  ]);
  return doc!;
}

/** Waits until `check` holds (polled every 200 ms); false when `timeoutMs` passed first. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

/** How many times each webhook-id was delivered. */
export function deliveryCounts(deliveries: readonly { id: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
  return counts;
}
