// A small library of our own in a fresh index prefix, for tests that change data (keys, plans, transcripts); deleted afterwards.
import type { Client } from '../../core/store/opensearch.js';
import type { IndexAliases } from '../../core/store/opensearch.js';
import { channelDocument, episodeDocuments, userDocument } from '../../indexer/documents.js';
import type { ChannelRecord, EpisodeRecord, UserRecord } from '../../core/library/checks.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { openWorld } from './world.js';

export interface ApiTestStore {
  prefix: string;
  aliases: IndexAliases;
  client: Client;
  users(records: UserRecord[]): Promise<void>;
  channels(records: ChannelRecord[]): Promise<void>;
  /** Catalog, transcript and chapters of each episode, derived as the indexer derives them (passages without vectors). */
  episodes(records: EpisodeRecord[]): Promise<void>;
  /** Writes one raw document (to store something the indexer never would). */
  put(index: keyof IndexAliases, id: string, doc: unknown): Promise<void>;
  remove(index: keyof IndexAliases, id: string): Promise<void>;
  /** A new API key for a paid user. */
  key(userId: string): Promise<{ key: string; keyId: string }>;
  drop(): Promise<void>;
}

/** `modelId`: the model the passages index says it was built for (the world holds no vectors). */
export async function createApiTestStore(client: Client, { modelId = 'test-model' }: { modelId?: string } = {}): Promise<ApiTestStore> {
  const world = await openWorld({ client, kind: 'api', modelId });
  const { prefix, aliases } = world;
  const bulk = async (ops: { index: string; id: string; doc: unknown }[]) => {
    if (ops.length === 0) return;
    const body = ops.flatMap((o) => [{ index: { _index: o.index, _id: o.id } }, o.doc]);
    const res = await client.bulk({ body: body as never, refresh: 'true' });
    if (res.body.errors) throw new Error(`bulk failed: ${JSON.stringify(res.body.items).slice(0, 1000)}`);
  };
  return {
    prefix,
    aliases,
    client,
    users: (records) => bulk(records.map((u) => ({ index: aliases.users, id: u.id, doc: userDocument(u) }))),
    channels: (records) => bulk(records.map((c) => ({ index: aliases.channels, id: c.id, doc: channelDocument(c) }))),
    async episodes(records) {
      const ops: { index: string; id: string; doc: unknown }[] = [];
      for (const r of records) {
        const docs = episodeDocuments(r, { modelId: 'test-model', indexedAt: new Date().toISOString() });
        ops.push({ index: aliases.episodes, id: r.id, doc: docs.episode });
        if (docs.transcript) ops.push({ index: aliases.transcripts, id: r.id, doc: docs.transcript });
        ops.push({ index: aliases.chapters, id: r.id, doc: docs.chapters });
        for (const p of docs.passages) ops.push({ index: aliases.passages, id: p.id, doc: p });
      }
      await bulk(ops);
    },
    put: (index, id, doc) => bulk([{ index: aliases[index], id, doc }]),
    async remove(index, id) {
      await client.delete({ index: aliases[index], id, refresh: 'true' } as never, { ignore: [404] });
    },
    async key(userId) {
      const { key, record } = await createApiKey({ client, aliases }, { userId, name: 'test' });
      return { key, keyId: record.keyId };
    },
    drop: () => world.drop(),
  };
}

/** A minimal episode record; override any field. */
export function episodeRecord(id: string, channelId: string, overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    id,
    channelId,
    title: `Episode ${id}`,
    description: `About ${id}.`,
    publishedAt: '2023-05-01T10:00:00Z',
    durationMs: 60_000,
    viewCount: 10,
    status: 'published',
    summary: `Summary of ${id}.`,
    mediaUrl: `https://www.youtube.com/watch?v=${id.padEnd(11, 'x').slice(0, 11)}`,
    topicIds: [],
    personIds: [],
    collectionIds: [],
    transcript: {
      formatVersion: 1,
      segments: [
        { speakerLabel: 'Host', startMs: 0, endMs: 4000, text: `Welcome to ${id}, a show about gardening.`, words: [{ t: 'Welcome', s: 0, e: 500 }] },
        { speakerLabel: null, startMs: 4000, endMs: 9000, text: 'Today we talk about tomatoes and soil.' },
      ],
    },
    chapters: [{ title: 'Opening', startMs: 0, endMs: 9000, moments: [{ type: 'quote', title: 'Tomatoes need sun.', startMs: 4000 }] }],
    ...overrides,
  };
}

/**
 * An episode enriched from its transcript (decision 27): chapters and key moments all `generated: true`, every time on
 * a segment's start or end, and words of its own (mulch, compost) so a search finds its generated titles and nothing else.
 */
export function enrichedEpisode(id: string, channelId: string, overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return episodeRecord(id, channelId, {
    title: `Enriched episode ${id}`,
    summary: null,
    transcript: {
      formatVersion: 1,
      segments: [
        { speakerLabel: 'Host', startMs: 0, endMs: 30_000, text: 'Mulch keeps the moisture in the ground through a hot week.' },
        { speakerLabel: 'Guest', startMs: 30_000, endMs: 70_000, text: 'Why does compost smell sweet? Because it is made slowly and turned often.' },
        { speakerLabel: 'Host', startMs: 70_000, endMs: 120_000, text: 'Next year every bed will have a layer of leaves on it.' },
      ],
    },
    chapters: [
      {
        title: 'Mulch and moisture',
        startMs: 0,
        endMs: 30_000,
        generated: true,
        moments: [{ type: 'insight', title: 'Mulch keeps the moisture in the ground through a hot week.', startMs: 0, endMs: 30_000, generated: true }],
      },
      {
        title: 'Sweet compost',
        startMs: 30_000,
        endMs: 120_000,
        generated: true,
        moments: [
          { type: 'qa', title: 'Compost smells sweet because it is made slowly and turned often.', startMs: 30_000, endMs: 70_000, generated: true },
          { type: 'prediction', title: 'Next year every bed will have a layer of leaves on it.', startMs: 70_000, endMs: 120_000, generated: true },
        ],
      },
    ],
    ...overrides,
  });
}

/** Users of the small world: plans decide API access, memberships decide visibility. */
export const WORLD_USERS: UserRecord[] = [
  { id: 'u_owner', name: 'Owner', plan: 'paid' },
  { id: 'u_member', name: 'Member', plan: 'paid' },
  { id: 'u_outsider', name: 'Outsider', plan: 'paid' },
  { id: 'u_free_owner', name: 'Free owner', plan: 'free' },
  { id: 'u_free_member', name: 'Free member', plan: 'free' },
];

export const WORLD_CHANNELS: ChannelRecord[] = [
  { id: 'ch_alpha', slug: 'alpha', title: 'Alpha', providerType: 'youtube', ownerId: 'u_owner', memberIds: ['u_member'] },
  { id: 'ch_custom', slug: 'custom', title: 'Custom', providerType: 'rss', ownerId: 'u_owner', memberIds: ['u_member'], customDomain: 'show.example.org' },
  { id: 'ch_free', slug: 'free-show', title: 'Free show', providerType: 'youtube', ownerId: 'u_free_owner', memberIds: ['u_member', 'u_free_member'] },
];

const DATES = ['2021-03-01T00:00:00Z', '2022-06-15T12:00:00Z', '2022-06-15T12:00:00Z', '2023-01-10T08:30:00Z', '2023-11-30T23:59:59Z'];
const STATUS_CYCLE = ['published', 'published', 'pending', 'published', 'processing', 'indexed', 'published', 'failed', 'published'] as const;

/**
 * Thirty episodes of `alpha` built to stress paging: only five distinct dates, three
 * view counts and two durations (many ties), null view counts and durations, every
 * status, and two archived rows (`ep_a07` by status, `ep_a13` likewise) with a
 * distinctive title. Facets follow simple rules so tests can compute expectations.
 */
export function alphaEpisodes(): EpisodeRecord[] {
  return Array.from({ length: 30 }, (_, i) => {
    const id = `ep_a${String(i).padStart(2, '0')}`;
    const archived = i === 7 || i === 13;
    const status = archived ? 'archived' : STATUS_CYCLE[i % STATUS_CYCLE.length]!;
    return episodeRecord(id, 'ch_alpha', {
      title: archived ? `Zebra archive secret ${id}` : `Alpha episode ${id}`,
      publishedAt: DATES[i % DATES.length]!,
      viewCount: i % 4 === 0 ? null : (i % 3) * 100,
      durationMs: i % 5 === 0 ? null : (i % 2) * 1000 + 1000,
      status,
      error: status === 'failed' ? 'transcription failed' : null,
      topicIds: [...(i % 2 === 0 ? ['t_garden'] : []), ...(i % 3 === 0 ? ['t_soil'] : []), ...(i % 5 === 0 ? ['t_sun'] : [])],
      personIds: ['p_host', `p_guest_${i % 3}`],
      collectionIds: [i < 10 ? 'c_one' : 'c_two'],
    });
  });
}

/** Writes the users, channels and episodes of the small world. */
export async function seedWorld(store: ApiTestStore): Promise<{ alpha: EpisodeRecord[] }> {
  const alpha = alphaEpisodes();
  await store.users(WORLD_USERS);
  await store.channels(WORLD_CHANNELS);
  await store.episodes([
    ...alpha,
    episodeRecord('ep_custom1', 'ch_custom', { title: 'Custom domain episode' }),
    episodeRecord('ep_free1', 'ch_free', { title: 'Free plan episode' }),
  ]);
  return { alpha };
}
