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
  /**
   * As {@link embed}, but a vector found in the cache comes back at once, the index guard's check of it (an embedder's
   * `confirmIndex`) still running as `confirmed`: its caller uses what the vector finds only once that resolves, and
   * drops it when it rejects (the index behind the alias is now another embedder's). A vector embedded now was checked
   * by the guard before the model ran: no `confirmed`.
   */
  embedEarly(embedder: Embedder, query: string, scope?: string): Promise<{ vector: number[]; confirmed?: Promise<void> }>;
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
  const embedEarly: QueryVectorCache['embedEarly'] = async (embedder, query, scope = '') => {
    const text = normaliseQuery(query);
    if (maxEntries <= 0) {
      misses++;
      return { vector: await embedder.embedQuery(text) };
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
      // A stored vector must not answer from an index another embedder built since (after a reindex's swap): the guard
      // checks, as before a model call, beside the search that uses it (see runSearch).
      const confirmed = embedder.confirmIndex?.();
      // Handled here too, so a refusal nobody awaits (the search failed first) is not an unhandled rejection.
      confirmed?.catch(() => undefined);
      return { vector: await cached, ...(confirmed ? { confirmed } : {}) };
    }
    misses++;
    const pending = embedder.embedQuery(text);
    entries.set(key, pending);
    const own = entries;
    pending.catch(() => {
      if (own.peek(key) === pending) own.delete(key);
    });
    return { vector: await pending };
  };
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
    async embed(embedder, query, scope) {
      const { vector, confirmed } = await embedEarly(embedder, query, scope);
      if (confirmed) await confirmed;
      return vector;
    },
    embedEarly,
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
