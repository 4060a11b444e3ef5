// The channel's library folder as the follower writes it (library format: users.json, channels.json, facet files,
// episodes/<id>.json), each change indexed at once through the ingest's own job runner.
import { join } from 'node:path';
import type { ChannelRecord, EpisodeRecord, FacetRecord, UserRecord } from '../../src/contract/library-format.js';
import { runJob } from '../../indexer/jobs.js';
import { readLibraryMeta } from '../../indexer/library-reader.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { channelIdOf } from './identity.js';
import type { SourceChannel } from './feed-source.js';
import { readJson, writeJson } from './state.js';

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** An episode's file in the channel's library. The id is a file name: the importer's ids always are. */
export function episodePath(dir: string, id: string): string {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(id)) throw new Error(`episode id ${JSON.stringify(id)} is not a safe file name`);
  return join(dir, 'episodes', `${id}.json`);
}

/** An episode record as the follower stores it: the format's fields plus the detected `language`. */
export type FollowedEpisode = EpisodeRecord & { language?: string | null };

export const readEpisode = (dir: string, id: string): Promise<FollowedEpisode | undefined> => readJson<FollowedEpisode>(episodePath(dir, id));

/** Writes the episode's file and indexes it (catalog row last; an unchanged record writes nothing to the store). */
export async function saveEpisode(dir: string, record: FollowedEpisode, ctx: IndexContext): Promise<void> {
  await writeJson(episodePath(dir, record.id), record);
  await runJob(ctx, { kind: 'episode', record, source: { path: episodePath(dir, record.id) } });
}

/** The owner in users.json (kept as the store has it: name and plan). */
export async function saveOwner(dir: string, owner: UserRecord): Promise<void> {
  const users = ((await readJson<UserRecord[]>(join(dir, 'users.json'))) ?? []).filter((u) => u.id !== owner.id);
  await writeJson(join(dir, 'users.json'), [...users, { id: owner.id, name: owner.name, plan: owner.plan }].sort(byId));
}

/**
 * The channel in channels.json from the source's fields (description, language and artwork are additive fields);
 * members and a custom domain set by hand are kept. Facet names the source added are merged in. Then users,
 * channels and facets are indexed as `npm run ingest` does it.
 */
export async function saveChannel(
  dir: string,
  { slug, ownerId, channel, people, topics }: { slug: string; ownerId: string; channel: SourceChannel; people: FacetRecord[]; topics: FacetRecord[] },
  ctx: IndexContext,
): Promise<void> {
  const id = channelIdOf(slug);
  const channels = (await readJson<ChannelRecord[]>(join(dir, 'channels.json'))) ?? [];
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
  await writeJson(join(dir, 'channels.json'), [...channels.filter((c) => c.id !== id), record].sort(byId));
  for (const [file, added] of [
    ['people.json', people],
    ['topics.json', topics],
  ] as const) {
    const existing = (await readJson<FacetRecord[]>(join(dir, file))) ?? [];
    if (added.length === 0 && existing.length === 0) continue;
    const facets = new Map(existing.map((f) => [f.id, f]));
    for (const f of added) if (!facets.has(f.id)) facets.set(f.id, f);
    await writeJson(join(dir, file), [...facets.values()].sort(byId));
  }
  const meta = await readLibraryMeta(dir);
  await runJob(ctx, { kind: 'meta', library: dir, users: meta.users, channels: meta.channels, facets: meta.facets });
}
