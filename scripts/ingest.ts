// `npm run ingest -- <libraryDir> [--direct]`: enqueue a library for the worker, or load it in-process.
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createOpenSearchClient, ensureIndices } from '../src/store/opensearch.js';
import { createIndexerEmbedder, embedderFromModule } from '../indexer/embedder.js';
import { jobIdOf, libraryJobs, type IngestJob } from '../indexer/jobs.js';
import { formatIssue } from '../indexer/library-reader.js';
import { loadLibrary } from '../indexer/load-library.js';
import { createProgress } from '../indexer/progress.js';
import { createIngestQueue, createRedisConnection, enqueue, waitForJobs } from '../indexer/queue.js';
import { createSummary, formatSummary, type LoadSummary } from '../indexer/summary.js';

/** Indexer requests (large bulks, delete_by_query with refresh) take far longer than API queries. */
const INDEXER_TIMEOUT_MS = 120_000;

const program = new Command()
  .name('ingest')
  .description(
    'Load a library folder (users.json, channels.json, facet files, episodes/) into OpenSearch.\n' +
      'By default one job per episode (plus one for users/channels/facets and one that removes episodes\n' +
      'no longer in the library) is put on the BullMQ queue for `npm run worker`, and the command waits\n' +
      'for them. Exit status 1 when anything was skipped or failed.',
  )
  .argument('<libraryDir>', 'library folder')
  .option('--direct', 'load in this process without Redis (same code as the worker; for small loads)')
  .option('--no-wait', 'queue mode: enqueue and exit without waiting for the worker')
  .option('--force', 'rewrite every episode even when unchanged (stored vectors of unchanged text are re-used)')
  .addOption(new Option('--embedder-module <file>', 'TEST ONLY: the embedder of this module’s createEmbedder() instead of the model').hideHelp())
  .parse();

const opts = program.opts<{ direct?: boolean; wait: boolean; force?: boolean; embedderModule?: string }>();
const dir = resolve(program.args[0]!);
const config = loadConfig(process.env);
const log = createLogger({ name: 'ingest', level: config.logLevel, fd: 2 });

async function direct(): Promise<LoadSummary> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
  const embedder = await createIndexerEmbedder(config, { module: opts.embedderModule, log });
  const progress = createProgress({ label: 'ingest', log });
  try {
    return await loadLibrary({
      client,
      embedder,
      prefix: config.indexPrefix,
      dir,
      log,
      force: opts.force ?? false,
      layout: config.indexLayout,
      onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
    });
  } finally {
    progress.stop();
    await client.close();
  }
}

/** The library's jobs as this run enqueues them (`--force` marks episodes). */
async function* jobs(hooks: Parameters<typeof libraryJobs>[1]): AsyncGenerator<IngestJob> {
  for await (const job of libraryJobs(dir, hooks)) yield job.kind === 'episode' && opts.force ? { ...job, force: true } : job;
}

async function queued(): Promise<LoadSummary> {
  const connection = createRedisConnection(config.redisUrl);
  const queue = createIngestQueue({ connection, name: config.queueName, log });
  const summary = createSummary(dir);
  const ids: string[] = [];
  const kinds = new Map<string, string>();
  let deduplicated = 0;
  try {
    // Create the indices now (with the configured model) so that a worker started later finds them.
    const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
    await ensureIndices(client, { prefix: config.indexPrefix, modelId: opts.embedderModule ? (await embedderFromModule(opts.embedderModule)).modelId : config.modelId, layout: config.indexLayout });
    await client.close();
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
    if (!opts.wait) return summary.finish();

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
        // Jobs Redis lost (a crash between fsyncs) are read from the library again and re-added.
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

async function main(): Promise<number> {
  const summary = opts.direct ? await direct() : await queued();
  log.info({ summary: { ...summary, skipped: summary.skipped.length, failed: summary.failed } }, 'ingest finished');
  process.stderr.write(`${formatSummary(summary)}\n`);
  return summary.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log.error({ err }, 'ingest failed');
    process.stderr.write(`ingest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
