// One worker thread of the embedder pool: loads the model through src/embedder.ts and embeds one job at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { createEmbedder } from './embedder.js';
import type { WorkerJob, WorkerMessage, WorkerOptions } from './embedder-pool.js';

const port = parentPort!;
const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const { modelId, modelDir, maxQueryTokens } = workerData as WorkerOptions;

try {
  const embedder = await createEmbedder({ modelId, modelDir, maxQueryTokens });
  port.on('message', async (job: WorkerJob) => {
    try {
      const vectors = job.kind === 'query' ? [await embedder.embedQuery(job.texts[0]!)] : await embedder.embedPassages(job.texts);
      // One flat Float32Array, transferred rather than copied.
      const data = Float32Array.from(vectors.flat());
      post({ type: 'done', id: job.id, data }, [data.buffer as ArrayBuffer]);
    } catch (error) {
      post({ type: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) });
    }
  });
  post({ type: 'ready', dimension: embedder.dimension });
} catch (error) {
  post({ type: 'load-failed', message: error instanceof Error ? error.message : String(error) });
}
