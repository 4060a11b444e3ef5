// The test double of core/embedding/embedder.ts: deterministic vectors without a model, for unit tests, in-process indexing, and
// the CLIs' tests through the embeddings server that serves them (hash-embeddings-server.ts).
import type { Embedder } from '../../../core/embedding/embedder.js';

/**
 * A deterministic bag-of-hashed-words embedder with no model behind it.
 * Texts sharing words get similar vectors, nothing more; it knows no synonyms, so it
 * must never serve real traffic. Queries get no prefix, so a query equals the passage
 * with the same text. Vectors are unit length; a text without words maps to a fixed
 * unit vector.
 */
export function createHashEmbedder(dimension = 384): Embedder {
  let embeddedCount = 0;
  const embed = (text: string): number[] => {
    embeddedCount++;
    const vector = new Array<number>(dimension).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const h = fnv1a(word);
      // The top bit picks the sign so that unrelated words cancel out rather than pile up.
      vector[h % dimension]! += h & 0x80000000 ? -1 : 1;
    }
    const norm = Math.hypot(...vector);
    if (norm === 0) {
      vector[0] = 1;
      return vector;
    }
    return vector.map((x) => x / norm);
  };
  return {
    modelId: `test/hash-${dimension}`,
    dimension,
    get embeddedCount() {
      return embeddedCount;
    },
    embedPassages: async (texts) => texts.map(embed),
    embedQuery: async (text) => embed(text),
  };
}

/** 32-bit FNV-1a over UTF-16 code units: tiny, stable across runs and platforms. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
