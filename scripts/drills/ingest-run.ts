// A real ingest for the worker drills: `npm run ingest` and `npm run worker` as child processes over a
// throw-away prefix and queue, watched through the queue, judged by what ends up in the store.
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { libraryJobs } from '../../indexer/jobs.js';
import { createIngestQueue, createRedisConnection, type IngestQueue } from '../../indexer/queue.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { verifyIndexed, type IndexCheck } from '../../indexer/verify.js';
import { check, sleep, type DrillResult } from './request-loop.js';
import { runScript, waitFor, type Child } from '../lib/child.js';

type Check = DrillResult['checks'][number];

export const SAMPLE_LIBRARY = fileURLToPath(new URL('../../sample-library/', import.meta.url));

export interface IngestRun {
  queue: IngestQueue;
  records: EpisodeRecord[];
  /** The waiting `npm run ingest`. */
  ingest: Child;
  workers: Child[];
  startWorker(): Child;
  /** Ids of the episode jobs completed so far, and of those running now. */
  episodeJobs(): Promise<{ completed: string[]; active: string[] }>;
  /**
   * Waits for the ingest to exit (at most `timeoutMs`), then judges the outcome every worker
   * drill shares: the ingest exited 0 with nothing failed, no job failed, and the store holds
   * every episode exactly once.
   */
  finish(timeoutMs?: number): Promise<{ stored: IndexCheck; seconds: number; checks: Check[] }>;
  close(): Promise<void>;
}

/**
 * Starts an ingest of `library` into `prefix` through queue `queueName` with one worker,
 * after clearing both. Passages are embedded by the real model every time: the vector
 * cache is switched off, so that the run lasts long enough to be interrupted.
 */
export async function startIngestRun({
  library = SAMPLE_LIBRARY,
  prefix,
  queueName,
  logLevel = 'warn',
  env: base = process.env,
}: {
  library?: string;
  prefix: string;
  queueName: string;
  /** LOG_LEVEL of the ingest and the workers (`info` logs every completed job). */
  logLevel?: string;
  /** The environment the run's stores are read from and its processes start with (e.g. every node of a local cluster in OPENSEARCH_URL). */
  env?: NodeJS.ProcessEnv;
}): Promise<IngestRun> {
  const config = loadConfig(base);
  const client: Client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const connection = createRedisConnection(config.redisUrl);
  const queue = createIngestQueue({ connection, name: queueName });
  await queue.obliterate({ force: true });
  await deleteIndices(client, prefix);

  const records: EpisodeRecord[] = [];
  for await (const job of libraryJobs(library, { onIssue: () => undefined })) if (job.kind === 'episode') records.push(job.record);

  const env: NodeJS.ProcessEnv = { ...base, INDEX_PREFIX: prefix, QUEUE_NAME: queueName, LOG_LEVEL: logLevel };
  delete env.EMBED_CACHE_DIR;
  const workers: Child[] = [];
  const startWorker = () => {
    const worker = runScript('bin/worker.ts', [], env);
    workers.push(worker);
    return worker;
  };
  const startedAt = Date.now();
  const ingest = runScript('bin/ingest.ts', [library], env);
  // The ingest creates the indices before its first job; the worker starts after that.
  const queued = await waitFor(async () => (await queue.count()) > 0 || !ingest.alive(), 120_000);
  if (!queued || !ingest.alive()) {
    if (ingest.alive()) ingest.process.kill('SIGKILL');
    await Promise.allSettled([queue.close(), client.close()]);
    connection.disconnect();
    throw new Error(`the ingest enqueued nothing: ${ingest.stderr().trim().split('\n').pop() ?? 'no output'}`);
  }
  startWorker();

  return {
    queue,
    records,
    ingest,
    workers,
    startWorker,
    async episodeJobs() {
      const ids = async (state: 'completed' | 'active') => (await queue.getRanges([state], 0, -1)).filter((id) => id.startsWith('episode-'));
      return { completed: await ids('completed'), active: await ids('active') };
    },
    async finish(timeoutMs = 15 * 60_000) {
      const exitCode = await Promise.race([ingest.exited, sleep(timeoutMs).then(() => 'timeout' as const)]);
      const seconds = (Date.now() - startedAt) / 1000;
      const stored = await verifyIndexed(client, indexAliases(prefix), records);
      const failed = await queue.getFailedCount();
      const summary = summaryLine(ingest.stderr());
      const requeued = /"requeued":(\d+)/.exec(ingest.stderr())?.[1] ?? '0';
      const checks = [
        check('`npm run ingest` exited 0 with nothing failed', exitCode === 0 && / failed 0,/.test(summary),
          `exit ${exitCode}; ${summary}; jobs re-enqueued: ${requeued}`),
        check('no job failed', failed === 0, `${failed} failed`),
        check('every episode indexed exactly once', stored.problems.length === 0,
          stored.problems.length ? stored.problems.slice(0, 3).join('; ') : `${stored.episodes} episodes, ${stored.passages} passages, as derived`),
      ]; // prettier-ignore
      return { stored, seconds, checks };
    },
    async close() {
      for (const child of [ingest, ...workers]) if (child.alive()) child.process.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      connection.disconnect();
      await deleteIndices(client, prefix).catch(() => undefined);
      await client.close();
    },
  };
}

/** The ingest's closing summary line, e.g. `indexed 11, unchanged 0, failed 0, removed 0`. */
function summaryLine(stderr: string): string {
  return /indexed \d+, unchanged \d+, failed \d+, removed \d+/.exec(stderr)?.[0] ?? 'no summary';
}

/** A drill that could not set up its fault. */
export function fail(run: IngestRun, why: string): DrillResult {
  return {
    name: 'worker',
    ok: false,
    checks: [{ name: 'fault injected mid-ingest', ok: false, detail: why }],
    figures: {
      ingest: run.ingest.alive() ? 'running' : `exited ${run.ingest.process.exitCode}`,
      ingestStderr: lastLine(run.ingest.stderr()),
      workers: run.workers.map((w) => (w.alive() ? 'running' : `exited ${w.process.exitCode}: ${lastLine(w.stderr())}`)),
    },
  };
}

const lastLine = (text: string) => text.trim().split('\n').pop() ?? '';
