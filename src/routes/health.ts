// /healthz (the process answers) and /readyz (OpenSearch and Redis answer too).
import type { Redis } from 'ioredis';
import type { Client } from '../../core/store/opensearch.js';
import { RETRY_AFTER_SECONDS, createError } from '../errors.js';
import { route, type Route } from '../http/route.js';
import { GetHealth, GetReadiness } from '../openapi/operations.js';

export function health(): Route {
  return route(GetHealth, () => ({ status: 'ok' }));
}

/** Both dependencies pinged in parallel, each bounded by `timeoutMs`; 503 names the failing ones. */
export function readiness({ client, redis, timeoutMs = 1000 }: { client: Client; redis: Redis; timeoutMs?: number }): Route {
  const check = async (probe: () => Promise<unknown>) => {
    try {
      await Promise.race([probe(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
      return 'ok' as const;
    } catch {
      return 'unreachable' as const;
    }
  };
  return route(GetReadiness, async () => {
    const [opensearch, redisState] = await Promise.all([check(() => client.ping({}, { requestTimeout: timeoutMs })), check(() => redis.ping())]);
    const checks = { opensearch, redis: redisState };
    if (opensearch === 'ok' && redisState === 'ok') return { status: 'ok', checks };
    throw createError('not_ready', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, extra: { checks } });
  });
}
