// The API's embedder: the model in worker processes behind a bounded queue, so a flood of searches never stalls the event loop.
import { fork, type ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from './embedder.js';
import { resolvePooling, resolvePrefixes, type EmbedderSignature, type PoolingSetting } from './signature.js';
import type { Logger } from '../ground/logger.js';

/** Why a vector could not be had: every worker busy and the queue full, or the model failed on it. */
export class EmbedderUnavailableError extends Error {
  constructor(
    readonly reason: 'busy' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'EmbedderUnavailableError';
  }
}

/** An {@link Embedder} whose model runs in worker processes. */
export interface EmbedderPool extends Embedder {
  /** Jobs waiting for a worker. */
  readonly queued: number;
  /** Jobs a worker is working on. */
  readonly running: number;
  /** Stops the workers; jobs still waiting or running fail. */
  close(): Promise<void>;
}

export interface EmbedderPoolOptions {
  modelId: string;
  modelDir?: string | undefined;
  /** Worker processes, each with its own copy of the model. Default 1. */
  workers?: number;
  /**
   * Jobs that may wait for a worker; one more is refused at once with an
   * {@link EmbedderUnavailableError} (`busy`), so a caller can do without instead of queueing
   * behind a flood. Default 8.
   */
  maxQueue?: number;
  /**
   * Longest a query waits for its vector, queued and embedded; past it the caller gets an
   * {@link EmbedderUnavailableError} (`busy`) and goes on without (a worker still busy with
   * it finishes it, and the vector is dropped). Under a flood of searches a late vector
   * only makes the search later: a keyword-only answer in time serves the caller better.
   * Passage jobs (the indexer's) have none. Default 500 ms.
   */
  queryTimeoutMs?: number;
  /** See `maxQueryTokens` of `createEmbedder`. Default 128. */
  maxQueryTokens?: number;
  /**
   * Nice value the workers run at (0–19; 0: the same priority as the API). The model is
   * the one CPU-heavy step of a search and can wait; /healthz, lists and transcripts take
   * little CPU but must not wait behind it. Default 10.
   */
  nice?: number;
  /** Pooling and prefixes of the model (see `createEmbedder`); defaults from the model id. */
  pooling?: PoolingSetting;
  queryPrefix?: string | undefined;
  passagePrefix?: string | undefined;
  log?: Logger;
}

/** What a worker is started with (as JSON, its one command-line argument). */
export interface WorkerOptions {
  modelId: string;
  modelDir: string | undefined;
  maxQueryTokens: number;
  nice: number;
  pooling: 'cls' | 'mean';
  queryPrefix: string;
  passagePrefix: string;
}

/** A job sent to a worker. */
export interface WorkerJob {
  id: number;
  kind: 'query' | 'passages';
  texts: string[];
}

/** What a worker posts back. */
export type WorkerMessage =
  | { type: 'ready'; dimension: number }
  | { type: 'load-failed'; message: string }
  | { type: 'done'; id: number; data: Float32Array }
  | { type: 'failed'; id: number; message: string };

interface PendingJob extends WorkerJob {
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: ChildProcess;
  job: PendingJob | undefined;
  ready: boolean;
}

const RESPAWN_DELAY_MS = 1000;

/**
 * Starts a worker process on embedder-worker.ts (through tsx when running from source) or
 * .js (compiled). Processes, not worker threads: onnxruntime-node 1.14 corrupts the
 * heap of the whole process when a thread that loaded it is terminated while another
 * thread uses it (reproduced: a segfault in the main thread's next model call), so a
 * worker could never be replaced or stopped safely. A process is killed cleanly, and a
 * crash in the model takes down the worker, not the API.
 */
function startWorker(options: WorkerOptions): ChildProcess {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = fileURLToPath(new URL(`./embedder-worker${ext}`, import.meta.url));
  // Settings come from the pool, not the environment: only core/config/load.ts reads that.
  return fork(entry, [JSON.stringify(options)], {
    execArgv: ext === '.ts' ? ['--import', 'tsx'] : [],
    serialization: 'advanced', // Float32Array through the channel as it is
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Resolves when the worker has loaded the model; rejects when it could not. */
function whenReady(worker: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: WorkerMessage) => {
      if (m.type === 'ready') done(() => resolve(m.dimension));
      else if (m.type === 'load-failed') done(() => reject(new Error(m.message)));
    };
    const onError = (error: Error) => done(() => reject(error));
    const onExit = (code: number | null) => done(() => reject(new Error(`embedder worker exited (${code}) while loading the model`)));
    const done = (settle: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      settle();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * Starts `workers` worker processes and waits until each has loaded the model; rejects (and stops
 * them) when the model cannot be loaded. Jobs queue in the API process and go to the first
 * free worker; a worker that dies fails its job and is replaced.
 */
export async function createEmbedderPool({
  modelId,
  modelDir,
  workers: count = 1,
  maxQueue = 8,
  queryTimeoutMs = 500,
  maxQueryTokens = 128,
  nice = 10,
  pooling: poolingSetting = 'auto',
  queryPrefix: querySetting,
  passagePrefix: passageSetting,
  log,
}: EmbedderPoolOptions): Promise<EmbedderPool> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`workers must be a positive integer, got ${count}`);
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new Error(`nice must be an integer 0..19, got ${nice}`);
  const pooling = resolvePooling(modelId, poolingSetting);
  const { queryPrefix, passagePrefix } = resolvePrefixes(modelId, { queryPrefix: querySetting, passagePrefix: passageSetting });
  const options: WorkerOptions = { modelId, modelDir, maxQueryTokens, nice, pooling, queryPrefix, passagePrefix };
  const queue: PendingJob[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let embeddedCount = 0;
  let closed = false;
  const started = Date.now();

  const dispatch = () => {
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (!slot.ready || slot.job) continue;
      const job = queue.shift()!;
      slot.job = job;
      // A job in flight keeps the API process alive until it is answered; an idle worker does not.
      slot.worker.channel?.ref();
      slot.worker.send({ id: job.id, kind: job.kind, texts: job.texts } satisfies WorkerJob);
    }
  };

  const attach = (slot: Slot) => {
    // A pool never keeps the API process alive by itself; a worker leaves when the API does (see embedder-worker.ts).
    slot.worker.unref();
    slot.worker.channel?.unref();
    slot.worker.on('message', (m: WorkerMessage) => {
      if (m.type !== 'done' && m.type !== 'failed') return;
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      slot.job = undefined;
      slot.worker.channel?.unref();
      if (m.type === 'done') {
        embeddedCount += job.texts.length;
        job.resolve(toRows(m.data, dimension));
      } else {
        job.reject(new EmbedderUnavailableError('failed', `embedding failed: ${m.message}`));
      }
      dispatch();
    });
    slot.worker.on('error', (error) => log?.error({ err: error }, 'embedder worker failed'));
    slot.worker.on('exit', (code, signal) => {
      slot.ready = false;
      slot.job?.reject(new EmbedderUnavailableError('failed', `embedder worker exited (${code ?? signal})`));
      slot.job = undefined;
      if (!closed) respawn(slot);
    });
  };

  const respawn = (slot: Slot) => {
    log?.warn({ delayMs: RESPAWN_DELAY_MS }, 'embedder worker exited; starting another');
    setTimeout(() => {
      if (closed) return;
      slot.worker = startWorker(options);
      attach(slot);
      whenReady(slot.worker).then(
        () => {
          slot.ready = true;
          dispatch();
        },
        (error: unknown) => log?.error({ err: error }, 'embedder worker could not load the model'),
      );
    }, RESPAWN_DELAY_MS).unref();
  };

  const workers = Array.from({ length: count }, () => startWorker(options));
  let dimension: number;
  try {
    [dimension] = (await Promise.all(workers.map(whenReady))) as [number];
  } catch (error) {
    for (const w of workers) w.kill();
    throw error;
  }
  for (const worker of workers) {
    const slot: Slot = { worker, job: undefined, ready: true };
    slots.push(slot);
    attach(slot);
  }
  log?.info({ modelId, workers: count, maxQueue, queryTimeoutMs, maxQueryTokens, nice, ms: Date.now() - started }, 'embedder workers ready');

  const submit = (kind: WorkerJob['kind'], texts: string[], timeoutMs?: number): Promise<number[][]> => {
    if (closed) return Promise.reject(new EmbedderUnavailableError('failed', 'the embedder pool is closed'));
    if (queue.length >= maxQueue) {
      return Promise.reject(new EmbedderUnavailableError('busy', `every embedder worker is busy and ${queue.length} jobs wait`));
    }
    return new Promise((resolve, reject) => {
      const job: PendingJob = { id: nextId++, kind, texts, resolve, reject };
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => {
          // Still queued: it leaves the queue. Running: the worker finishes it, and the settled promise ignores the vector.
          const at = queue.indexOf(job);
          if (at >= 0) queue.splice(at, 1);
          reject(new EmbedderUnavailableError('busy', `no vector within ${timeoutMs} ms`));
        }, timeoutMs);
        job.resolve = (vectors) => (clearTimeout(timer), resolve(vectors));
        job.reject = (error) => (clearTimeout(timer), reject(error));
      }
      queue.push(job);
      dispatch();
    });
  };

  const signature: EmbedderSignature = { kind: 'local', model: modelId, dimension, pooling, queryPrefix, passagePrefix };
  return {
    modelId,
    signature,
    get dimension() {
      return dimension;
    },
    get embeddedCount() {
      return embeddedCount;
    },
    get queued() {
      return queue.length;
    },
    get running() {
      return slots.filter((s) => s.job).length;
    },
    async embedQuery(text) {
      const [vector] = await submit('query', [text], queryTimeoutMs);
      return vector!;
    },
    async embedPassages(texts) {
      return texts.length === 0 ? [] : submit('passages', texts);
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new EmbedderUnavailableError('failed', 'the embedder pool is closed'));
      await Promise.all(
        slots.map((s) =>
          s.worker.exitCode !== null || s.worker.signalCode !== null
            ? undefined
            : new Promise<void>((resolve) => {
                s.worker.ref(); // wait for it, even in a process with nothing else to do
                s.worker.once('exit', () => resolve());
                s.worker.kill();
              }),
        ),
      );
    },
  };
}

function toRows(data: Float32Array, dimension: number): number[][] {
  const rows = data.length / dimension;
  return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * dimension, (r + 1) * dimension)));
}
