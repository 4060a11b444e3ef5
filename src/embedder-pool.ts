// The API's embedder: the model in worker threads behind a bounded queue, so a flood of searches never stalls the event loop.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Embedder } from './embedder.js';
import type { Logger } from './logger.js';

/** Why a vector could not be had: every thread busy and the queue full, or the model failed on it. */
export class EmbedderUnavailableError extends Error {
  constructor(
    readonly reason: 'busy' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'EmbedderUnavailableError';
  }
}

/** An {@link Embedder} whose model runs in worker threads. */
export interface EmbedderPool extends Embedder {
  /** Jobs waiting for a thread. */
  readonly queued: number;
  /** Jobs a thread is working on. */
  readonly running: number;
  /** Terminates the threads; jobs still waiting or running fail. */
  close(): Promise<void>;
}

export interface EmbedderPoolOptions {
  modelId: string;
  modelDir?: string | undefined;
  /** Worker threads, each with its own copy of the model. Default 1. */
  threads?: number;
  /**
   * Jobs that may wait for a thread; one more is refused at once with an
   * {@link EmbedderUnavailableError} (`busy`), so a caller can do without instead of queueing
   * behind a flood. Default 8.
   */
  maxQueue?: number;
  /** See `maxQueryTokens` of `createEmbedder`. Default 128. */
  maxQueryTokens?: number;
  log?: Logger;
}

/** What a worker is started with (`workerData`). */
export interface WorkerOptions {
  modelId: string;
  modelDir: string | undefined;
  maxQueryTokens: number;
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
  worker: Worker;
  job: PendingJob | undefined;
  ready: boolean;
}

const RESPAWN_DELAY_MS = 1000;

/** Starts a worker on embedder-worker.ts (through tsx when running from source) or .js (compiled). */
function startWorker(options: WorkerOptions): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./embedder-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(entry, { workerData: options });
  // Node 20 does not pass tsx's loader on to worker threads: register it before importing the TypeScript entry.
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData: options });
}

/** Resolves when the worker has loaded the model; rejects when it could not. */
function whenReady(worker: Worker): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: WorkerMessage) => {
      if (m.type === 'ready') done(() => resolve(m.dimension));
      else if (m.type === 'load-failed') done(() => reject(new Error(m.message)));
    };
    const onError = (error: Error) => done(() => reject(error));
    const onExit = (code: number) => done(() => reject(new Error(`embedder worker exited (${code}) while loading the model`)));
    const done = (settle: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      settle();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * Starts `threads` workers and waits until each has loaded the model; rejects (and stops
 * them) when the model cannot be loaded. Jobs queue on this thread and go to the first
 * free worker; a worker that dies fails its job and is replaced.
 */
export async function createEmbedderPool({
  modelId,
  modelDir,
  threads = 1,
  maxQueue = 8,
  maxQueryTokens = 128,
  log,
}: EmbedderPoolOptions): Promise<EmbedderPool> {
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a positive integer, got ${threads}`);
  const options: WorkerOptions = { modelId, modelDir, maxQueryTokens };
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
      slot.worker.postMessage({ id: job.id, kind: job.kind, texts: job.texts } satisfies WorkerJob);
    }
  };

  const attach = (slot: Slot) => {
    slot.worker.unref(); // a pool never keeps a process alive by itself
    slot.worker.on('message', (m: WorkerMessage) => {
      if (m.type !== 'done' && m.type !== 'failed') return;
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      slot.job = undefined;
      if (m.type === 'done') {
        embeddedCount += job.texts.length;
        job.resolve(toRows(m.data, dimension));
      } else {
        job.reject(new EmbedderUnavailableError('failed', `embedding failed: ${m.message}`));
      }
      dispatch();
    });
    slot.worker.on('error', (error) => log?.error({ err: error }, 'embedder worker failed'));
    slot.worker.on('exit', (code) => {
      slot.ready = false;
      slot.job?.reject(new EmbedderUnavailableError('failed', `embedder worker exited (${code})`));
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

  const workers = Array.from({ length: threads }, () => startWorker(options));
  let dimension: number;
  try {
    [dimension] = (await Promise.all(workers.map(whenReady))) as [number];
  } catch (error) {
    await Promise.allSettled(workers.map((w) => w.terminate()));
    throw error;
  }
  for (const worker of workers) {
    const slot: Slot = { worker, job: undefined, ready: true };
    slots.push(slot);
    attach(slot);
  }
  log?.info({ modelId, threads, maxQueue, maxQueryTokens, ms: Date.now() - started }, 'embedder threads ready');

  const submit = (kind: WorkerJob['kind'], texts: string[]): Promise<number[][]> => {
    if (closed) return Promise.reject(new EmbedderUnavailableError('failed', 'the embedder pool is closed'));
    if (queue.length >= maxQueue) {
      return Promise.reject(new EmbedderUnavailableError('busy', `every embedder thread is busy and ${queue.length} jobs wait`));
    }
    return new Promise((resolve, reject) => {
      queue.push({ id: nextId++, kind, texts, resolve, reject });
      dispatch();
    });
  };

  return {
    modelId,
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
      const [vector] = await submit('query', [text]);
      return vector!;
    },
    async embedPassages(texts) {
      return texts.length === 0 ? [] : submit('passages', texts);
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new EmbedderUnavailableError('failed', 'the embedder pool is closed'));
      await Promise.allSettled(slots.map((s) => s.worker.terminate()));
    },
  };
}

function toRows(data: Float32Array, dimension: number): number[][] {
  const rows = data.length / dimension;
  return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * dimension, (r + 1) * dimension)));
}
