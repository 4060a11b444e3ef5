// `npm run ingest -- <libraryDir> [--direct]`: enqueue a library for the worker, or load it in-process.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { commandConfig, describeFailure, reachRedis } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient } from '../core/store/opensearch.js';
import { createIndexerEmbedder } from '../core/embedding/indexer-embedder.js';
import { loadLibrary } from '../indexer/load-library.js';
import { createProgress } from '../indexer/progress.js';
import { INDEXER_TIMEOUT_MS, ingestQueued } from '../indexer/queued-ingest.js';
import { formatSummary, type LoadSummary } from '../indexer/summary.js';

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
  .parse();

const opts = program.opts<{ direct?: boolean; wait: boolean; force?: boolean }>();
const dir = resolve(program.args[0]!);
const config = commandConfig();
const log = createLogger({ name: 'ingest', level: config.logLevel, fd: 2 });

async function direct(): Promise<LoadSummary> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
  const embedder = await createIndexerEmbedder(config, { log });
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
      changeRetentionDays: config.changes.retentionDays,
      languages: config.languages,
      onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
    });
  } finally {
    progress.stop();
    await client.close();
  }
}

async function queued(): Promise<LoadSummary> {
  await reachRedis(config);
  return ingestQueued({ config, dir, force: opts.force ?? false, wait: opts.wait, log });
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
    process.stderr.write(`ingest: ${describeFailure(err, config)}\n`);
    process.exit(1);
  },
);
