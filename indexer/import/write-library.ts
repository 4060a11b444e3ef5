// Writes an imported channel into a library folder: added to what is there (other channels untouched), staged in a
// sibling folder and swapped in by rename, so a failure never leaves half a library. The same import writes the
// same bytes (fixed key order, sorted lists, no time of the run), so the indexer re-embeds nothing.
import { cp, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ChannelRecord, EpisodeRecord, FacetRecord, UserRecord } from '../../src/library-format.js';
import type { ImportedChannel } from './model.js';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function readArray<T>(path: string): Promise<T[]> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (!Array.isArray(value)) throw new Error(`${path}: not a JSON array`);
    return value as T[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
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
}

/**
 * Marks `archived` every episode of the imported channel that the import does not hold: the pages, the API and
 * search stop showing it, and nothing is deleted (an import with the item back publishes it again).
 */
async function archiveMissing(episodesDir: string, imported: ImportedChannel): Promise<number> {
  const kept = new Set(imported.episodes.map((e) => e.id));
  let archived = 0;
  for (const name of (await readdir(episodesDir)).filter((n) => n.endsWith('.json')).sort()) {
    if (kept.has(name.slice(0, -'.json'.length))) continue;
    const path = join(episodesDir, name);
    const episode = JSON.parse(await readFile(path, 'utf8')) as EpisodeRecord;
    if (episode.channelId !== imported.channel.id || episode.status === 'archived') continue;
    await writeFile(path, json({ ...episode, status: 'archived' }));
    archived++;
  }
  return archived;
}

/**
 * Adds or updates `imported` in the library at `outDir` (created if missing). The owner is created as a paid user
 * when the library lacks it; an existing channel keeps its owner, members and custom domain.
 */
export async function writeLibrary(outDir: string, imported: ImportedChannel, ownerId: string, opts: WriteOptions = {}): Promise<WriteSummary> {
  const stage = join(dirname(outDir), `.${basename(outDir)}.import-${process.pid}`);
  await rm(stage, { recursive: true, force: true });
  await mkdir(dirname(outDir), { recursive: true });
  const exists = await readdir(outDir).then(
    () => true,
    () => false,
  );
  if (exists) await cp(outDir, stage, { recursive: true });
  await mkdir(join(stage, 'episodes'), { recursive: true });
  try {
    const users = await readArray<UserRecord>(join(stage, 'users.json'));
    if (!users.some((u) => u.id === ownerId)) users.push({ id: ownerId, name: ownerId, plan: 'paid' });
    await writeFile(join(stage, 'users.json'), json(users.sort(byId)));

    const channels = await readArray<ChannelRecord>(join(stage, 'channels.json'));
    const before = channels.find((c) => c.id === imported.channel.id);
    const channel: ChannelRecord = {
      ...before,
      id: imported.channel.id,
      slug: imported.channel.slug,
      title: imported.channel.title,
      providerType: imported.channel.providerType,
      ownerId: before?.ownerId ?? ownerId,
      memberIds: before?.memberIds ?? [ownerId],
    };
    await writeFile(join(stage, 'channels.json'), json([...channels.filter((c) => c.id !== channel.id), channel].sort(byId)));

    for (const [file, added] of [
      ['people.json', imported.people],
      ['topics.json', imported.topics],
    ] as const) {
      if (added.length === 0 && !(await readText(join(stage, file)))) continue;
      const facets = new Map((await readArray<FacetRecord>(join(stage, file))).map((f) => [f.id, f]));
      for (const f of added) if (!facets.has(f.id)) facets.set(f.id, f);
      await writeFile(join(stage, file), json([...facets.values()].sort(byId)));
    }

    const summary: WriteSummary = { created: 0, updated: 0, unchanged: 0, archived: 0 };
    for (const episode of imported.episodes) {
      // The file is named by the id: an id that is no plain file name is refused, whatever made it.
      if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(episode.id)) throw new Error(`episode id ${JSON.stringify(episode.id)} is not a safe file name`);
      const path = join(stage, 'episodes', `${episode.id}.json`);
      const text = json(episode);
      const old = await readText(path);
      if (old === text) summary.unchanged++;
      else {
        summary[old === undefined ? 'created' : 'updated']++;
        await writeFile(path, text);
      }
    }
    if (opts.archiveMissing) summary.archived = await archiveMissing(join(stage, 'episodes'), imported);
    // The swap: the old library moves aside, the staged one takes its name, the old one goes.
    const aside = `${stage}.old`;
    if (exists) await rename(outDir, aside);
    await rename(stage, outDir);
    if (exists) await rm(aside, { recursive: true, force: true });
    return summary;
  } catch (err) {
    await rm(stage, { recursive: true, force: true });
    throw err;
  }
}
