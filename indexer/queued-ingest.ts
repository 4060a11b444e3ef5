// A library loaded through the queue: its jobs enqueued for `npm run worker`, then (optionally) waited for, with jobs Redis lost put back.
import type { Config } from '../core/config/load.js';
import type { Logger } from '../core/ground/logger.js';
import { createOpenSearchClient } from '../core/store/opensearch.js';
import { ensureConfiguredIndices } from './ensure-indices.js';
import { jobIdOf, libraryJobs, type IngestJob } from './jobs.js';
import { formatIssue } from '../core/library/reader.js';
import { createProgress } from './progress.js';
import { createIngestQueue, createRedisConnection, enqueue } from './queue.js';
import { waitForJobs } from './job-wait.js';
import { createSummary, type LoadSummary } from './summary.js';

/** Indexer requests (large bulks, delete_by_query with refresh) take far longer than API queries. */
export const INDEXER_TIMEOUT_MS = 120_000;

export interface QueuedIngestOptions {
  config: Readonly<Config>;
  /** The library folder. */
  dir: string;
  /** Rewrite every episode even when unchanged. */
  force: boolean;
  /** Wait for the worker to finish the jobs (else return once they are enqueued). */
  wait: boolean;
  log: Logger;
}

/**
 * Enqueues one job per episode, one for users/channels/facets and one that removes episodes no
 * longer in the library, after creating the indices for the configured embedder (so that a worker
 * started later finds them and accepts them); with `wait`, follows the jobs to the end with a
 * progress bar and re-enqueues, from the library, any job Redis lost (a crash between fsyncs).
 * The summary counts what the worker reported.
 */
export async function ingestQueued({ config, dir, force, wait, log }: QueuedIngestOptions): Promise<LoadSummary> {
  const connection = createRedisConnection(config.redisUrl);
  const queue = createIngestQueue({ connection, name: config.queueName, log });
  const summary = createSummary(dir);
  const ids: string[] = [];
  const kinds = new Map<string, string>();
  let deduplicated = 0;
  async function* jobs(hooks: Parameters<typeof libraryJobs>[1]): AsyncGenerator<IngestJob> {
    for await (const job of libraryJobs(dir, hooks)) yield job.kind === 'episode' && force ? { ...job, force: true } : job;
  }
  try {
    const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
    try {
      await ensureConfiguredIndices(client, config, { log });
    } finally {
      await client.close();
    }
    for await (const job of jobs({
      onIssue: (issue) => {
        summary.issue(issue);
        log.warn({ path: issue.path, line: issue.line, id: issue.id, reason: issue.reason }, `skipped: ${formatIssue(issue)}`);
      },
      onSyncWithheld: (reason) => summary.syncWithheld(reason),
    })) {
      if (job.kind === 'episode') summary.episodeRead();
      const { id, deduplicated: dup } = await enqueue(queue, job);
      if (dup) deduplicated++;
      ids.push(id);
      kinds.set(id, job.kind === 'episode' ? job.record.id : job.kind);
    }
    log.info({ queue: config.queueName, jobs: ids.length, deduplicated }, 'enqueued');
    if (!wait) return summary.finish();

    log.info({ queue: config.queueName }, 'waiting for the worker (`npm run worker`) to process the jobs');
    const progress = createProgress({ label: 'ingest (worker)', log });
    let embedded = 0;
    try {
      await waitForJobs(queue, ids, {
        onOutcome: (o) => {
          const subject = kinds.get(o.id)!;
          if (o.state === 'completed' && o.result) {
            summary.result(o.result);
            if (o.result.kind === 'episode') embedded += o.result.embedded;
          } else {
            summary.failed(subject, o.reason ?? 'failed', { episode: subject !== 'meta' && subject !== 'sync' });
          }
        },
        onUpdate: (done, total) => progress.update(done, total, { embedded }),
        requeue: async (lost) => {
          let added = 0;
          for await (const job of jobs({ onIssue: () => undefined })) {
            if (lost.has(jobIdOf(job))) added += (await enqueue(queue, job)).deduplicated ? 0 : 1;
          }
          log.warn({ lost: lost.size, requeued: added }, 'jobs were lost from the queue; re-enqueued them');
        },
      });
    } finally {
      progress.stop();
    }
    return summary.finish();
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
