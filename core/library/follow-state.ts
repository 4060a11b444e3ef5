// A followed source and its poll state, kept in the channel's folder (`<libraryDir>/<slug>/follow.json`, beside
// users.json, channels.json and episodes/), so the source survives any restart of Redis or of the processes. The file
// is checked against its schema on read: a state that fails it is refused with a sentence naming the file and the
// field, never half-used.
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../contract/library-format.js';
import { compileCheck } from './checks.js';
import { channelDir, LIBRARY_FILES } from './layout.js';
import { readJsonFile } from './reader.js';
import { withLibraryLock, writeLibraryJson } from './writer.js';

const Iso = Type.String({ minLength: 1 });
const Count = Type.Integer({ minimum: 0 });

/** Where a transcript may be found for an item: a `podcast:transcript` of the feed. */
export const TranscriptSourceSchema = Type.Object({
  url: Type.String({ minLength: 1 }),
  type: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  rel: Type.Optional(Type.String()),
});
export type TranscriptSource = { url: string; type?: string | undefined; language?: string | undefined; rel?: string | undefined };

/** What the pipeline needs to process one item, kept with the source so a lost job can be rebuilt. */
export const ItemSourceSchema = Type.Object({
  /** The identity key (importer/item-identity.ts: guid, else enclosure URL minus rotating parameters, else link). */
  key: Type.String({ minLength: 1 }),
  enclosureUrl: Nullable(Type.String()),
  transcripts: Type.Array(TranscriptSourceSchema),
  chaptersUrl: Nullable(Type.String()),
  /** HTML show notes, for chapters written as timestamps. */
  notes: Nullable(Type.String()),
  /** The item's pubDate (ISO): what decides whether it is a recent episode or backfill (absent in states written before). */
  publishedAt: Type.Optional(Type.String()),
  /** Digest of enclosure and transcript URLs: a change re-processes the episode. */
  digest: Type.String({ minLength: 1 }),
  /** The source version last processed, and how it ended; absent while its processing is still to do. */
  processed: Type.Optional(Type.Object({ digest: Type.String(), outcome: StringEnum(['published', 'failed'] as const) })),
  /** How many processing jobs started on this source version (a backstop against work that never records an outcome). */
  starts: Type.Optional(Type.Object({ digest: Type.String(), count: Count })),
});
export type ItemSource = Omit<Static<typeof ItemSourceSchema>, 'transcripts' | 'publishedAt'> & { transcripts: TranscriptSource[]; publishedAt?: string | undefined };

/** The durable record of a followed source and its poll state. */
export const FollowStateSchema = Type.Object({
  version: Type.Literal(1),
  slug: Type.String({ pattern: '^[a-z0-9-]{1,63}$' }),
  channelId: Type.String({ minLength: 1 }),
  kind: StringEnum(['feed', 'ytdlp'] as const),
  /** The feed URL, or the yt-dlp folder (absolute). */
  source: Type.String({ minLength: 1 }),
  ownerId: Type.String({ minLength: 1 }),
  archiveMissing: Type.Boolean(),
  /**
   * The feed's identity its episode ids are made from (podcast:guid, else `<link>`, else title), pinned at the first
   * poll that read it, so a feed that changes its `<link>` keeps its episodes. Absent in states written before: the
   * next poll pins what the feed says then, which is what the ids were made from until then.
   */
  feedKey: Type.Optional(Type.String()),
  createdAt: Iso,
  stoppedAt: Nullable(Type.String()),
  etag: Nullable(Type.String()),
  lastModified: Nullable(Type.String()),
  bodyHash: Nullable(Type.String()),
  lastPollAt: Nullable(Type.String()),
  /** `200`, `304`, `unchanged` (a 200 with the same body), or `error`. */
  lastOutcome: Nullable(Type.String()),
  lastStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  itemsSeen: Count,
  errors: Count,
  consecutiveFailures: Count,
  nextPollAt: Nullable(Type.String()),
  items: Type.Record(Type.String(), ItemSourceSchema),
});
export type FollowState = Omit<Static<typeof FollowStateSchema>, 'items' | 'feedKey'> & { feedKey?: string; items: Record<string, ItemSource> };

const checkState = compileCheck<FollowState>(FollowStateSchema);

/** The processing starts recorded for `digest` (0 for another version). */
export const startsOf = (source: Pick<ItemSource, 'starts'>, digest: string): number => (source.starts?.digest === digest ? source.starts.count : 0);

const statePath = (libraryDir: string, slug: string) => join(channelDir(libraryDir, slug), LIBRARY_FILES.follow);

/** A follow state that fails its schema (or is no JSON): the message names the file and what is wrong. */
export class FollowStateError extends Error {
  override name = 'FollowStateError';
  readonly code = 'follow_state_invalid';
}

/** The followed source of `slug`, checked; undefined when the channel is not followed; a broken file throws FollowStateError. */
export async function readState(libraryDir: string, slug: string): Promise<FollowState | undefined> {
  const path = statePath(libraryDir, slug);
  const data = await readJsonFile<unknown>(path).catch((err: Error) => {
    throw new FollowStateError(`${path}: ${err.message.replace(`${path}: `, '')}`, { cause: err });
  });
  if (data === undefined) return undefined;
  const checked = checkState(data);
  if (!checked.ok) throw new FollowStateError(`${path}: ${checked.reason}: the follow state is refused (restore it from a backup, or follow the feed again)`);
  return checked.value;
}

/** The state written whole, checked first (a state the next read would refuse is never written). */
export async function writeState(libraryDir: string, state: FollowState): Promise<void> {
  const checked = checkState(state);
  if (!checked.ok) throw new FollowStateError(`${statePath(libraryDir, state.slug)}: ${checked.reason}: not written`);
  await writeLibraryJson(statePath(libraryDir, state.slug), state);
}

/** Every followed source under `libraryDir` (stopped ones included), by slug; a broken state is reported to `onBroken` and left out. */
export async function listStates(libraryDir: string, { onBroken }: { onBroken?: (err: FollowStateError) => void } = {}): Promise<FollowState[]> {
  const names = await readdir(resolve(libraryDir)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const states: FollowState[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const state = await readState(libraryDir, name).catch((err: unknown) => {
      if (err instanceof FollowStateError) onBroken?.(err);
      return undefined;
    });
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
