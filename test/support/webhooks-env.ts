// What the webhook integration suites share: a wait for a condition, and the clean-up of a suite's webhook queues and
// endpoint slots in Redis.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { webhookQueueNames } from '../../pipeline/webhooks/queues.js';

/** Waits until `check` holds, checking every `everyMs`; throws naming `what` after `limitMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, { limitMs = 30_000, everyMs = 50 } = {}): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Empties and closes the webhook queues under `indexPrefix` and deletes its endpoint slots. */
export async function dropWebhookQueues(connection: Redis, indexPrefix: string): Promise<void> {
  for (const name of Object.values(webhookQueueNames(indexPrefix))) {
    const q = new Queue(name, { connection });
    await q.obliterate({ force: true });
    await q.close();
  }
  const slots = await connection.keys(`${indexPrefix}webhooks-endpoint-slot:*`);
  if (slots.length > 0) await connection.del(...slots);
}
