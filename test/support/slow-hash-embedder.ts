// The hash embedder taking 400 ms a batch: for the worker drills that must catch a job in flight (a kill mid-episode).
// The plain hash embedder finishes an episode in milliseconds, so on a busy machine the job could complete between
// the test seeing it active and the SIGKILL landing.
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Embedder } from '../../src/embedder.js';
import { createHashEmbedder } from './hash-embedder.js';

export const SLOW_HASH_EMBEDDER_MODULE = fileURLToPath(import.meta.url);
export const SLOW_BATCH_MS = 400;

export function createEmbedder(): Embedder {
  const inner = createHashEmbedder();
  return {
    modelId: inner.modelId,
    dimension: inner.dimension,
    get embeddedCount() {
      return inner.embeddedCount;
    },
    embedPassages: async (texts) => {
      await sleep(SLOW_BATCH_MS);
      return inner.embedPassages(texts);
    },
    embedQuery: (text) => inner.embedQuery(text),
  };
}
