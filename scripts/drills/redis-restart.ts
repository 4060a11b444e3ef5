// Drill: Redis stopped and restarted under requests. The API keeps answering with rate limiting off (fail open), and limits return after.
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { ensureRedis, stopRedis } from '../ops/provision/redis.js';
import { startLocalApi } from './local-api.js';
import { check, drillResult, probe, requestLoop, sleep, type DrillResult } from './request-loop.js';

const PATH = '/api/v1/channels/research-meetings/episodes?limit=5';

export async function redisRestartDrill({ prefix, downSeconds = 8 }: { prefix: string; downSeconds?: number }): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  const redisPort = new URL(loadConfig(process.env).redisUrl).port || '6379';
  const LIMIT = 5;
  const api = await startLocalApi({ prefix, env: { RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: '600' }, keys: 3, embedder: false });
  const [limited, looped, after] = api.keys.map((k) => ({ 'x-api-key': k }));
  try {
    // Before: key 1 spends its quota, so a 200 for it later can only be the limiter failing open.
    for (let i = 0; i < LIMIT; i++) await probe(api.baseUrl, PATH, limited!);
    const before = await probe(api.baseUrl, PATH, limited!);

    const loop = requestLoop(api.baseUrl, PATH, looped!, 250);
    await sleep(1000);
    const stoppedAt = Date.now();
    await stopRedis({ log });
    process.stderr.write(`drill redis: stopped Redis, down for ${downSeconds} s\n`);
    await sleep(1500);
    const duringLimited = await probe(api.baseUrl, PATH, limited!);
    await sleep(downSeconds * 1000 - 1500);
    // Requests up to here met a dead Redis; the new server may answer before ensureRedis returns.
    const restartingAt = Date.now();
    await ensureRedis({ env: { ...process.env, REDIS_PORT: redisPort }, log });
    const restartedAt = Date.now();
    process.stderr.write(`drill redis: Redis restarted after ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s\n`);
    // Limits back: a fresh key hits 429 after LIMIT calls.
    let limitBackMs: number | undefined;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && limitBackMs === undefined) {
      const s = await probe(api.baseUrl, PATH, after!);
      if (s.status === 429) limitBackMs = Date.now() - restartedAt;
      else await sleep(100);
    }
    await sleep(500);
    const samples = await loop.stop();
    const down = samples.filter((s) => s.at >= stoppedAt && s.at < restartingAt);
    const fiveXX = samples.filter((s) => s.status >= 500 || s.status === 0);
    const slow = samples.filter((s) => s.ms > 2500);
    const checks = [
      check('quota spent before the outage (429)', before.status === 429, `status ${before.status}`),
      check('fails open: the spent key answers 200 while Redis is down', duringLimited.status === 200, `status ${duringLimited.status}`),
      check('every request while down answered 2xx', down.length > 0 && down.every((s) => s.status === 200), `${down.length} requests, statuses ${summary(down)}`),
      check('no 5xx or dropped request in the whole drill', fiveXX.length === 0, `${fiveXX.length} of ${samples.length}`),
      check('no request over 2.5 s', slow.length === 0, `${slow.length} slow, max ${Math.max(...samples.map((s) => s.ms))} ms`),
      check('limits return after the restart', limitBackMs !== undefined, limitBackMs === undefined ? 'no 429 within 20 s' : `first 429 ${limitBackMs} ms after restart`),
    ];
    return drillResult('redis-restart', checks, {
      requests: samples.length,
      whileDown: down.length,
      statuses: summary(samples),
      maxMs: Math.max(...samples.map((s) => s.ms)),
      limitBackMs,
    });
  } finally {
    await api.close();
  }
}

export function summary(samples: { status: number }[]): string {
  const counts: Record<number, number> = {};
  for (const s of samples) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return (
    Object.entries(counts)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ') || 'none'
  );
}
