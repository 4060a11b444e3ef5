// `npm run worker`: processes ingest jobs and the feed pipeline's polls and processing jobs until SIGTERM/SIGINT.
import { Command, InvalidArgumentError } from 'commander';
import { commandConfig, describeFailure, missingServices, reachRedis } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient, ensureIndices, indexAliases, type Client } from '../core/store/opensearch.js';
import { createIndexerEmbedder } from '../core/embedding/indexer-embedder.js';
import { signatureOf, type Embedder } from '../core/embedding/embedder.js';
import { guardIndexEmbedder, startupMismatch } from '../core/embedding/index-guard.js';
import { createIngestQueue, createIngestWorker, createRedisConnection } from '../indexer/queue.js';
import { createWorkerMetrics } from '../pipeline/metrics/ingest.js';
import { startMetricsListener, type MetricsListener } from '../core/ground/metrics-listener.js';
import { startPipelineWorkers, type PipelineWorkers } from '../pipeline/follow/worker.js';
import { createProcessQueue } from '../pipeline/follow/queues.js';
import { createStages } from '../pipeline/enrich/stages.js';
import type { ChatOutcome } from '../pipeline/enrich/llm.js';
import { registerChatWriterMetrics, registerPipelineMetrics } from '../pipeline/metrics/follow.js';
import { prepareSecrets, startWebhookWorkers, type WebhookWorkers } from '../pipeline/webhooks/worker.js';
import { keyringOf } from '../pipeline/webhooks/sealed.js';
import { registerBackupMetrics } from '../pipeline/metrics/backup.js';
import { startBackupSchedule, type BackupSchedule } from '../pipeline/backup/schedule.js';
import { positive } from './lib/cli-args.js';

const INDEXER_TIMEOUT_MS = 120_000;

const program = new Command()
  .name('worker')
  .description(
    'Run ingest jobs from the queue (QUEUE_NAME) into the indices of INDEX_PREFIX, and the pipeline of followed\n' +
      "feeds (`npm run follow`): polls from each source's Job Scheduler and one processing job per episode. Transient store errors\n" +
      'are retried with exponential backoff; invalid records fail at once. SIGTERM/SIGINT finish the\n' +
      'current jobs, then exit. A worker killed outright loses nothing: its job runs again once its lock\n' +
      'expires (--lock-duration) and a worker notices (--stalled-interval).',
  )
  .option('--concurrency <n>', 'jobs at once: 2 embeds the next episode while the last one writes (embedding calls take turns; jobs of one episode never overlap)', positive, 2)
  .option('--lock-duration <ms>', 'job lock lifetime; how soon a dead worker’s job is recovered', positive, 30_000)
  .option('--stalled-interval <ms>', 'how often stalled jobs are looked for', positive, 30_000)
  .option('--no-pipeline', 'run ingest jobs only, not the followed feeds’ polls and transcriptions')
  .option('--no-webhooks', 'deliver no webhooks (`npm run webhooks`); another worker does')
  .option('--metrics-port <port>', 'serve Prometheus /metrics on METRICS_HOST at this port (default WORKER_METRICS_PORT; unset: none)', port)
  .parse();

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port 0..65535');
  return Number(value);
}

const opts = program.opts<{
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  pipeline: boolean;
  webhooks: boolean;
  metricsPort?: number;
}>();
const config = commandConfig();
const log = createLogger({ name: 'worker', level: config.logLevel, fd: 2 });

/**
 * The worker's embedder: refuses to start when the live passages index was built by another
 * embedder, and stops the worker (exit 3) when a reindex swaps one in: jobs then wait for a
 * worker restarted with the configuration the index was rebuilt for.
 */
async function guardedEmbedder(client: Client, model: Embedder): Promise<Embedder> {
  const alias = indexAliases(config.indexPrefix).passages;
  const refusal = await startupMismatch(client, alias, model);
  if (refusal) throw new Error(refusal);
  return guardIndexEmbedder(model, {
    client,
    alias,
    log,
    onMismatch: () => {
      process.exitCode = 3;
      process.kill(process.pid, 'SIGTERM'); // the usual shutdown: current jobs end (they fail), nothing new is taken
    },
  });
}

async function main(): Promise<void> {
  await reachRedis(config);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
  const model = await createIndexerEmbedder(config, { log });
  const embedder = await guardedEmbedder(client, model);
  const aliases = await ensureIndices(client, {
    prefix: config.indexPrefix,
    modelId: embedder.modelId,
    embedding: signatureOf(model),
    layout: config.indexLayout,
    languages: config.languages,
  });
  // Before any job is taken: without SECRETS_KEY while endpoints exist, or with a key their secrets were not sealed under, the worker refuses.
  const keyring = keyringOf(config.secrets);
  if (opts.webhooks) await prepareSecrets({ client, aliases }, keyring, log);
  const connection = createRedisConnection(config.redisUrl);
  const worker = createIngestWorker({
    connection,
    name: config.queueName,
    ctx: { client, embedder, aliases, log, changes: { retentionDays: config.changes.retentionDays }, languages: config.languages },
    concurrency: opts.concurrency,
    lockDurationMs: opts.lockDuration,
    stalledIntervalMs: opts.stalledInterval,
    log,
  });
  // What starts after the ingest worker, filled in as each part starts: a signal during start-up closes what exists.
  const parts: { pipeline?: PipelineWorkers; webhooks?: WebhookWorkers; backups?: BackupSchedule; metrics?: MetricsListener } = {};
  let closing = false;
  let startup: Promise<void> = Promise.resolve();
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'finishing the current jobs, then exiting');
    // close() waits for active jobs; nothing new is taken meanwhile. The ingest worker takes jobs from its creation on,
    // so it closes at once; the other parts once start-up has stopped starting them.
    const ingest = worker.close();
    void startup
      .catch(() => undefined)
      .then(() => Promise.all([ingest, parts.pipeline?.close(), parts.webhooks?.close(), parts.backups?.close()]))
      .then(async () => {
        await parts.metrics?.close();
        connection.disconnect();
        await client.close();
        log.info('worker stopped');
        process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      })
      .catch((err: unknown) => {
        log.error({ err }, 'worker did not close cleanly');
        process.exit(1);
      });
  };
  // Installed before anything else starts: the ingest worker may be running a job already.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  startup = startParts();
  await startup;
  if (!closing) log.info({ queue: config.queueName, prefix: config.indexPrefix, model: embedder.modelId, concurrency: opts.concurrency }, 'worker started');

  /** The pipeline, webhook and backup workers and the metrics listener; stops starting more once a signal came. */
  async function startParts(): Promise<void> {
    // Enrichment before publishing, with the indexer's embedder (ENRICH=off publishes episodes as transcribed).
    // The language model's outcomes are counted once the metrics registry exists (below).
    let countChat: ((outcome: ChatOutcome) => void) | undefined;
    if (opts.pipeline) for (const line of missingServices(config)) log.warn(line);
    // Its CPU work runs in a thread with ENRICH_DEADLINE_MS per episode; the embedder and clients stay here.
    const enrich =
      opts.pipeline && config.enrich.enabled
        ? { ...(await createStages(config, { log, embedder, onOutcome: (outcome) => countChat?.(outcome) })).parts, deadlineMs: config.enrich.deadlineMs }
        : undefined;
    if (closing) return;
    const pipeline: PipelineWorkers | undefined = opts.pipeline
      ? await startPipelineWorkers({
          enrich,
          connection,
          indexPrefix: config.indexPrefix,
          pipeline: config.pipeline,
          ctx: { client, embedder, aliases, log, changes: { retentionDays: config.changes.retentionDays }, languages: config.languages },
          lockDurationMs: opts.lockDuration,
          stalledIntervalMs: opts.stalledInterval,
          log,
        })
      : undefined;
    parts.pipeline = pipeline;
    if (closing) return;
    const webhooks: WebhookWorkers | undefined = opts.webhooks
      ? await startWebhookWorkers({
          connection,
          indexPrefix: config.indexPrefix,
          store: { client, aliases },
          keyring,
          outbound: { allowPrivate: config.pipeline.allowPrivate, userAgent: config.pipeline.userAgent },
          log,
        })
      : undefined;
    parts.webhooks = webhooks;
    if (closing) return;
    // BACKUP_EVERY: scheduled backups of the prefix (off when unset).
    const backups = await startBackupSchedule({ connection, client, config, log });
    parts.backups = backups;
    if (closing) return;
    const metricsPort = opts.metricsPort ?? config.metrics.workerPort;
    if (metricsPort !== undefined) {
      const queue = createIngestQueue({ connection, name: config.queueName, log });
      const { registry } = createWorkerMetrics({ worker, queue });
      // The backlog gauges read the processing queue on the shared connection (closed with it at shutdown).
      const backlog = pipeline ? { libraryDir: config.pipeline.libraryDir, queue: createProcessQueue(connection, config.indexPrefix), rule: config.pipeline } : undefined;
      if (pipeline) registerPipelineMetrics({ registry, poll: pipeline.poll, process: pipeline.process, backlog });
      if (enrich && config.enrich.url) countChat = registerChatWriterMetrics(registry);
      if (backups) registerBackupMetrics({ registry, worker: backups.worker, client, repository: config.backup.repository, prefix: config.indexPrefix });
      parts.metrics = await startMetricsListener({ registry, host: config.metrics.host, port: metricsPort, log });
      worker.on('closed', () => void queue.close());
    }
  }
}

main().catch((err: unknown) => {
  log.error({ err }, 'worker failed to start');
  process.stderr.write(`worker: ${describeFailure(err, config)}\n`);
  process.exit(1);
});
