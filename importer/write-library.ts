// Writes an imported channel into a library folder: added to what is there (other channels untouched), staged in a
// sibling folder and swapped in by rename, so a failure never leaves half a library. The same import writes the
// same bytes (fixed key order, sorted lists, no time of the run), so the indexer re-embeds nothing.
//
// The library is trusted to be the importer's own, and nothing else: a symlink or a device in it is refused (never
// written through), the stage has an unpredictable name (mkdtemp), one writer at a time (the library writer's lock
// beside the folder, which the follower and enrichment hold too), and an import never takes over another channel's
// episodes or a channel fed from another source.
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { ARCHIVED_BY, type ChannelRecord, type ChannelSourceRecord, type EpisodeRecord, type FacetRecord, type UserRecord } from '../core/contract/library-format.js';
import { PAID_PLAN } from '../core/contract/plans.js';
import { EPISODES_DIR, LIBRARY_FILES, episodePath, facetFile, isSafeFileName } from '../core/library/layout.js';
import { episodeFileRecords, readRecordArray, readText } from '../core/library/reader.js';
import { LibraryBusyError, libraryJson as json, withLibraryLock, writeLibraryFile } from '../core/library/writer.js';
import type { ImportedChannel } from './model.js';

/** Why a library write was refused; `code` is stable, the message names the file and what to do. */
export class LibraryWriteError extends Error {
  constructor(
    readonly code: 'not_a_regular_file' | 'library_busy' | 'unsafe_episode_id' | 'other_channel_episode' | 'other_source',
    message: string,
  ) {
    super(message);
    this.name = 'LibraryWriteError';
  }
}

/** Set on an episode `--archive-missing` archived: it is published again when its item comes back to the source. */
export const ARCHIVED_BY_IMPORT = ARCHIVED_BY.import;

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A file's text as it stands, or undefined when there is none (compared with what would be written). */
const textOf = (path: string): Promise<string | undefined> =>
  readText(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });

/**
 * Every entry under `dir` is a folder or a regular file; the first that is not (a symlink, a socket, a device)
 * is refused, named by its place in the library (`shownAs`).
 */
async function refuseOddFiles(dir: string, shownAs: string): Promise<void> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() || entry.isDirectory()) continue;
    const where = join(shownAs, relative(dir, join(entry.parentPath, entry.name)));
    const what = entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
    throw new LibraryWriteError('not_a_regular_file', `${where}: ${what} in the library: refused (the importer never writes through one; remove it and import again)`);
  }
}

export interface WriteSummary {
  created: number;
  updated: number;
  unchanged: number;
  /** Episodes of the channel the source no longer has, archived (only when asked for). */
  archived: number;
}

export interface WriteOptions {
  /** Archive the channel's episodes the import does not hold (a source that keeps its whole history). */
  archiveMissing?: boolean;
  /** Publish again episodes the library holds unpublished (pending, failed, archived by hand); off, they keep their status. */
  republish?: boolean;
  /** Let this source take over a channel recorded as fed from another one. */
  replaceSource?: boolean;
  /** Give up waiting for another import's lock on the library after this long. */
  lockTimeoutMs?: number;
}

/**
 * Marks `archived` every episode of the imported channel that the import does not hold: the pages, the API and
 * search stop showing it, and nothing is deleted. The reason is recorded, so an import with the item back
 * publishes it again (and only then).
 */
async function archiveMissing(stage: string, imported: ImportedChannel): Promise<number> {
  const kept = new Set(imported.episodes.map((e) => e.id));
  let archived = 0;
  for await (const { path, record } of episodeFileRecords(stage)) {
    if (kept.has(record.id) || record.channelId !== imported.channel.id || record.status === 'archived') continue;
    await writeLibraryFile(path, json({ ...record, status: 'archived', archivedBy: ARCHIVED_BY_IMPORT }));
    archived++;
  }
  return archived;
}

/**
 * The status an imported episode is written with: a record the library holds unpublished keeps its status (and
 * error), unless `--archive-missing` archived it and its item is back, or `republish` says so.
 */
export function keptStatus(imported: EpisodeRecord, old: EpisodeRecord | undefined, { republish = false } = {}): EpisodeRecord {
  if (!old || old.status === 'published' || republish) return imported;
  if (old.status === 'archived' && old.archivedBy === ARCHIVED_BY_IMPORT) return imported;
  return { ...imported, status: old.status, ...(old.error !== undefined ? { error: old.error } : {}), ...(old.archivedBy ? { archivedBy: old.archivedBy } : {}) };
}

const describeSource = (s: ChannelSourceRecord) => `${s.kind} ${s.id}`;

/**
 * The source the channel is written with, or a refusal: a channel recorded as fed from another source is not
 * taken over unless `replaceSource`; one that records none (written before sources were recorded) is adopted
 * when it has no episodes yet or holds one this import makes (its ids are hashed from the same source).
 */
function channelSource(
  before: ChannelRecord | undefined,
  imported: ImportedChannel,
  theirs: readonly EpisodeRecord[],
  { replaceSource = false }: { replaceSource?: boolean },
): ChannelSourceRecord | undefined {
  const next = imported.channel.source;
  if (!before || !next || replaceSource) return next ?? before?.source;
  const refuse = (why: string) =>
    new LibraryWriteError('other_source', `channel ${before.id} ${why}; this import is ${describeSource(next)}: refused (pass --replace-source to feed it from this source)`);
  if (before.source) {
    if (before.source.kind === next.kind && before.source.id === next.id) return before.source;
    throw refuse(`is fed from ${describeSource(before.source)}`);
  }
  const ours = new Set(imported.episodes.map((e) => e.id));
  if (theirs.length === 0 || theirs.some((e) => ours.has(e.id))) return next;
  throw refuse('exists and records no source');
}

/** The library's episodes of one channel. */
async function channelEpisodes(stage: string, channelId: string): Promise<EpisodeRecord[]> {
  const out: EpisodeRecord[] = [];
  for await (const { record } of episodeFileRecords(stage)) if (record.channelId === channelId) out.push(record);
  return out;
}

/** Writes `imported` into the staged copy of the library. */
async function writeStage(stage: string, imported: ImportedChannel, ownerId: string, opts: WriteOptions): Promise<WriteSummary> {
  const users = await readRecordArray<UserRecord>(join(stage, LIBRARY_FILES.users));
  if (!users.some((u) => u.id === ownerId)) users.push({ id: ownerId, name: ownerId, plan: PAID_PLAN });

  const channels = await readRecordArray<ChannelRecord>(join(stage, LIBRARY_FILES.channels));
  const before = channels.find((c) => c.id === imported.channel.id);
  const source = channelSource(before, imported, before ? await channelEpisodes(stage, imported.channel.id) : [], opts);
  const channel: ChannelRecord = {
    ...before,
    id: imported.channel.id,
    slug: imported.channel.slug,
    title: imported.channel.title,
    providerType: imported.channel.providerType,
    ownerId: before?.ownerId ?? ownerId,
    memberIds: before?.memberIds ?? [ownerId],
    ...(source ? { source } : {}),
  };

  // Every episode is checked before anything is written: a refusal leaves the stage to be thrown away whole. Each file
  // is written by the library writer (a new temporary renamed over the name): never through a symlink that appeared.
  const writes: { path: string; text: string; old: string | undefined }[] = [];
  for (const episode of imported.episodes) {
    // The file is named by the id: an id that is no plain file name is refused, whatever made it.
    if (!isSafeFileName(episode.id)) throw new LibraryWriteError('unsafe_episode_id', `episode id ${JSON.stringify(episode.id)} is not a safe file name`);
    const path = episodePath(stage, episode.id);
    const old = await textOf(path);
    const oldRecord = old === undefined ? undefined : (JSON.parse(old) as EpisodeRecord);
    if (oldRecord && oldRecord.channelId !== imported.channel.id) {
      throw new LibraryWriteError(
        'other_channel_episode',
        `episodes/${episode.id}.json belongs to channel ${oldRecord.channelId}, not ${imported.channel.id}: refused (an import never overwrites another channel's episode)`,
      );
    }
    writes.push({ path, text: json(keptStatus(episode, oldRecord, opts)), old });
  }

  await writeLibraryFile(join(stage, LIBRARY_FILES.users), json(users.sort(byId)));
  await writeLibraryFile(join(stage, LIBRARY_FILES.channels), json([...channels.filter((c) => c.id !== channel.id), channel].sort(byId)));
  for (const [file, added] of [
    [facetFile('person'), imported.people],
    [facetFile('topic'), imported.topics],
  ] as const) {
    if (added.length === 0 && !(await textOf(join(stage, file)))) continue;
    const facets = new Map((await readRecordArray<FacetRecord>(join(stage, file))).map((f) => [f.id, f]));
    for (const f of added) if (!facets.has(f.id)) facets.set(f.id, f);
    await writeLibraryFile(join(stage, file), json([...facets.values()].sort(byId)));
  }
  const summary: WriteSummary = { created: 0, updated: 0, unchanged: 0, archived: 0 };
  for (const { path, text, old } of writes) {
    if (old === text) summary.unchanged++;
    else {
      summary[old === undefined ? 'created' : 'updated']++;
      await writeLibraryFile(path, text);
    }
  }
  if (opts.archiveMissing) summary.archived = await archiveMissing(stage, imported);
  return summary;
}

/**
 * Adds or updates `imported` in the library at `outDir` (created if missing). The owner is created as a paid user
 * when the library lacks it; an existing channel keeps its owner, members and custom domain. Holds the library's
 * lock (`.<name>.lock` beside it) while it writes; throws a LibraryWriteError, leaving the library as it was, for
 * a symlink or odd file in it, another channel's episode, or a channel fed from another source.
 */
export async function writeLibrary(outDir: string, imported: ImportedChannel, ownerId: string, opts: WriteOptions = {}): Promise<WriteSummary> {
  const parent = dirname(outDir);
  const write = async (): Promise<WriteSummary> => {
    const root = await lstat(outDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (root && !root.isDirectory()) throw new LibraryWriteError('not_a_regular_file', `${outDir}: not a folder (a symbolic link or a file): refused`);
    // Beside the library, so the swap is one rename on one file system; its name is not guessable.
    const stage = await mkdtemp(join(parent, `.${basename(outDir)}.import-`));
    try {
      if (root) {
        await cp(outDir, stage, { recursive: true, verbatimSymlinks: true });
        await chmod(stage, root.mode & 0o7777);
      } else await chmod(stage, 0o755);
      // Checked on the copy that will be swapped in: what is refused is what would have been written through.
      await refuseOddFiles(stage, outDir);
      await mkdir(join(stage, EPISODES_DIR), { recursive: true });
      const summary = await writeStage(stage, imported, ownerId, opts);
      // The swap: the old library moves aside, the staged one takes its name, the old one goes.
      const aside = `${stage}.old`;
      if (root) await rename(outDir, aside);
      await rename(stage, outDir).catch(async (err: unknown) => {
        // The old library takes its name back: a failed swap leaves the library as it was, not beside itself.
        if (root) await rename(aside, outDir).catch(() => undefined);
        throw err;
      });
      if (root) await rm(aside, { recursive: true, force: true });
      return summary;
    } catch (err) {
      await rm(stage, { recursive: true, force: true });
      throw err;
    }
  };
  // The whole copy-write-swap holds the lock: a follow poll or an enrichment run writing in between would be lost with the old folder.
  return withLibraryLock(outDir, write, { waitMs: opts.lockTimeoutMs ?? 120_000 }).catch((err: unknown) => {
    if (err instanceof LibraryBusyError)
      throw new LibraryWriteError('library_busy', `${outDir}: another import, follow poll or enrichment run is writing this library; try again when it has finished`);
    throw err;
  });
}
