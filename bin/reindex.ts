// `npm run reindex`: rebuild every index of INDEX_PREFIX from mappings/ and swap the aliases atomically.
import { Command, InvalidArgumentError } from 'commander';
import { commandConfig, describeFailure } from './lib/reach.js';
import { configuredModelId, configuredSignature, createConfiguredEmbedder } from '../core/embedding/configured.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient } from '../core/store/opensearch.js';
import { createProgress } from '../indexer/progress.js';
import { reindex } from '../indexer/reindex.js';

const nonNegative = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
};

const program = new Command()
  .name('reindex')
  .description(
    'Build new versioned indices from mappings/ for INDEX_PREFIX, copy every document into them\n' +
      '(stored vectors are kept when the passages index was built by the configured embedder: EMBEDDER,\n' +
      'MODEL_ID or EMBEDDINGS_MODEL, MODEL_POOLING, MODEL_QUERY_PREFIX, MODEL_PASSAGE_PREFIX; otherwise\n' +
      'passages are re-embedded with it and the new index takes its dimension), swap all aliases in one\n' +
      'atomic call, then delete the old indices. Writes are blocked on the old indices meanwhile (the\n' +
      'worker retries them); searches keep reading the old indices until the swap. After a change of\n' +
      'embedder, restart the API and the worker with the new configuration once this has finished.',
  )
  .option('--grace <ms>', 'wait after the swap before deleting the old indices', nonNegative, 2000)
  .parse();

const opts = program.opts<{ grace: number }>();
const config = commandConfig();
const log = createLogger({ name: 'reindex', level: config.logLevel, fd: 2 });

async function main(): Promise<void> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 300_000 });
  const progress = createProgress({ label: 'reindex', unit: 'documents', log });
  const totals = new Map<string, { copied: number; total: number }>();
  try {
    const summary = await reindex({
      client,
      prefix: config.indexPrefix,
      modelId: configuredModelId(config),
      target: configuredSignature(config),
      embedder: () => createConfiguredEmbedder(config, { log }),
      log,
      graceMs: opts.grace,
      layout: config.indexLayout,
      onProgress: ({ index, copied, total }) => {
        totals.set(index, { copied, total });
        const all = [...totals.values()];
        progress.update(
          all.reduce((n, t) => n + t.copied, 0),
          all.reduce((n, t) => n + t.total, 0),
        );
      },
    });
    progress.stop();
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    progress.stop();
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log.error({ err }, 'reindex failed');
    process.stderr.write(`reindex: ${describeFailure(err, config)}\n`);
    process.exit(1);
  },
);
