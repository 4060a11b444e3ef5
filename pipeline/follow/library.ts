// The follower's two steps after what an item becomes: `library`, the channel's folder written through the library
// writer (library format: users.json, channels.json, facet files, episodes/<id>.json; the folder is the source of
// truth, decision 25), then `index`, what was written loaded by the ingest's own job runner (the index is derived).
// Both run while the caller holds the channel's lock.
import type { ChannelRecord, EpisodeRecord, FacetRecord, UserRecord } from '../../core/contract/library-format.js';
import { episodePath, facetFile, LIBRARY_FILES } from '../../core/library/layout.js';
import { readEpisodeRecord, readLibraryArray, readLibraryMeta } from '../../core/library/reader.js';
import { writeEpisodeRecord, writeLibraryJson } from '../../core/library/writer.js';
import { runJob } from '../../indexer/jobs.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { channelIdOf } from '../../importer/item-identity.js';
import type { SourceChannel } from './feed-source.js';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The index step of an episode: its file's record loaded as `npm run ingest` does (catalog row last; an unchanged record writes nothing to the store). */
export async function indexEpisode(ctx: IndexContext, dir: string, record: EpisodeRecord): Promise<void> {
  await runJob(ctx, { kind: 'episode', record, source: { path: episodePath(dir, record.id) } });
}

/**
 * The index step of an episode on its own, outside the channel's lock: what its file holds now, loaded as ingest loads
 * it; loaded again while the file changed meanwhile (a poll's or another job's write between the read and the load), so
 * the index ends holding the file's last record whichever writer indexes last. Returns the record indexed (undefined:
 * no file). A store that refuses or cannot be reached throws the indexer's error.
 */
export const indexEpisodeFile = (ctx: IndexContext, dir: string, id: string): Promise<EpisodeRecord | undefined> =>
  loadUntilSettled(
    () => readEpisodeRecord(dir, id),
    (record) => indexEpisode(ctx, dir, record),
  );

/**
 * Loads what `read` gives, and again while a read after the load differs (a writer changed the folder meanwhile), at
 * most five times: of two unlocked loads of one folder, whichever finishes last loads its last state. Returns the
 * value last read (undefined: nothing to load).
 */
async function loadUntilSettled<T>(read: () => Promise<T | undefined>, load: (value: T) => Promise<unknown>): Promise<T | undefined> {
  let value = await read();
  for (let round = 0; value !== undefined && round < 5; round++) {
    await load(value);
    const now = await read();
    if (now === undefined || isDeepStrictEqual(now, value)) return value;
    value = now;
  }
  return value;
}

/** An episode through both steps, library then index. */
export async function saveEpisode(dir: string, record: EpisodeRecord, ctx: IndexContext): Promise<void> {
  await writeEpisodeRecord(dir, record);
  await indexEpisode(ctx, dir, record);
}

/** What a meta load writes of a folder (the issues aside). */
const metaOf = async (dir: string) => {
  const { users, channels, facets } = await readLibraryMeta(dir);
  return { users, channels, facets };
};

/**
 * The index step of the folder's users, channels and facets, as `npm run ingest` loads them. It runs outside the
 * channel's lock, so two of one folder may overlap (a poll's and a job's): each removes the stored names its read does
 * not hold, so each loads again while the folder changed since it read it, and the index ends with the folder's
 * last names whichever finishes last.
 */
export async function indexLibraryMeta(ctx: IndexContext, dir: string): Promise<void> {
  await loadUntilSettled(
    () => metaOf(dir),
    (meta) => runJob(ctx, { kind: 'meta', library: dir, ...meta }),
  );
}

/** The owner in users.json (kept as the store has it: name and plan). */
export async function saveOwner(dir: string, owner: UserRecord): Promise<void> {
  const users = (await readLibraryArray<UserRecord>(dir, LIBRARY_FILES.users)).filter((u) => u.id !== owner.id);
  await writeLibraryJson(join(dir, LIBRARY_FILES.users), [...users, { id: owner.id, name: owner.name, plan: owner.plan }].sort(byId));
}

/**
 * The library step of the channel: its record in channels.json from the source's fields (description, language and
 * artwork are additive fields); members and a custom domain set by hand are kept. Facet names the source added are
 * merged in. Its index step is indexLibraryMeta.
 */
export async function writeChannel(
  dir: string,
  { slug, ownerId, channel, people, topics }: { slug: string; ownerId: string; channel: SourceChannel; people: FacetRecord[]; topics: FacetRecord[] },
): Promise<void> {
  const id = channelIdOf(slug);
  const channels = await readLibraryArray<ChannelRecord>(dir, LIBRARY_FILES.channels);
  const before = channels.find((c) => c.id === id);
  const record: ChannelRecord & Record<string, unknown> = {
    ...before,
    id,
    slug,
    title: channel.title,
    providerType: channel.providerType,
    ownerId,
    memberIds: before?.memberIds?.includes(ownerId) ? before.memberIds : [ownerId, ...(before?.memberIds ?? [])],
    description: channel.description,
    language: channel.language,
    artwork: channel.artwork,
  };
  await writeLibraryJson(join(dir, LIBRARY_FILES.channels), [...channels.filter((c) => c.id !== id), record].sort(byId));
  for (const [file, added] of [
    [facetFile('person'), people],
    [facetFile('topic'), topics],
  ] as const) {
    const existing = await readLibraryArray<FacetRecord>(dir, file);
    if (added.length === 0 && existing.length === 0) continue;
    const facets = new Map(existing.map((f) => [f.id, f]));
    for (const f of added) if (!facets.has(f.id)) facets.set(f.id, f);
    await writeLibraryJson(join(dir, file), [...facets.values()].sort(byId));
  }
}
