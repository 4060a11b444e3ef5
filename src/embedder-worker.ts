// One embedder worker process: loads the model through src/embedder.ts and embeds one job at a time for the pool.
import { createEmbedder } from './embedder.js';
import type { WorkerJob, WorkerMessage, WorkerOptions } from './embedder-pool.js';

/** To the pool; a pool already gone (its process ended) gets nothing, and that is no error here. */
const post = (message: WorkerMessage) => {
  if (process.connected) process.send!(message, undefined, undefined, () => undefined);
};
const { modelId, modelDir, maxQueryTokens } = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;

// The API went away (exit, crash, kill): nobody is left to answer.
process.on('disconnect', () => process.exit(0));

try {
  const embedder = await createEmbedder({ modelId, modelDir, maxQueryTokens });
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
