// A key's `lastUsedAt`: written at most once per interval per key, after the response, by whichever API process wins the Redis claim.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Client } from '../../core/store/opensearch.js';
import type { Logger } from '../../core/ground/logger.js';

/** How often a key's last use is written at most: the dashboards of peers refresh it every few minutes too. */
export const KEY_USE_INTERVAL_SECONDS = 300;

/**
 * Records that the key with this hash was used: once per interval per process at most, a Redis `SET NX EX` claims the interval for the key across every API
 * process, then one partial update writes `lastUsedAt`. Never awaited by a request (it is called after the response)
 * and never throws: a Redis or OpenSearch failure only leaves the date older (and a lost claim is not retried, so an
 * outage costs no extra store writes).
 */
export function keyUseRecorder({
  redis,
  client,
  index,
  prefix,
  log,
  intervalSeconds = KEY_USE_INTERVAL_SECONDS,
  now = () => new Date(),
}: {
  redis: Redis;
  client: Client;
  /** The api-keys alias. */
  index: string;
  /** The deployment's index prefix: two deployments on one Redis keep their own claims. */
  prefix: string;
  log: Logger;
  intervalSeconds?: number;
  now?: () => Date;
}): (keyHash: string) => Promise<void> {
  // Within one process a key asks Redis once per interval at most: a key searching 100 times a second costs one claim
  // per interval here, not one Redis command per request.
  const claimedHere = new LRUCache<string, true>({ max: 100_000, ttl: intervalSeconds * 1000 });
  return async (keyHash) => {
    if (claimedHere.has(keyHash)) return;
    claimedHere.set(keyHash, true);
    try {
      const claimed = await redis.set(`keyused:${prefix}${keyHash}`, '1', 'EX', intervalSeconds, 'NX');
      if (claimed !== 'OK') return;
      await client.update({ index, id: keyHash, body: { doc: { lastUsedAt: now().toISOString() } }, retry_on_conflict: 3 } as never);
    } catch (err) {
      log.warn({ err }, 'could not record when an API key was last used');
    }
  };
}
