// One embedder worker process: loads the model through core/embedding/embedder.ts and embeds one job at a time for the pool.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { WorkerJob, WorkerMessage, WorkerOptions } from './embedder-pool.js';

/** To the pool; a pool already gone (its process ended) gets nothing, and that is no error here. */
const post = (message: WorkerMessage) => {
  if (process.connected) process.send!(message, undefined, undefined, () => undefined);
};

/**
 * Every thread of this process at `nice`. On Linux a nice value belongs to a thread, not
 * the process, and a new thread takes its creator's: so every thread there is now
 * (V8's, libuv's), before the model library starts any (onnxruntime's pool), and once
 * more after loading, in case one was started between the two. Elsewhere the first call
 * sets the whole process. A value the OS refuses leaves the priority as it was.
 */
function lowerPriority(nice: number): void {
  if (nice === 0) return;
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // no /proc: one call covers the process
  }
  for (const tid of threads) {
    try {
      setPriority(tid, nice);
    } catch {
      // a thread that ended meanwhile
    }
  }
}

// The API went away (exit, crash, kill): nobody is left to answer.
process.on('disconnect', () => process.exit(0));

const { modelId, modelDir, maxQueryTokens, nice, pooling, queryPrefix, passagePrefix } = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
lowerPriority(nice);
try {
  // Imported only now, so that the model library's threads start at the lowered priority.
  const { createEmbedder } = await import('./embedder.js');
  const embedder = await createEmbedder({ modelId, modelDir, maxQueryTokens, pooling, queryPrefix, passagePrefix });
  lowerPriority(nice);
  process.on('message', async (job: WorkerJob) => {
    try {
      const vectors = job.kind === 'query' ? [await embedder.embedQuery(job.texts[0]!)] : await embedder.embedPassages(job.texts);
      post({ type: 'done', id: job.id, data: Float32Array.from(vectors.flat()) });
    } catch (error) {
      post({ type: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) });
    }
  });
  post({ type: 'ready', dimension: embedder.dimension });
} catch (error) {
  post({ type: 'load-failed', message: error instanceof Error ? error.message : String(error) });
}
