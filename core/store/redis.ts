// The one Redis connection of an API process, tuned so that a Redis outage never stalls a request.
import { Redis } from 'ioredis';
import type { Logger } from '../ground/logger.js';

/**
 * Creates the shared ioredis client. Commands fail at once while disconnected (no
 * offline queue) or after `commandTimeoutMs`, so the rate limiter can fail open
 * instead of holding requests; the client keeps reconnecting in the background.
 */
export function createRedisClient(url: string, { log, commandTimeoutMs = 500 }: { log?: Logger; commandTimeoutMs?: number } = {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastLogged = 0;
  redis.on('error', (error: Error) => {
    // One line per 10 s is enough while Redis is away; reconnecting produces an error per attempt.
    if (Date.now() - lastLogged > 10_000) {
      lastLogged = Date.now();
      log?.warn({ err: error }, 'redis connection error');
    }
  });
  return redis;
}
