// `npm run follow -- <feed URL | yt-dlp folder> --channel <slug> --owner <user id>`, `--poll <slug>`, `--list`,
// `--stop <slug>`, `--retry <slug>`: channels that follow their feed. The worker (`npm run worker`) does the rest.
import { Command } from 'commander';
import { commandConfig, describeFailure, reachRedis } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient, ensureIndices } from '../core/store/opensearch.js';
import { createIndexerEmbedder } from '../core/embedding/indexer-embedder.js';
import type { PassageEmbedder } from '../indexer/load-episode.js';
import { signatureOf } from '../core/embedding/embedder.js';
import { INDEXER_TIMEOUT_MS } from '../indexer/queued-ingest.js';
import { createRedisConnection } from '../indexer/queue.js';
import { followSource, listProgress, listSources, retryFailed, stopFollowing } from '../pipeline/follow/commands.js';
import { formatList, printable, progressJson } from './lib/follow-output.js';
import { FollowError } from '../pipeline/follow/errors.js';
import { pollSource, type PollReport } from '../pipeline/follow/poll.js';
import { createPollQueue, createProcessQueue } from '../pipeline/follow/queues.js';

const program = new Command()
  .name('follow')
  .description(
    'Follow a podcast feed (or re-read a yt-dlp download folder) as a channel: the source is recorded in\n' +
      'FOLLOW_LIBRARY_DIR/<slug>/follow.json, polled now and then every FOLLOW_POLL_INTERVAL_SECONDS by `npm run worker`,\n' +
      'which also transcribes new episodes. New items appear at once as pending.',
  )
  .argument('[source]', 'feed URL (http/https) or yt-dlp download folder')
  .option('--channel <slug>', 'the channel slug ([a-z0-9-]{1,63})')
  .option('--owner <userId>', 'the owning user (must exist in the store and be on the paid plan)')
  .option('--archive-missing', 'archive episodes whose item left the feed (default: left alone)')
  .option('--force-owner', 'hand an existing channel of another owner (with its members and episodes) to --owner')
  .option('--poll <slug>', 'poll a followed source now')
  .option('--list', 'show each followed source: last poll, HTTP outcome, items seen, errors, next poll; what waits (new, backfill: episodes, audio, estimate), runs and failed')
  .option('--json', 'with --list: one JSON document (see docs/operations.md) instead of the table')
  .option('--stop <slug>', 'stop following (episodes stay)')
  .option('--retry <slug>', "retry the channel's failed episodes now")
  .showHelpAfterError();
program.parse();

interface Opts {
  channel?: string;
  owner?: string;
  archiveMissing?: boolean;
  forceOwner?: boolean;
  poll?: string;
  list?: boolean;
  json?: boolean;
  stop?: string;
  retry?: string;
}
const opts = program.opts<Opts>();
const config = commandConfig();
const log = createLogger({ name: 'follow', level: config.logLevel, fd: 2 });

/**
 * The configured embedder, as the worker has it: a poll writes new items as catalog rows (nothing to embed), but a
 * change of a published episode's catalog fields re-indexes its passages, whose vectors are re-used from the store
 * when their texts are unchanged; that needs the embedder the index was built with.
 */
const embedderFor = (): Promise<PassageEmbedder> => createIndexerEmbedder(config, { log });

function printReport(r: PollReport): void {
  const lines = [
    `${r.slug}: ${r.outcome}${r.status && String(r.status) !== r.outcome ? ` (HTTP ${r.status})` : ''}; ${r.items} items; ${r.added} new, ${r.updated} updated, ${r.reprocessed} to process again, ${r.archived} archived; ${r.enqueued} queued for transcription`,
    ...(r.deferredItems > 0 ? [`  ${r.deferredItems} more new items left for the next polls (FOLLOW_MAX_ITEMS_PER_POLL)`] : []),
    ...(r.deferredJobs > 0 ? [`  ${r.deferredJobs} more episodes to be queued by the next polls (FOLLOW_MAX_QUEUED_PER_CHANNEL)`] : []),
    ...r.skippedItems.map((s) => `  skipped ${s.item}: ${s.reason}`),
    ...(r.error ? [`  error: ${r.error}`] : []),
    `  next poll ${r.nextPollAt ?? '-'}`,
  ];
  // Item titles, dates and reasons come from the feed: no control character reaches the terminal.
  process.stdout.write(`${lines.map(printable).join('\n')}\n`);
}

/** How long `--list` waits for the queue's answer before it gives up (Redis unreachable). */
const LIST_QUEUE_TIMEOUT_MS = 15_000;

/** `--list`: the sources' poll state from follow.json and their work from the queue, as a table or `--json`. */
async function list(): Promise<number> {
  const { libraryDir, recentDays, recentItems } = config.pipeline;
  await reachRedis(config);
  const connection = createRedisConnection(config.redisUrl);
  const processQueue = createProcessQueue(connection, config.indexPrefix);
  let timer: NodeJS.Timeout | undefined;
  try {
    const states = await listSources(libraryDir, (err) => process.stderr.write(`follow: ${printable(err.message)}\n`));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the processing queue did not answer within ${LIST_QUEUE_TIMEOUT_MS / 1000} s (is Redis at REDIS_URL running?)`)),
        LIST_QUEUE_TIMEOUT_MS,
      );
    });
    const progress = await Promise.race([
      listProgress({
        libraryDir,
        processQueue,
        rule: { recentDays, recentItems },
        concurrency: config.pipeline.transcribe.concurrency * Math.max(1, config.pipeline.transcribe.urls.length),
        states,
      }),
      timeout,
    ]);
    process.stdout.write(opts.json ? `${progressJson(progress)}\n` : `${formatList(states, progress).join('\n')}\n`);
    return 0;
  } finally {
    clearTimeout(timer);
    await processQueue.close();
    connection.disconnect();
  }
}

async function main(): Promise<number> {
  if (opts.list) return list();
  const source = program.args[0];
  const slug = opts.poll ?? opts.stop ?? opts.retry ?? opts.channel;
  if (!slug) throw new FollowError('bad_slug', 'give --channel <slug> (or --poll, --stop, --retry <slug>)');
  if (!opts.poll && !opts.stop && !opts.retry && (!source || !opts.owner)) throw new FollowError('bad_source', 'give <feed URL | folder> --channel <slug> --owner <user id>');
  await reachRedis(config);

  const connection = createRedisConnection(config.redisUrl);
  const pollQueue = createPollQueue(connection, config.indexPrefix);
  const processQueue = createProcessQueue(connection, config.indexPrefix);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: INDEXER_TIMEOUT_MS });
  try {
    if (opts.stop) {
      const s = await stopFollowing({ pipeline: config.pipeline, pollQueue }, slug);
      process.stdout.write(`${slug}: stopped following ${s.source}; its episodes stay\n`);
      return 0;
    }
    const embedder = await embedderFor();
    const aliases = await ensureIndices(client, { prefix: config.indexPrefix, modelId: embedder.modelId, embedding: signatureOf(embedder), layout: config.indexLayout });
    const deps = { pipeline: config.pipeline, ctx: { client, embedder, aliases, log, changes: { retentionDays: config.changes.retentionDays } }, processQueue, pollQueue, log };
    if (opts.retry) {
      const n = await retryFailed(deps, slug);
      process.stdout.write(`${slug}: ${n} failed episode(s) queued again\n`);
      return 0;
    }
    const report = opts.poll
      ? await pollSource(deps, slug, { force: true })
      : await followSource(deps, { source: source!, slug, ownerId: opts.owner!, archiveMissing: opts.archiveMissing ?? false, forceOwner: opts.forceOwner ?? false });
    printReport(report);
    return report.outcome === 'error' ? 1 : 0;
  } finally {
    await Promise.all([pollQueue.close(), processQueue.close()]);
    connection.disconnect();
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (!(err instanceof FollowError)) log.error({ err }, 'follow failed');
    process.stderr.write(`follow: ${printable(describeFailure(err, config))}\n`);
    process.exit(1);
  },
);
