// An LRU of query vectors, so a repeated query does not pay for the model again.
import type { Embedder } from '../embedder.js';

/** Query vectors by model and normalised query text, least recently used evicted first. */
export interface QueryVectorCache {
  /** The vector of `query`: from the cache, from an embedding already in flight, or embedded now. */
  embed(embedder: Embedder, query: string): Promise<number[]>;
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
  clear(): void;
}

/** Whitespace is not meaning: `"  a   b "` and `"a b"` share a vector. Case is kept (the tokenizer decides). */
export function normaliseQuery(query: string): string {
  return query.trim().replace(/\s+/g, ' ');
}

/**
 * Creates a cache of at most `maxEntries` vectors (0 disables caching). Concurrent
 * misses on the same query share one embedding; a failed embedding is not cached.
 */
export function createQueryVectorCache(maxEntries: number): QueryVectorCache {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recently used.
  const entries = new Map<string, Promise<number[]>>();
  let hits = 0;
  let misses = 0;
  return {
    get size() {
      return entries.size;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    clear() {
      entries.clear();
    },
    embed(embedder, query) {
      const text = normaliseQuery(query);
      if (maxEntries <= 0) {
        misses++;
        return embedder.embedQuery(text);
      }
      const key = `${embedder.modelId}\u0000${text}`;
      const cached = entries.get(key);
      if (cached) {
        hits++;
        entries.delete(key);
        entries.set(key, cached);
        return cached;
      }
      misses++;
      const pending = embedder.embedQuery(text);
      entries.set(key, pending);
      pending.catch(() => {
        if (entries.get(key) === pending) entries.delete(key);
      });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return pending;
    },
  };
}

const defaultCaches = new WeakMap<Embedder, QueryVectorCache>();

/**
 * The process-wide cache of an embedder, for callers that pass none: caching must not
 * depend on every caller remembering to wire one up.
 */
export function defaultQueryCache(embedder: Embedder, maxEntries: number): QueryVectorCache {
  let cache = defaultCaches.get(embedder);
  if (!cache) {
    cache = createQueryVectorCache(maxEntries);
    defaultCaches.set(embedder, cache);
  }
  return cache;
}
