// Drill: several workers and several API processes on one OpenSearch (the local cluster when it runs) and one
// Redis: every ingest job is taken by one worker, once; a key's quota is counted once across API processes.
import { request } from 'node:http';
import { loadConfig } from '../../core/config/load.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';
import { clusterStatus, clusterUrls } from '../ops/provision/opensearch-cluster.js';
import { choosePort } from '../ops/provision/ports.js';
import { SAMPLE_LIBRARY, startIngestRun } from './ingest-run.js';
import { runScript, waitFor, type Child } from '../lib/child.js';
import { check, drillResult, type DrillResult } from './request-loop.js';

const PREFIX = 'drill-scale-';
const QUOTA = 10;
const PATH = '/api/v1/channels/long-field/episodes?limit=5';

/** Episode job ids each worker logged as completed (`job completed` lines of its JSON log). */
function completedBy(worker: Child): string[] {
  const ids: string[] = [];
  for (const line of worker.stderr().split('\n')) {
    if (!line.includes('"job completed"')) continue;
    try {
      const entry = JSON.parse(line) as { jobId?: string };
      if (entry.jobId?.startsWith('episode-')) ids.push(entry.jobId);
    } catch {
      // not a log line
    }
  }
  return ids;
}

function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; rateLimit: string | undefined }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rateLimit: res.headers.ratelimit as string | undefined }));
    });
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve({ status: 0, rateLimit: undefined }));
    req.end();
  });
}

/** `remaining` of a draft-8 `RateLimit` header (`"600-in-1min"; r=7; t=42`). */
const remaining = (header: string | undefined) => /;\s*r=(\d+)/.exec(header ?? '')?.[1] ?? '?';

export async function scaleOutDrill({ library = SAMPLE_LIBRARY, workers = 3, apis = 2 }: { library?: string; workers?: number; apis?: number } = {}): Promise<DrillResult> {
  const { state, nodes } = await clusterStatus();
  // Every process of the drill gets every node of the local cluster when it runs.
  const base = state && nodes.every((n) => n.running) ? { ...process.env, OPENSEARCH_URL: clusterUrls(state) } : process.env;
  const config = loadConfig(base);
  const run = await startIngestRun({ library, prefix: PREFIX, queueName: 'drill-scale', logLevel: 'info', env: base });
  const servers: Child[] = [];
  const admin = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  try {
    for (let i = 1; i < workers; i++) run.startWorker();
    const { stored, seconds, checks: outcome } = await run.finish();
    const byWorker = run.workers.map(completedBy);
    const all = byWorker.flat();
    const jobs = (await run.queue.getJobs(['completed'], 0, -1)).filter((j) => j.id?.startsWith('episode-'));
    const startedTwice = jobs.filter((j) => j.attemptsStarted !== 1 || j.stalledCounter > 0);

    // API processes on the same store and Redis; one key, its requests alternating between them.
    const ports: number[] = [];
    for (let i = 0; i < apis; i++) ports.push(await choosePort({ env: {}, preferred: 18080 + i, avoid: ports, what: 'API' }));
    const env = { ...base, HOST: '127.0.0.1', INDEX_PREFIX: PREFIX, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: String(QUOTA), RATE_LIMIT_WINDOW_SECONDS: '600' };
    for (const port of ports) servers.push(runScript('src/server.ts', [], { ...env, PORT: String(port) }));
    const listening = await waitFor(async () => (await Promise.all(ports.map((p) => get(p, '/healthz', {})))).every((r) => r.status === 200), 120_000);
    const { key } = await createApiKey({ client: admin, aliases: indexAliases(PREFIX) }, { userId: 'u_member', name: 'scale-out drill (throw-away)' });
    const headers = { 'x-api-key': key };
    const answers: { port: number; status: number; remaining: string }[] = [];
    for (let i = 0; i < QUOTA + apis; i++) {
      const port = ports[i % ports.length]!;
      const res = await get(port, PATH, headers);
      answers.push({ port, status: res.status, remaining: remaining(res.rateLimit) });
    }
    const within = answers.slice(0, QUOTA);
    const beyond = answers.slice(QUOTA);
    const countdown = within.map((a) => a.remaining).join(',');
    const expected = Array.from({ length: QUOTA }, (_, i) => String(QUOTA - 1 - i)).join(',');

    const checks = [
      ...outcome,
      check('every episode job completed once, by one worker', all.length === run.records.length && new Set(all).size === all.length,
        `${all.length} completions of ${run.records.length} episodes, ${all.length - new Set(all).size} repeated`),
      check('every job was started once (none stalled or taken twice)', jobs.length === run.records.length && startedTwice.length === 0,
        `${jobs.length} jobs, ${startedTwice.length} started more than once`),
      check(`the jobs were spread over the ${workers} workers`, byWorker.filter((ids) => ids.length > 0).length >= 2, `episodes per worker: ${byWorker.map((ids) => ids.length).join(', ')}`),
      check(`${apis} API processes listening on the same store and Redis`, listening, `ports ${ports.join(', ')}`),
      check(`one key's quota of ${QUOTA} is counted across processes`, within.every((a) => a.status === 200) && countdown === expected,
        `statuses ${within.map((a) => a.status).join(',')}; remaining ${countdown}`),
      check('beyond it, every process answers 429', beyond.every((a) => a.status === 429), `statuses ${beyond.map((a) => `${a.port}:${a.status}`).join(', ')}`),
    ]; // prettier-ignore
    return drillResult('scale-out', checks, {
      opensearch: config.opensearchNodes.length > 1 ? `${config.opensearchNodes.length} nodes` : config.opensearchUrl,
      workers,
      apis,
      episodes: run.records.length,
      passages: stored.passages,
      episodesPerWorker: byWorker.map((ids) => ids.length),
      ingestSeconds: seconds,
    });
  } finally {
    for (const server of servers) if (server.alive()) server.process.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    await run.close();
    await admin.close();
  }
}
