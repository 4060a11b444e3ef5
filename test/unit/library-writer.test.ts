// The one writer of library folders (importer/library-writer.ts): whole files, one lock per folder, and the importer,
// the follower and enrichment racing on one channel folder without losing or tearing a write.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LibraryBusyError, libraryJson, lockPathOf, withLibraryLock, writeLibraryFile, writeLibraryJson, writeEpisodeRecord } from '../../core/library/writer.js';
import type { ImportedChannel } from '../../importer/model.js';
import { writeLibrary } from '../../importer/write-library.js';
import { readEpisodes, readLibraryMeta, type LibraryIssue, readEpisodeRecord } from '../../core/library/reader.js';
import { addFacets, enrichLibrary } from '../../pipeline/enrich/library.js';
import { type Stages } from '../../pipeline/enrich/rules.js';
import { stagesOf } from '../../pipeline/enrich/stages.js';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import { withChannelLock } from '../../core/library/follow-state.js';
import { hashEmbed } from './enrich-fixture.js';

const CHANNEL = { id: 'ch_show', slug: 'show', title: 'The Show', providerType: 'rss' as const };

/** A published episode of the channel with a short spoken transcript (`words` its text). */
const episode = (id: string, words = `episode ${id} talks about gardens and rain`): EpisodeRecord => ({
  id,
  channelId: CHANNEL.id,
  title: `Episode ${id}`,
  publishedAt: '2026-01-02T03:04:05.000Z',
  status: 'published',
  transcript: { formatVersion: 1, segments: [{ speakerLabel: null, startMs: 0, endMs: 60_000, text: words }] },
  chapters: [],
});

/** What an import of the channel holding `episodes` (and its topics) hands the library writer. */
const imported = (episodes: EpisodeRecord[], topics: FacetRecord[] = []): ImportedChannel => ({
  channel: { ...CHANNEL, source: { kind: 'rss', id: 'https://example.org/show.xml' } },
  episodes,
  people: [],
  topics,
  items: [],
  warnings: [],
});

/** The folder as the indexer reads it: its episodes by id, and whatever it would skip. */
async function readBack(dir: string) {
  const meta = await readLibraryMeta(dir);
  const issues: LibraryIssue[] = [...meta.issues];
  const episodes = new Map<string, EpisodeRecord>();
  for await (const entry of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: (i) => issues.push(i) })) episodes.set(entry.record.id, entry.record);
  return { meta, episodes, issues };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('library writer', function () {
  let work: string;
  beforeEach(async function () {
    work = await mkdtemp(join(tmpdir(), 'cca-library-writer-'));
  });
  afterEach(async function () {
    await rm(work, { recursive: true, force: true });
  });

  describe('files', function () {
    it('replaces a symbolic link at the path with the file, never writing through it', async function () {
      await writeFile(join(work, 'outside.json'), 'precious\n');
      await mkdir(join(work, 'lib'));
      await symlink(join(work, 'outside.json'), join(work, 'lib', 'users.json'));
      await writeLibraryJson(join(work, 'lib', 'users.json'), [{ id: 'u_1', name: 'One', plan: 'paid' }]);
      expect(await readFile(join(work, 'outside.json'), 'utf8')).to.equal('precious\n');
      expect(await readFile(join(work, 'lib', 'users.json'), 'utf8')).to.equal('[\n  {\n    "id": "u_1",\n    "name": "One",\n    "plan": "paid"\n  }\n]\n');
    });

    it('never shows a reader half a file: each read while it rewrites is the old text or the new, and no temporary stays', async function () {
      const path = join(work, 'lib', 'episodes', 'ep_1.json');
      // Large enough that a write in place would be seen part-way (several write calls of the file system).
      const texts = ['a', 'b'].map((c) => libraryJson({ id: 'ep_1', text: c.repeat(4 << 20) }));
      await writeLibraryFile(path, texts[0]!);
      let writing = true;
      const writer = (async () => {
        for (let i = 1; i <= 12; i++) await writeLibraryFile(path, texts[i % 2]!);
        writing = false;
      })();
      let reads = 0;
      while (writing) {
        const seen = await readFile(path, 'utf8');
        expect(seen === texts[0] || seen === texts[1], `read ${reads}: ${seen.length} characters, neither text`).to.equal(true);
        reads++;
      }
      await writer;
      expect(reads).to.be.greaterThan(0);
      expect(await readdir(join(work, 'lib', 'episodes'))).to.deep.equal(['ep_1.json']);
    });
  });

  describe('the lock', function () {
    it('lets one holder of a folder run at a time, beside the folder, and leaves no lock behind', async function () {
      const folder = join(work, 'lib', 'show');
      expect(lockPathOf(folder)).to.equal(join(work, 'lib', '.show.lock'));
      let inside = 0;
      let most = 0;
      const hold = () =>
        withLibraryLock(folder, async () => {
          most = Math.max(most, ++inside);
          for (let i = 0; i < 5; i++) await tick();
          inside--;
        });
      await Promise.all([hold(), hold(), hold()]);
      expect(most).to.equal(1);
      expect(await readdir(join(work, 'lib'))).to.deep.equal([]);
    });

    it('is the lock the follower holds on a channel: a follow write waits for an import of its folder', async function () {
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const taken = new Promise<void>((resolve) => (holding = resolve));
      const importing = withLibraryLock(join(work, 'lib', 'show'), async () => {
        order.push('import starts');
        holding();
        await held;
        order.push('import ends');
      });
      await taken;
      const following = withChannelLock(join(work, 'lib'), 'show', async () => {
        order.push('follow writes');
      });
      // Give the follow write several of the lock's retries (50 ms apart); whether it tried or not, it must not write yet.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const wroteWhileHeld = order.includes('follow writes');
      release();
      await Promise.all([importing, following]);
      expect(wroteWhileHeld).to.equal(false);
      expect(order).to.deep.equal(['import starts', 'import ends', 'follow writes']);
    });

    it('gives up with library_busy when another writer keeps the lock past the wait, and not before', async function () {
      const folder = join(work, 'lib', 'show');
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const taken = new Promise<void>((resolve) => (holding = resolve));
      const holder = withLibraryLock(folder, () => (holding(), held));
      await taken;
      const started = performance.now();
      const err = await withLibraryLock(folder, async () => 'ran', { waitMs: 300 }).catch((e: unknown) => e);
      const waited = performance.now() - started;
      release();
      await holder;
      expect(err).to.be.instanceOf(LibraryBusyError);
      expect((err as LibraryBusyError).code).to.equal('library_busy');
      expect((err as Error).message).to.contain(folder);
      expect(waited).to.be.at.least(250);
    });

    it('takes over a lock its holder left behind once it is older than staleMs, and not a fresh one', async function () {
      const folder = join(work, 'lib', 'show');
      await mkdir(join(work, 'lib'), { recursive: true });
      // A writer killed while holding the lock leaves its lock directory, no longer refreshed.
      await mkdir(lockPathOf(folder));
      const fresh = await withLibraryLock(folder, async () => 'ran', { waitMs: 300, staleMs: 5_000 }).catch((e: unknown) => e);
      expect(fresh).to.be.instanceOf(LibraryBusyError);
      const old = new Date(Date.now() - 60_000);
      await utimes(lockPathOf(folder), old, old);
      expect(await withLibraryLock(folder, async () => 'ran', { waitMs: 300, staleMs: 5_000 })).to.equal('ran');
      expect(await readdir(join(work, 'lib'))).to.deep.equal([]);
    });
  });

  describe('writers racing on one channel folder', function () {
    it('an import, follow writes and enrichment facet writes racing on one channel folder all land, whole', async function () {
      this.timeout(60_000);
      const lib = join(work, 'lib');
      const folder = join(lib, 'show');
      // The importer copies the folder, writes the copy and swaps it in: a write in between would go with the old folder.
      const imports = Array.from({ length: 6 }, (_, i) => imported([episode(`imp-${i}`)], [{ id: `t_imported-${i}`, name: `Imported ${i}` }]));
      await writeLibrary(folder, imports[0]!, 'u_owner');
      const followed = Array.from({ length: 30 }, (_, i) => ({ ...episode(`fol-${i}`), language: 'en' }) as EpisodeRecord);
      const generated = Array.from({ length: 12 }, (_, i) => ({ id: `t_generated-${i}`, name: `Generated ${i}`, generated: true as const }));
      const importer = (async () => {
        for (const one of imports.slice(1)) await writeLibrary(folder, one, 'u_owner');
      })();
      const follower = (async () => {
        for (const record of followed) {
          await withChannelLock(lib, 'show', () => writeEpisodeRecord(folder, record));
          await tick();
        }
      })();
      const enricher = (async () => {
        for (const facet of generated) {
          await withLibraryLock(folder, () => addFacets(join(folder, 'topics.json'), [facet]));
          await tick();
        }
      })();
      await Promise.all([importer, follower, enricher]);

      const { meta, episodes, issues } = await readBack(folder);
      expect(issues).to.deep.equal([]);
      expect(meta.channels.map((c) => c.id)).to.deep.equal([CHANNEL.id]);
      for (const one of imports) expect(episodes.get(one.episodes[0]!.id), one.episodes[0]!.id).to.deep.equal(one.episodes[0]);
      for (const record of followed) expect(await readEpisodeRecord(folder, record.id), record.id).to.deep.equal(record);
      const topics = new Set(meta.facets.filter((f) => f.kind === 'topic').map((f) => f.record.id));
      expect(
        [...imports.map((_, i) => `t_imported-${i}`), ...generated.map((f) => f.id)].filter((id) => !topics.has(id)),
        'topics lost',
      ).to.deep.equal([]);
      expect(await readdir(lib), 'no stage, temporary or lock left').to.deep.equal(['show']);
      expect((await readdir(join(folder, 'episodes'))).filter((n) => !n.endsWith('.json'))).to.deep.equal([]);
    });

    it('an enrichment run waits for the lock to write back, leaves an episode another writer saved meanwhile as it was saved, and writes the others', async function () {
      const lib = join(work, 'lib');
      const folder = join(lib, 'show');
      await writeLibrary(folder, imported([episode('ep_a'), episode('ep_b')]), 'u_owner');
      const rewritten: EpisodeRecord = { ...episode('ep_a', 'the feed brought a new transcript about rivers'), language: 'en' };
      const base = stagesOf({ embed: hashEmbed() });
      let holding: Promise<void> | undefined;
      let seenWhileHeld: unknown;
      const stages: Stages = {
        ...base,
        // The costly step, while a follow job publishes ep_a again with its new transcript, then a poll holds the
        // channel's lock for a while: nothing of the run may land in the folder until it lets go.
        async episode(input, stats) {
          if (input.episodeId === 'ep_a') await withChannelLock(lib, 'show', () => writeEpisodeRecord(folder, rewritten));
          else {
            await new Promise<void>((started) => {
              holding = withChannelLock(lib, 'show', async () => {
                started();
                await new Promise((resolve) => setTimeout(resolve, 300));
                seenWhileHeld = (await readEpisodeRecord(folder, 'ep_b'))?.chapters;
              });
            });
          }
          const end = input.segments.at(-1)!.endMs;
          return { chapters: [{ title: `About ${input.episodeId}`, startMs: 0, endMs: end, moments: [], generated: true }], keyphrases: base.keyphrases(input.title, 'en', stats) };
        },
      };
      const summary = await enrichLibrary({ dir: folder, stages });
      await holding;
      expect(seenWhileHeld, 'nothing written while the poll held the lock').to.deep.equal([]);
      expect(summary.enriched).to.deep.equal(['ep_b']);
      expect(summary.refused.map((r) => r.id)).to.deep.equal(['ep_a']);
      expect(summary.refused[0]!.reason).to.contain('transcript changed');
      expect(await readEpisodeRecord(folder, 'ep_a'), "the follower's write stands").to.deep.equal(rewritten);
      expect((await readEpisodeRecord(folder, 'ep_b'))?.chapters).to.deep.equal([{ title: 'About ep_b', startMs: 0, endMs: 60_000, moments: [], generated: true }]);
    });
  });
});
