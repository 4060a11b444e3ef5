// What the follow suites share: the pipeline's environment, `npm run follow` as a child process, waiting for what the
// pipeline does, a suite's own store (prefix, library folder, embedder, owners), and dropping it.
import { spawn } from 'node:child_process';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import { deleteIndices, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { startPipelineWorkers, type PipelineWorkers, type PipelineWorkersOptions } from '../../pipeline/follow/worker.js';
import type { EnrichParts } from '../../pipeline/enrich/enrich-thread.js';
import { startCountingRelay } from '../../scripts/lib/fakes/feed-server.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { openWorld } from './world.js';
import { REPO_ROOT } from '../../scripts/lib/child.js';
import { until as waitUntil, type UntilOptions } from './until.js';

/**
 * The environment a suite's pipeline (the worker, `npm run follow`) runs in: its prefix and library folder, loopback
 * fetching allowed (the feed server), transcription through `transcribeUrl`, polls only when asked, and the embedder of
 * `embedderEnv` (a hash embeddings server's `env`).
 */
export function followEnv({
  prefix,
  libraryDir,
  transcribeUrl,
  embedderEnv,
}: {
  prefix: string;
  libraryDir: string;
  transcribeUrl: string;
  embedderEnv: Readonly<Record<string, string>>;
}): Record<string, string> {
  return {
    INDEX_PREFIX: prefix,
    FOLLOW_LIBRARY_DIR: libraryDir,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    TRANSCRIBE_URL: transcribeUrl,
    FOLLOW_POLL_INTERVAL_SECONDS: '3600',
    LOG_LEVEL: 'warn',
    ...embedderEnv,
  };
}

export interface FollowRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run follow -- …` as a child process; resolves with its exit code and output. `env` names the embedder as
 * the worker's (a hash embeddings server's `env`), else the CLI loads the configured model.
 */
export function runFollow(args: readonly string[], env: Record<string, string>): Promise<FollowRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/follow.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Obliterates the suite's poll and process queues. */
async function dropFollowQueues(prefix: string, redisUrl: string): Promise<void> {
  const connection = createRedisConnection(redisUrl);
  for (const q of [createPollQueue(connection, prefix), createProcessQueue(connection, prefix)]) {
    await q.obliterate({ force: true });
    await q.close();
  }
  connection.disconnect();
}

/** Obliterates the suite's poll and process queues and deletes its indices, then closes `client`. */
export async function dropFollowStore({ client, prefix, redisUrl }: { client: Client; prefix: string; redisUrl: string }): Promise<void> {
  await dropFollowQueues(prefix, redisUrl);
  await deleteIndices(client, prefix);
  await client.close();
}

/** test/support/until.ts's wait with the follow suites' pace: they read files and the store, every 200 ms for up to 2 min. */
export const until = (what: string, check: () => boolean | Promise<boolean>, opts: UntilOptions = {}): Promise<void> =>
  waitUntil(what, check, { timeoutMs: 120_000, everyMs: 200, ...opts });

/**
 * The pipeline's workers in the suite's process, as `npm run worker` runs them, on the suite's environment (`env`, from
 * {@link followEnv}) and the hash embeddings server's embedder; closing them also closes their Redis connection.
 * `enrich`'s deadline is ENRICH_DEADLINE_MS's of `env` unless given.
 */
export async function startSuiteWorkers({
  client,
  prefix,
  env,
  embeddings,
  enrich,
  ...options
}: { client: Client; prefix: string; env: Record<string, string>; embeddings: HashEmbeddingsServer; enrich?: EnrichParts & { deadlineMs?: number } } & Partial<
  Pick<PipelineWorkersOptions, 'concurrency' | 'lockDurationMs' | 'stalledIntervalMs'>
>): Promise<PipelineWorkers> {
  const cfg = loadConfig({ ...process.env, ...env });
  const embedder = embeddings.embedder();
  const { aliases } = await openWorld({ client, prefix, modelId: embedder.modelId, embedding: embeddings.signature, layout: cfg.indexLayout });
  const connection = createRedisConnection(cfg.redisUrl);
  const started = await startPipelineWorkers({
    connection,
    indexPrefix: prefix,
    pipeline: cfg.pipeline,
    ctx: { client, embedder, aliases },
    ...options,
    ...(enrich ? { enrich: { deadlineMs: cfg.enrich.deadlineMs, ...enrich } } : {}),
  });
  return {
    ...started,
    close: async () => {
      await started.close();
      connection.disconnect();
    },
  };
}

/** A follow suite's own store: its index prefix and indices, library folder, embedder, a transcription relay to nowhere, paid owners. */
export interface FollowStore {
  client: Client;
  prefix: string;
  aliases: IndexAliases;
  libraryDir: string;
  relay: Awaited<ReturnType<typeof startCountingRelay>>;
  embeddings: HashEmbeddingsServer;
  /** The pipeline's environment ({@link followEnv}). */
  env: Record<string, string>;
  /** Closes the servers, drops the queues and indices (closing the client), deletes the library folder. */
  drop(): Promise<void>;
}

/** Opens a follow suite's store under a new prefix named after `kind`, with `owners` as paid users. */
export async function openFollowStore(kind: string, { owners = ['u_creator'] }: { owners?: readonly string[] } = {}): Promise<FollowStore> {
  const relay = await startCountingRelay('http://127.0.0.1:9');
  const embeddings = await startHashEmbeddingsServer();
  const cfg = loadConfig(process.env);
  const world = await openWorld({ kind, modelId: embeddings.model, embedding: embeddings.signature, layout: cfg.indexLayout, library: true });
  const { client, prefix, aliases } = world;
  const libraryDir = world.libraryDir!;
  const env = followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env });
  world.onDrop(() => dropFollowQueues(prefix, loadConfig({ ...process.env, ...env }).redisUrl));
  world.onDrop(() => relay.close());
  world.onDrop(() => embeddings.close());
  for (const id of owners) {
    await client.index({ index: aliases.users, id, body: userDocument({ id, name: id === 'u_creator' ? 'Creator' : id, plan: 'paid' }), refresh: true } as never);
  }
  return { client, prefix, aliases, libraryDir, relay, embeddings, env, drop: () => world.drop() };
}
