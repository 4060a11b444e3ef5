// Drill: OpenSearch stopped and restarted under a light request loop: 503 JSON with Retry-After while down, quickly, then full recovery.
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { ensureOpenSearch, stopOpenSearch } from '../ops/provision/opensearch.js';
import { startLocalApi } from './local-api.js';
import { summary } from './redis-restart.js';
import { check, drillResult, probe, requestLoop, sleep, type DrillResult } from './request-loop.js';

const PATH = '/api/v1/channels/research-meetings/episodes?limit=5';

export async function openSearchRestartDrill({ prefix, downSeconds = 5 }: { prefix: string; downSeconds?: number }): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  const port = new URL(loadConfig(process.env).opensearchNodes[0]!).port || '9200';
  const api = await startLocalApi({ prefix, env: { RATE_LIMIT_MAX: '10000000' }, keys: 1, embedder: false });
  const headers = { 'x-api-key': api.keys[0]! };
  try {
    const loop = requestLoop(api.baseUrl, PATH, headers, 250);
    await sleep(1000);
    const stoppedAt = Date.now();
    await stopOpenSearch({ log });
    const downAt = Date.now();
    process.stderr.write(`drill opensearch: stopped OpenSearch (${((downAt - stoppedAt) / 1000).toFixed(1)} s to stop)\n`);
    await sleep(downSeconds * 1000);
    await ensureOpenSearch({ env: { ...process.env, OPENSEARCH_PORT: port }, log });
    const upAt = Date.now();
    process.stderr.write(`drill opensearch: OpenSearch healthy again after ${((upAt - downAt) / 1000).toFixed(1)} s\n`);
    // Recovery: the first 200 after the restart, and then 10 in a row.
    let firstOkMs: number | undefined;
    let streak = 0;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && streak < 10) {
      const s = await probe(api.baseUrl, PATH, headers);
      if (s.status === 200) {
        firstOkMs ??= Date.now() - upAt;
        streak++;
      } else {
        streak = 0;
        await sleep(200);
      }
    }
    const samples = await loop.stop();
    const down = samples.filter((s) => s.at >= downAt && s.at < upAt);
    const errors = down.filter((s) => s.status !== 200);
    const bad = errors.filter((s) => s.status !== 503 || !s.json || !/^\d+$/.test(s.retryAfter ?? ''));
    const hung = samples.filter((s) => s.ms > 2500 || s.status === 0);
    const checks = [
      check('requests while down answered (200 from a cached path or 503)', down.length > 0, `${down.length} requests, statuses ${summary(down)}`),
      check('every failure while down is a 503 JSON with Retry-After', errors.length > 0 && bad.length === 0, `${errors.length} failures, ${bad.length} malformed`),
      check(
        '503s within 2 s',
        errors.every((s) => s.ms <= 2000),
        `max ${Math.max(0, ...errors.map((s) => s.ms))} ms`,
      ),
      check('no hung request (> 2.5 s or no answer)', hung.length === 0, `${hung.length} of ${samples.length}`),
      check('full recovery: 10 successes in a row after the restart', streak >= 10, firstOkMs === undefined ? 'no success in 30 s' : `first 200 ${firstOkMs} ms after healthy`),
    ];
    return drillResult('opensearch-restart', checks, {
      requests: samples.length,
      whileDown: down.length,
      statuses: summary(samples),
      outageSeconds: (upAt - downAt) / 1000,
      maxMs: Math.max(...samples.map((s) => s.ms)),
      firstOkMs,
    });
  } finally {
    await api.close();
  }
}
