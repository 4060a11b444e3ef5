// The one writer of library folders (decision 25: the folder is the source of truth, the index is derived from it).
// The importer, the follower and enrichment all write through it: each file whole or not at all (a temporary sibling
// renamed over it), JSON in one format (the same value always gives the same bytes), and one lock per folder
// (`.<name>.lock` beside it, across processes), so an import, a follow poll and an enrichment run never interleave
// their writes to one channel's folder. The API never writes a library.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import lockfile from 'proper-lockfile';
import type { EpisodeRecord } from '../contract/library-format.js';
import { CheckedEpisode } from './checks.js';
import { episodePath } from './layout.js';
import type { EpisodeFile } from './reader.js';

const gzipAsync = promisify(gzip);

/** A library file's JSON: two-space indentation and a final newline, keys in the order the value holds them. */
export const libraryJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Writes a library file whole or not at all, its folder made when missing: a temporary sibling with an unguessable
 * name is created as a new file (`wx`: O_EXCL never follows a symlink) and renamed over the path (a rename replaces
 * a symlink there, it never writes through one). A reader sees the old bytes or the new, never half of them.
 */
export async function writeLibraryFile(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** Writes `value` as a library JSON file (libraryJson), whole or not at all. */
export const writeLibraryJson = (path: string, value: unknown): Promise<void> => writeLibraryFile(path, libraryJson(value));

/** An episode file written back whole (readEpisodeFile read it): gzip's header carries no time from Node's zlib, so the same text gives the same bytes. */
export async function writeEpisodeFile(file: EpisodeFile): Promise<void> {
  const text = file.jsonl ? `${file.lines.join('\n')}\n` : file.lines[0]!;
  await writeLibraryFile(file.path, file.gz ? await gzipAsync(Buffer.from(text, 'utf8'), { level: 9 }) : text);
}

/** A record re-serialised the way its file holds records (a line of `.jsonl`, or a whole `.json` file). */
export const serialiseIn = (file: Pick<EpisodeFile, 'jsonl'>, record: EpisodeRecord): string => (file.jsonl ? JSON.stringify(record) : libraryJson(record));

/** The record is refused: it fails the format's checks, so writing it would leave the library holding what ingest refuses. */
export class RecordRefusedError extends Error {
  override name = 'RecordRefusedError';
  readonly code = 'record_refused';
}

/**
 * Writes one episode to its own file (`episodes/<id>.json`), checked first: a record that fails the format's checks
 * (a cap of EPISODE_LIMITS, times that run backwards) throws RecordRefusedError and nothing is written, so no write
 * ever has to be rolled back. A {@link CheckedEpisode} was checked when it was made and is written as it is.
 */
export async function writeEpisodeRecord(dir: string, record: EpisodeRecord | CheckedEpisode): Promise<void> {
  let episode = record;
  if (!(episode instanceof CheckedEpisode)) {
    const checked = CheckedEpisode.check(episode);
    if (!checked.ok) throw new RecordRefusedError(`episode ${episode.id}: ${checked.reason}`);
    episode = checked.episode;
  }
  await writeLibraryJson(episodePath(dir, episode.record.id), episode.record);
}

/** The lock of a library folder: `.<name>.lock` beside it, so the folder itself may be swapped whole (the importer). */
export function lockPathOf(folder: string): string {
  const abs = resolve(folder);
  return join(dirname(abs), `.${basename(abs)}.lock`);
}

/** Another writer held the folder's lock for longer than the caller would wait. */
export class LibraryBusyError extends Error {
  override name = 'LibraryBusyError';
  readonly code = 'library_busy';
}

/** How many tries fill `waitMs` when waits start at 50 ms and double up to 500 ms: a short hold (one episode written) costs little, a long one few tries. */
function retriesFor(waitMs: number): number {
  let tries = 0;
  for (let waited = 0; waited < waitMs; tries++) waited += Math.min(500, 50 * 2 ** tries);
  return Math.max(1, tries);
}

export interface LibraryLockOptions {
  /** Give up waiting for another writer after about this long (5 min: a poll that indexes a slice of a large feed). */
  waitMs?: number;
  /** A lock not refreshed for this long is taken over (its holder died); the holder refreshes it every half of it. */
  staleMs?: number;
}

/**
 * Runs `fn` holding the library folder's lock (across processes; the folder need not exist yet). Every write of a
 * library folder happens inside it: the importer's staged copy and swap, a follow poll or processing job, enrichment's
 * write-back. Not re-entrant: code that holds it calls the write functions above directly. Throws LibraryBusyError
 * when the lock stays held past `waitMs`.
 */
export async function withLibraryLock<T>(folder: string, fn: () => Promise<T>, { waitMs = 300_000, staleMs = 20_000 }: LibraryLockOptions = {}): Promise<T> {
  const abs = resolve(folder);
  await mkdir(dirname(abs), { recursive: true });
  const release = await lockfile
    .lock(abs, { realpath: false, lockfilePath: lockPathOf(abs), stale: staleMs, retries: { retries: retriesFor(waitMs), factor: 2, minTimeout: 50, maxTimeout: 500 } })
    .catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ELOCKED') throw err;
      throw new LibraryBusyError(`${abs}: another writer (an import, a follow poll, an enrichment run) holds the folder's lock; try again when it has finished`, {
        cause: err,
      });
    });
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
