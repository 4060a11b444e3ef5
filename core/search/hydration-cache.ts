// What the hydration read returns, kept in process by the version of the record it was derived from, so a search that shows what it showed before needs no second round trip.
import { LRUCache } from 'lru-cache';
import { DEFAULT_HYDRATION_CACHE_MB } from '../config/load.js';
import type { Client } from '../store/opensearch.js';
import { tokenList, type TokenList } from './english.js';
import type { EpisodeMeta, PassageHit } from './types.js';

/** A cached passage and its text's tokens (undefined when the engine must find the query's words in it). */
export interface CachedPassage {
  passage: PassageHit;
  tokens: TokenList | undefined;
}

/**
 * Passages and catalog rows a search showed, each under its store (the alias it was read
 * from), its id and the `sourceHash` of the episode record it was derived from. Every
 * passage and catalog row of an episode is rewritten from the record whenever the record
 * (or the derivation) changes, and carries that record's hash; a leg hit reports the hash
 * of the passage as it is now. So an entry found under the hash a leg just reported is the
 * document as stored: nothing to invalidate, and a changed episode is a miss on its very
 * next search. Bounded by an estimate of the bytes held, least recently used out first.
 */
export interface HydrationCache {
  passage(store: string, id: string, hash: string): CachedPassage | undefined;
  episode(store: string, id: string, hash: string): EpisodeMeta | undefined;
  putPassage(store: string, hash: string, passage: PassageHit): void;
  putEpisode(store: string, hash: string, episode: EpisodeMeta): void;
  readonly hits: number;
  readonly misses: number;
  /** Estimated bytes held. */
  readonly bytes: number;
  clear(): void;
}

type Entry = CachedPassage | { episode: EpisodeMeta };

/** A rough size in bytes of what an entry holds (UTF-16 strings, 8-byte numbers, object overhead). */
function sizeOf(entry: Entry, key: string): number {
  const strings =
    'passage' in entry
      ? [entry.passage.text, entry.passage.chapterTitle, entry.passage.speaker, entry.passage.id, entry.passage.episodeId]
      : [entry.episode.title, entry.episode.summary, entry.episode.id];
  const numbers = 'passage' in entry ? (entry.passage.marks?.length ?? 0) + 2 : 1;
  const tokens = 'passage' in entry && entry.tokens ? 100 + 16 * entry.tokens.terms.length : 0;
  return 200 + 2 * key.length + strings.reduce((n, s) => n + 2 * (s?.length ?? 0), 0) + 8 * numbers + tokens;
}

/** A cache of at most about `maxBytes` (0: nothing is kept, every read goes to the store). */
export function createHydrationCache(maxBytes: number): HydrationCache {
  let hits = 0;
  let misses = 0;
  const lru = maxBytes > 0 ? new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: sizeOf }) : undefined;
  const key = (kind: 'p' | 'e', store: string, id: string, hash: string) => `${kind}\u0000${store}\u0000${id}\u0000${hash}`;
  const count = <T>(found: T | undefined): T | undefined => {
    if (found === undefined) misses++;
    else hits++;
    return found;
  };
  return {
    passage(store, id, hash) {
      const entry = lru?.get(key('p', store, id, hash));
      return count(entry && 'passage' in entry ? entry : undefined);
    },
    episode(store, id, hash) {
      const entry = lru?.get(key('e', store, id, hash));
      return count(entry && 'episode' in entry ? entry.episode : undefined);
    },
    putPassage(store, hash, passage) {
      // Matches are per query: never kept. The text is cut into terms once, here, not on every search that shows it.
      const { matches: _matches, ...kept } = passage;
      if (lru) lru.set(key('p', store, passage.id, hash), { passage: kept, tokens: tokenList(kept.text) });
    },
    putEpisode(store, hash, episode) {
      lru?.set(key('e', store, episode.id, hash), { episode });
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    get bytes() {
      return lru?.calculatedSize ?? 0;
    },
    clear() {
      lru?.clear();
    },
  };
}

const defaultCaches = new WeakMap<Client, HydrationCache>();
const noCache = createHydrationCache(0);

/** The process-wide cache of a store client, for callers that pass none (sized on first use; 0 MB: none). */
export function defaultHydrationCache(client: Client, mb = DEFAULT_HYDRATION_CACHE_MB): HydrationCache {
  if (mb <= 0) return noCache;
  let cache = defaultCaches.get(client);
  if (!cache) {
    cache = createHydrationCache(mb * 1024 * 1024);
    defaultCaches.set(client, cache);
  }
  return cache;
}
