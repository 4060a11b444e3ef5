// Where a followed source lives: `<libraryDir>/<slug>/follow.json` beside the channel's library (users.json,
// channels.json, episodes/), so the source and its poll state survive any restart of Redis or of the processes.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { withLibraryLock, writeLibraryJson } from '../../importer/library-writer.js';

/** Where a transcript may be found for an item: a `podcast:transcript` of the feed. */
export interface TranscriptSource {
  url: string;
  type?: string | undefined;
  language?: string | undefined;
  rel?: string | undefined;
}

/** What the pipeline needs to process one item, kept with the source so a lost job can be rebuilt. */
export interface ItemSource {
  /** The identity key (guid, else enclosure URL without query, else link). */
  key: string;
  enclosureUrl: string | null;
  transcripts: TranscriptSource[];
  chaptersUrl: string | null;
  /** HTML show notes, for chapters written as timestamps. */
  notes: string | null;
  /** The item's pubDate (ISO): what decides whether it is a recent episode or backfill (absent in states written before). */
  publishedAt?: string | undefined;
  /** Digest of enclosure and transcript URLs: a change re-processes the episode. */
  digest: string;
  /** The source version last processed, and how it ended; absent while its processing is still to do. */
  processed?: { digest: string; outcome: 'published' | 'failed' };
  /** How many processing jobs started on this source version (a backstop against work that never records an outcome). */
  starts?: { digest: string; count: number };
}

/** The processing starts recorded for `digest` (0 for another version). */
export const startsOf = (source: Pick<ItemSource, 'starts'>, digest: string): number => (source.starts?.digest === digest ? source.starts.count : 0);

/** The durable record of a followed source and its poll state. */
export interface FollowState {
  version: 1;
  slug: string;
  channelId: string;
  kind: 'feed' | 'ytdlp';
  /** The feed URL, or the yt-dlp folder (absolute). */
  source: string;
  ownerId: string;
  archiveMissing: boolean;
  /**
   * The feed's identity its episode ids are made from (podcast:guid, else `<link>`, else title), pinned at the first
   * poll that read it, so a feed that changes its `<link>` keeps its episodes. Absent in states written before: the
   * next poll pins what the feed says then, which is what the ids were made from until then.
   */
  feedKey?: string;
  createdAt: string;
  stoppedAt: string | null;
  etag: string | null;
  lastModified: string | null;
  bodyHash: string | null;
  lastPollAt: string | null;
  /** `200`, `304`, `unchanged` (a 200 with the same body), or `error`. */
  lastOutcome: string | null;
  lastStatus: number | null;
  lastError: string | null;
  itemsSeen: number;
  errors: number;
  consecutiveFailures: number;
  nextPollAt: string | null;
  items: Record<string, ItemSource>;
}

/** The library folder of a channel. */
export const channelDir = (libraryDir: string, slug: string): string => resolve(libraryDir, slug);
const statePath = (libraryDir: string, slug: string) => join(channelDir(libraryDir, slug), 'follow.json');

/** JSON of a file, or undefined when it does not exist. */
export async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function readState(libraryDir: string, slug: string): Promise<FollowState | undefined> {
  return readJson<FollowState>(statePath(libraryDir, slug));
}

export async function writeState(libraryDir: string, state: FollowState): Promise<void> {
  await writeLibraryJson(statePath(libraryDir, state.slug), state);
}

/** Every followed source under `libraryDir` (stopped ones included), by slug. */
export async function listStates(libraryDir: string): Promise<FollowState[]> {
  const names = await readdir(resolve(libraryDir)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const states: FollowState[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const state = await readState(libraryDir, name).catch(() => undefined);
    if (state) states.push(state);
  }
  return states;
}

/**
 * Runs `fn` holding the channel's lock (the library writer's lock of its folder, `.<slug>.lock` beside it, across
 * processes): every read-modify-write of the channel's files (a poll, a status change) goes through it, and an import
 * or an enrichment run of the same folder holds the same lock, so none overwrites another. A holder that died leaves a
 * stale lock, taken over after `staleMs`.
 */
export async function withChannelLock<T>(libraryDir: string, slug: string, fn: () => Promise<T>, { staleMs = 20_000 }: { staleMs?: number } = {}): Promise<T> {
  // The channel's folder need not exist yet (a first follow; an unknown slug must not create it).
  return withLibraryLock(channelDir(libraryDir, slug), fn, { staleMs });
}
