// One embedding call at a time for the episodes in flight, the earliest started first (direct loading and the worker).
import PQueue from 'p-queue';
import type { PassageEmbedder } from './load-episode.js';

/**
 * The embedder behind a queue that runs one call at a time, the earliest episode's first:
 * episodes in flight never embed side by side (they would only share the same cores), and
 * the episode whose writes come next is never held up by a later one. Call the result with
 * the episode's start order (0, 1, 2, … as episodes start) to get that episode's embedder.
 */
export function embedInTurns(embedder: PassageEmbedder): (order: number) => PassageEmbedder {
  const turns = new PQueue({ concurrency: 1 });
  return (order) => ({
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    // p-queue runs the highest priority first; equal priorities keep their order.
    embedPassages: (texts) => turns.add(() => embedder.embedPassages(texts), { priority: -order }),
  });
}
