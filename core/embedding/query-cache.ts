// An LRU of query vectors per channel, so a repeated query does not pay for the model again and no channel can time another's searches.
import { LRUCache } from 'lru-cache';
import type { Embedder } from './embedder.js';

/** Query vectors by scope (the channel), model and normalised query text, least recently used evicted first. */
export interface QueryVectorCache {
  /**
   * The vector of `query`: from the cache, from an embedding already in flight, or
   * embedded now. Only calls with the same `scope` share entries: a search of one
   * channel never finds (and so can never time) a vector another channel's search left.
   */
  embed(embedder: Embedder, query: string, scope?: string): Promise<number[]>;
  /** Entries over every scope. */
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
  clear(): void;
}

/** Whitespace is not meaning: `"  a   b "` and `"a b"` share a vector. Case is kept (the tokenizer decides). */
export function normaliseQuery(query: string): string {
  return query.trim().replace(/\s+/g, ' ');
}

/** Default number of scopes (channels) that keep a cache; see {@link createQueryVectorCache}. */
export const DEFAULT_MAX_SCOPES = 64;

/**
 * Creates a cache of at most `maxEntries` vectors per scope (0 disables caching), for at
 * most `maxScopes` scopes. Each scope is its own LRU, so one channel's searches never
 * evict another's entries; past `maxScopes`, the whole least recently searched scope is
 * dropped (which tells a caller at most that many other channels searched, nothing about
 * what). Concurrent misses on the same query in the same scope share one embedding; a
 * failed embedding is not cached.
 */
export function createQueryVectorCache(maxEntries: number, { maxScopes = DEFAULT_MAX_SCOPES }: { maxScopes?: number } = {}): QueryVectorCache {
  const scopes = new LRUCache<string, LRUCache<string, Promise<number[]>>>({ max: Math.max(1, maxScopes) });
  let hits = 0;
  let misses = 0;
  return {
    get size() {
      let n = 0;
      for (const entries of scopes.values()) n += entries.size;
      return n;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    clear() {
      scopes.clear();
    },
    embed(embedder, query, scope = '') {
      const text = normaliseQuery(query);
      if (maxEntries <= 0) {
        misses++;
        return embedder.embedQuery(text);
      }
      let entries = scopes.get(scope);
      if (!entries) {
        entries = new LRUCache({ max: maxEntries });
        scopes.set(scope, entries);
      }
      const key = `${embedder.modelId}\u0000${text}`;
      const cached = entries.get(key);
      if (cached) {
        hits++;
        // A stored vector must not meet an index another embedder built since (after a reindex's swap): the guard checks, as before a model call.
        return embedder.confirmIndex ? embedder.confirmIndex().then(() => cached) : cached;
      }
      misses++;
      const pending = embedder.embedQuery(text);
      entries.set(key, pending);
      const own = entries;
      pending.catch(() => {
        if (own.peek(key) === pending) own.delete(key);
      });
      return pending;
    },
  };
}

const defaultCaches = new WeakMap<Embedder, QueryVectorCache>();

/**
 * The process-wide cache of an embedder, for callers that pass none: caching must not
 * depend on every caller remembering to wire one up.
 */
export function defaultQueryCache(embedder: Embedder, maxEntries: number, maxScopes = DEFAULT_MAX_SCOPES): QueryVectorCache {
  let cache = defaultCaches.get(embedder);
  if (!cache) {
    cache = createQueryVectorCache(maxEntries, { maxScopes });
    defaultCaches.set(embedder, cache);
  }
  return cache;
}
