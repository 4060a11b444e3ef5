// /healthz (the process answers) and /readyz (OpenSearch and Redis answer too).
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Client } from '../store/opensearch.js';
import { RETRY_AFTER_SECONDS, createError } from '../errors.js';
import type { Health, Readiness } from '../contract/shapes.js';

export function health(): RequestHandler {
  return (_req, res) => {
    const body: Health = { status: 'ok' };
    res.json(body);
  };
}

/** Both dependencies pinged in parallel, each bounded by `timeoutMs`; 503 names the failing ones. */
export function readiness({ client, redis, timeoutMs = 1000 }: { client: Client; redis: Redis; timeoutMs?: number }): RequestHandler {
  const check = async (probe: () => Promise<unknown>) => {
    try {
      await Promise.race([probe(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
      return 'ok' as const;
    } catch {
      return 'unreachable' as const;
    }
  };
  return async (_req, res) => {
    const [opensearch, redisState] = await Promise.all([check(() => client.ping({}, { requestTimeout: timeoutMs })), check(() => redis.ping())]);
    const checks: Readiness['checks'] = { opensearch, redis: redisState };
    if (opensearch === 'ok' && redisState === 'ok') {
      const body: Readiness = { status: 'ok', checks };
      res.json(body);
      return;
    }
    throw createError('not_ready', { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, extra: { checks } });
  };
}
