// What the webhook integration suites share: a wait for a condition, an endpoint that records what it receives, and the
// clean-up of a suite's webhook queues and endpoint slots in Redis.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { webhookQueueNames } from '../../pipeline/webhooks/queues.js';
import { until as waitUntil } from './until.js';

/** test/support/until.ts's wait, check first, every 50 ms for up to 30 s. */
export const until = (check: () => boolean | Promise<boolean>, what: string, { limitMs = 30_000, everyMs = 50 } = {}): Promise<void> =>
  waitUntil(what, check, { timeoutMs: limitMs, everyMs });

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

/** One POST an endpoint received. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** An endpoint on loopback that answers every POST 204 and records it: `base` to register, `received` in arrival order. */
export async function startRecordingEndpoint(): Promise<{ base: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
