// Webhook deliveries that survive losing Redis. The delivery jobs live in Redis; the endpoint's cursor (how far its
// deliveries are enqueued) lives in OpenSearch, so a Redis that loses its data (deleted, or the last second before a
// crash) would leave a gap: changes past the last delivery, before the cursor. Beside the cursor the worker keeps a
// checkpoint, `deliveredSeq`: every change up to it has finished (delivered, or given up after its retries). At start the
// worker moves each cursor back to its checkpoint, and the dispatcher enqueues the rest again under the same job ids:
// a delivery Redis still holds is not enqueued twice, one it lost is POSTed again (at-least-once, as receivers expect).
import type { Queue } from 'bullmq';
import type { Logger } from '../../core/ground/logger.js';
import { listEndpoints, type EndpointDoc, type WebhookStoreDeps } from './store.js';
import type { DeliveryJob } from './queues.js';

/** How often the worker writes the delivered checkpoints: what a lost Redis makes it POST again is at most this much. */
export const DEFAULT_CHECKPOINT_EVERY_MS = 5000;

/** The job states of a delivery not finished yet (a retry waits `delayed`; `failed` is final). */
const UNFINISHED = ['waiting', 'delayed', 'active', 'prioritized', 'waiting-children'] as const;

/** An endpoint with its checkpoint (absent until the first checkpoint after it was registered). */
export type CheckpointedEndpoint = EndpointDoc & { deliveredSeq?: number | null };

/**
 * The checkpoint of an endpoint: every change before its oldest unfinished delivery, never past its cursor (read
 * before the unfinished deliveries, so each change up to it was enqueued by then: the dispatcher enqueues, then moves
 * the cursor).
 */
export function deliveredThrough(cursorSeq: number, unfinishedSeqs: Iterable<number>): number {
  let through = cursorSeq;
  for (const seq of unfinishedSeqs) through = Math.min(through, seq - 1);
  return through;
}

/** The endpoint and change of a delivery job id (`deliver-<wh_…>-<chg_…>`; endpoint ids hold no `-`). */
export function parseDeliveryJobId(jobId: string): { endpointId: string; changeId: string } | undefined {
  const m = /^deliver-(wh_[^-]+)-(.+)$/.exec(jobId);
  return m ? { endpointId: m[1]!, changeId: m[2]! } : undefined;
}

/** The seq of each change id still in the log (ids are document ids of the changes index); purged ones are left out. */
async function seqsOf({ client, aliases }: WebhookStoreDeps, changeIds: readonly string[]): Promise<Map<string, number>> {
  const seqs = new Map<string, number>();
  for (let i = 0; i < changeIds.length; i += 1000) {
    const ids = changeIds.slice(i, i + 1000);
    const res = await client.search({ index: aliases.changes, body: { size: ids.length, _source: ['seq'], query: { ids: { values: ids } } } } as never);
    for (const hit of (res.body as { hits: { hits: { _id: string; _source: { seq: number } }[] } }).hits.hits) seqs.set(hit._id, hit._source.seq);
  }
  return seqs;
}

/**
 * Runs a painless `source` on one endpoint's document with `params.seq`; true when it changed the document (false on a
 * noop, or an endpoint removed meanwhile). Both recovery writes decide in the script, so a concurrent write is not lost.
 */
async function updateEndpointSeq({ client, aliases }: WebhookStoreDeps, endpointId: string, source: string, seq: number): Promise<boolean> {
  const res = await client.update(
    {
      index: aliases.webhooks,
      id: endpointId,
      retry_on_conflict: 10,
      body: { script: { lang: 'painless', source, params: { seq } } },
    } as never,
    { ignore: [404] },
  );
  return (res.body as { result?: string }).result === 'updated';
}

/** Moves `deliveredSeq` forward to `params.seq` (or back within the cursor, when a log begun again left it past it). */
const MOVE_CHECKPOINT =
  'def d = ctx._source.deliveredSeq; def c = ctx._source.cursorSeq;' +
  ' if (d == null || params.seq > d || d > c) { ctx._source.deliveredSeq = Math.min(params.seq, c) } else { ctx.op = "noop" }';

/** Moves `cursorSeq` back to `params.seq`, never forward. */
const REWIND_CURSOR = 'if (ctx._source.cursorSeq > params.seq) { ctx._source.cursorSeq = params.seq } else { ctx.op = "noop" }';

/**
 * Writes each endpoint's checkpoint from the unfinished deliveries Redis holds. A checkpoint only moves forward (one
 * computed earlier by another worker is still true, only older), and never past the cursor (a log begun again resets it).
 */
export async function checkpointDeliveries({
  store,
  deliveryQueue,
}: {
  store: WebhookStoreDeps;
  deliveryQueue: Queue<DeliveryJob>;
}): Promise<{ endpoints: number; moved: number; unfinished: number }> {
  const endpoints = (await listEndpoints(store)) as CheckpointedEndpoint[];
  if (endpoints.length === 0) return { endpoints: 0, moved: 0, unfinished: 0 };
  // One Lua call reads every state's ids: a job moving between states is seen in one of them.
  const unfinished = (await deliveryQueue.getRanges([...UNFINISHED], 0, -1)).flatMap((id) => parseDeliveryJobId(id) ?? []);
  const seqs = await seqsOf(store, [...new Set(unfinished.map((u) => u.changeId))]);
  let moved = 0;
  for (const endpoint of endpoints) {
    const mine = unfinished.filter((u) => u.endpointId === endpoint.id).flatMap((u) => seqs.get(u.changeId) ?? []);
    const through = deliveredThrough(endpoint.cursorSeq, mine);
    if (endpoint.deliveredSeq != null && through <= endpoint.deliveredSeq && endpoint.deliveredSeq <= endpoint.cursorSeq) continue;
    if (await updateEndpointSeq(store, endpoint.id, MOVE_CHECKPOINT, through)) moved++;
  }
  return { endpoints: endpoints.length, moved, unfinished: unfinished.length };
}

/**
 * Moves every endpoint's cursor back to its checkpoint, before the dispatcher runs: what Redis lost is enqueued again.
 * An endpoint without a checkpoint yet (registered, never checkpointed) keeps its cursor.
 */
export async function rewindToDelivered(store: WebhookStoreDeps): Promise<{ endpoints: number; rewound: number; changes: number; withoutCheckpoint: number }> {
  const endpoints = (await listEndpoints(store)) as CheckpointedEndpoint[];
  let rewound = 0;
  let changes = 0;
  let withoutCheckpoint = 0;
  for (const endpoint of endpoints) {
    if (endpoint.deliveredSeq == null) {
      withoutCheckpoint++;
      continue;
    }
    if (endpoint.deliveredSeq >= endpoint.cursorSeq) continue;
    if (!(await updateEndpointSeq(store, endpoint.id, REWIND_CURSOR, endpoint.deliveredSeq))) continue;
    rewound++;
    changes += endpoint.cursorSeq - endpoint.deliveredSeq;
  }
  return { endpoints: endpoints.length, rewound, changes, withoutCheckpoint };
}

/** Rewinds the cursors at the worker's start ({@link rewindToDelivered}), logged with its counts. */
export async function recoverDeliveries(store: WebhookStoreDeps, log?: Pick<Logger, 'info'>): Promise<Awaited<ReturnType<typeof rewindToDelivered>>> {
  const report = await rewindToDelivered(store);
  log?.info({ ...report }, 'webhook cursors moved back to their delivered checkpoints (deliveries Redis lost are enqueued again)');
  return report;
}

export interface DeliveryCheckpoints {
  /** Stops the timer and writes a last checkpoint (call once the delivery worker has closed). */
  stop(): Promise<void>;
}

/** Writes the checkpoints every `everyMs` (one run at a time), and once more on stop. */
export function startDeliveryCheckpoints({
  store,
  deliveryQueue,
  everyMs = DEFAULT_CHECKPOINT_EVERY_MS,
  log,
}: {
  store: WebhookStoreDeps;
  deliveryQueue: Queue<DeliveryJob>;
  everyMs?: number;
  log?: Pick<Logger, 'warn'> | undefined;
}): DeliveryCheckpoints {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () =>
    checkpointDeliveries({ store, deliveryQueue }).then(
      () => undefined,
      (err: unknown) => log?.warn({ err: (err as Error).message }, 'the webhook delivery checkpoint could not be written; the next one tries again'),
    );
  const schedule = () => {
    timer = setTimeout(() => {
      running = run().finally(() => {
        if (!stopped) schedule();
      });
    }, everyMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await run();
    },
  };
}
