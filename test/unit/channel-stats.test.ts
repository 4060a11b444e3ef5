// The channel statistics file (pipeline/enrich/channel-stats.ts): enriching one episode at publish reads that episode
// and the statistics, no other episode file, and the statistics stay those of the episodes across publish,
// re-publish with a new transcript, an archive and a hand edit.
import fs from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { libraryJson, writeEpisodeRecord } from '../../core/library/writer.js';
import { loadTally, rebuildTally, recordChannelStats, STATS_FILE, type ChannelTally } from '../../pipeline/enrich/channel-stats.js';
import { enrichForPublish } from '../../pipeline/enrich/publish.js';
import { stagesOf } from '../../pipeline/enrich/stages.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { hashEmbed } from './enrich-fixture.js';

const CHANNEL = { id: 'ch_show', slug: 'show', title: 'The Show', providerType: 'rss', ownerId: 'u_owner', memberIds: ['u_owner'], language: 'en' };

const SUBJECTS: Record<string, string[]> = {
  soil: ['Cover crops keep the soil covered through the winter.', 'Soil organic matter builds slowly without tilling.', 'A soil test shows the nitrogen left after harvest.'],
  water: [
    'Water rights on the river were allocated a century ago.',
    'The irrigation district pumps groundwater from the aquifer.',
    'A water market leases water rights to the city.',
  ],
  bees: ['Honey bees pollinate the orchard every spring.', 'A beekeeper checks the hive for varroa mites.', 'Wild bees nest in bare ground near the hedgerow.'],
};

/** An episode speaking about `subjects` in turn, 24 six-second cues each. */
function episode(id: string, subjects: string[], extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  const segments = subjects.flatMap((s, j) =>
    Array.from({ length: 24 }, (_, i) => ({ speakerLabel: null, startMs: (j * 24 + i) * 6_000, endMs: (j * 24 + i + 1) * 6_000, text: SUBJECTS[s]![i % 3]! })),
  );
  return {
    id,
    channelId: CHANNEL.id,
    title: `Episode ${id}`,
    publishedAt: '2026-01-02T03:04:05.000Z',
    status: 'published',
    transcript: { formatVersion: 1, segments },
    chapters: [],
    language: 'en',
    ...extra,
  };
}

const stages = stagesOf({ embed: hashEmbed() });

/** What the follower does to publish `record`: enrich it, write it, and save the statistics in the same step. */
async function publish(dir: string, record: EpisodeRecord): Promise<EpisodeRecord> {
  const previous = await readEpisodeRecord(dir, record.id);
  const enriched = await enrichForPublish(record, { stages, dir, channelLanguage: 'en' });
  expect(enriched.outcome, `${record.id} enriched`).to.equal('enriched');
  const published = enriched.apply(record);
  await writeEpisodeRecord(dir, published);
  await recordChannelStats(dir, { channelId: CHANNEL.id, channelLanguage: 'en', previous, hint: enriched.keyphrases });
  return published;
}

/** The parts of a tally that must equal a rebuild's (keyphrases are ranked on the counts of their own publish). */
const counts = (t: ChannelTally) => ({
  df: t.df.entries(),
  episodes: Object.fromEntries([...t.episodes].sort().map(([id, e]) => [id, { file: e.file, counted: e.counted, text: e.text }])),
  files: Object.fromEntries([...t.files].sort()),
});

/** The episode files read while `fn` runs (fs.promises.readFile and createReadStream, which the readers use). */
async function filesRead<T>(dir: string, fn: () => Promise<T>): Promise<{ result: T; read: string[] }> {
  const read: string[] = [];
  const { readFile } = fs.promises;
  const { createReadStream } = fs;
  const note = (path: unknown) => {
    const rel = relative(dir, String(path));
    if (rel.startsWith('episodes')) read.push(rel);
  };
  fs.promises.readFile = ((path: unknown, ...rest: unknown[]) => (note(path), (readFile as (...a: unknown[]) => unknown)(path, ...rest))) as typeof readFile;
  fs.createReadStream = ((path: unknown, ...rest: unknown[]) => (note(path), (createReadStream as (...a: unknown[]) => unknown)(path, ...rest))) as typeof createReadStream;
  syncBuiltinESMExports();
  try {
    return { result: await fn(), read };
  } finally {
    fs.promises.readFile = readFile;
    fs.createReadStream = createReadStream;
    syncBuiltinESMExports();
  }
}

describe('channel statistics file', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'cca-channel-stats-'));
    await mkdir(join(dir, 'episodes'));
    await writeFile(join(dir, 'users.json'), libraryJson([{ id: 'u_owner', name: 'Owner', plan: 'paid' }]));
    await writeFile(join(dir, 'channels.json'), libraryJson([CHANNEL]));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('enriches an episode at publish reading its own file and the statistics, no other episode file', async function () {
    await publish(dir, episode('ep_1', ['soil', 'water']));
    await publish(dir, episode('ep_2', ['water', 'bees']));
    const ep3 = await publish(dir, episode('ep_3', ['bees', 'soil']));
    // The next item as a poll leaves it, then processed: only its own file may be read.
    const next = episode('ep_4', ['soil', 'bees']);
    await writeEpisodeRecord(dir, { ...next, status: 'pending', transcript: null });
    const { result, read } = await filesRead(dir, () => enrichForPublish(next, { stages, dir, channelLanguage: 'en' }));
    expect(result.outcome).to.equal('enriched');
    expect([...new Set(read)]).to.deep.equal([join('episodes', 'ep_4.json')]);
    // Topics still meet across the channel: ep_3 spoke of bees and soil too.
    const shared = (result.made.topicIds ?? []).filter((id) => (ep3.topicIds ?? []).includes(id));
    expect(shared.length, 'topics shared with ep_3').to.be.greaterThan(0);
  });

  it('stays equal to the statistics rebuilt from the episodes across publish, re-publish, archive and a hand edit', async function () {
    for (const [id, subjects] of [
      ['ep_1', ['soil', 'water']],
      ['ep_2', ['water', 'bees']],
      ['ep_3', ['bees', 'soil']],
    ] as const)
      await publish(dir, episode(id, [...subjects]));
    const saved = async () => (await loadTally(dir, CHANNEL.id, 'en')).tally;
    expect(counts(await saved())).to.deep.equal(counts(await rebuildTally(dir, CHANNEL.id, 'en')));
    expect((await saved()).df.get('water right')).to.equal(2);

    // ep_2 published again with a new transcript: its water phrases leave the counts, its soil phrases come in.
    await publish(dir, episode('ep_2', ['soil', 'bees']));
    let tally = await saved();
    expect(counts(tally)).to.deep.equal(counts(await rebuildTally(dir, CHANNEL.id, 'en')));
    expect(tally.df.get('water right')).to.equal(1);
    expect(tally.df.get('soil test')).to.equal(3);

    // A poll archives ep_3 (a write the statistics did not see): the next read takes it out of the counts.
    await writeEpisodeRecord(dir, { ...(await readEpisodeRecord(dir, 'ep_3'))!, status: 'archived' });
    const loaded = await loadTally(dir, CHANNEL.id, 'en');
    expect(loaded.from).to.equal('file');
    expect(loaded.read).to.deep.equal([join('episodes', 'ep_3.json')]);
    tally = loaded.tally;
    expect(counts(tally)).to.deep.equal(counts(await rebuildTally(dir, CHANNEL.id, 'en')));
    expect(tally.df.get('honey bee')).to.equal(1);
    expect(tally.episodes.get('ep_3')).to.include({ counted: false, text: null });

    // A hand edit of a transcript leaves no copy of the old text: the statistics are rebuilt from the episodes.
    await writeEpisodeRecord(dir, episode('ep_1', ['bees']));
    const edited = await loadTally(dir, CHANNEL.id, 'en');
    expect(edited.from).to.equal('rebuilt');
    expect(counts(edited.tally)).to.deep.equal(counts(await rebuildTally(dir, CHANNEL.id, 'en')));
    expect(edited.tally.df.get('cover crop')).to.be.greaterThan(0);
    expect(edited.tally.df.get('water right')).to.equal(0);
  });

  it('rebuilds a missing or broken statistics file from the episodes, and publishing writes it again', async function () {
    await publish(dir, episode('ep_1', ['soil', 'water']));
    await writeFile(join(dir, STATS_FILE), '{"version": 1, "chan');
    const loaded = await loadTally(dir, CHANNEL.id, 'en');
    expect(loaded.from).to.equal('rebuilt');
    expect(loaded.tally.df.get('soil test')).to.equal(1);
    await publish(dir, episode('ep_2', ['soil']));
    const after = await loadTally(dir, CHANNEL.id, 'en');
    expect(after.from).to.equal('file');
    expect(after.read).to.deep.equal([]);
    expect(after.tally.df.get('soil test')).to.equal(2);
  });
});
