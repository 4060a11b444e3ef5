// `npm run enrich` on a copy of real meetings, through the real command and model: what lacks structure gets generated
// chapters on segment starts covering the speech with typed moments on their words, the creator's chapters stay byte for byte, a second
// run (and --force) writes identical files, bad input is refused with a sentence and loses nothing.
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { ChapterRecord, EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import { MOMENT_TYPES } from '../../pipeline/enrich/types.js';
import { REPO_ROOT, copyLibrary, removeDir } from '../support/indexer-env.js';
import { runEnrich, type EnrichRun } from '../support/enrich-cli.js';

const FIXTURE = join(REPO_ROOT, 'test', 'data', 'qmsum-cut');

/** Runs the command (no language model; entities from the NER service when it runs). */
const enrich = (args: string[], { asNobody = false } = {}) => runEnrich(args, { asNobody });

const episodeFile = (dir: string, id: string) => join(dir, 'episodes', `${id}.json.gz`);
const readEpisode = async (dir: string, id: string): Promise<EpisodeRecord> => JSON.parse(gunzipSync(await readFile(episodeFile(dir, id))).toString('utf8')) as EpisodeRecord;
const writeEpisode = (dir: string, record: EpisodeRecord) => writeFile(episodeFile(dir, record.id), gzipSync(`${JSON.stringify(record)}\n`));

/** sha256 of every file of the library, by name: "nothing changed" made exact. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const sub of ['', 'episodes']) {
    for (const name of (await readdir(join(dir, sub), { withFileTypes: true })).filter((e) => e.isFile())) {
      out[join(sub, name.name)] = createHash('sha256')
        .update(await readFile(join(dir, sub, name.name)))
        .digest('hex');
    }
  }
  return out;
}

type Generated = ChapterRecord & { generated?: boolean; moments: (ChapterRecord['moments'][number] & { generated?: boolean })[] };

describe('npm run enrich on a library folder', function () {
  this.timeout(300_000);
  let dir: string;
  let creatorChapters: ChapterRecord[];
  let firstRun: EnrichRun;

  before(async function () {
    dir = await copyLibrary(FIXTURE);
    // Speech only: the meeting as a followed episode arrives, without chapters, topics, people or entities.
    const bare = await readEpisode(dir, 'ep_bed012');
    await writeEpisode(dir, { ...bare, chapters: [], topicIds: [], personIds: [], entityIds: [] });
    // The creator's chapters on another meeting; its topics are left empty to be generated.
    const creator = await readEpisode(dir, 'ep_bed003');
    creatorChapters = creator.chapters ?? [];
    await writeEpisode(dir, { ...creator, topicIds: [] });
    // One whose transcript holds no speech, one with no transcript yet.
    const empty = await readEpisode(dir, 'ep_bro014');
    await writeEpisode(dir, { ...empty, chapters: [], transcript: { formatVersion: 1, segments: [] } });
    const pending = await readEpisode(dir, 'ep_education-19');
    await writeEpisode(dir, { ...pending, chapters: [], status: 'pending', transcript: null });
    firstRun = await enrich([dir]);
  });

  after(async () => removeDir(dir));

  it('enriches what lacks structure and names what it could not enrich, with exit status 0', () => {
    expect(firstRun.code, firstRun.stderr).to.equal(0);
    expect(firstRun.stderr).to.match(/ep_bro014: not enriched: its transcript holds no speech/);
    expect(firstRun.stderr).to.match(/ep_education-19: not enriched: it has no transcript yet/);
  });

  it('writes generated chapters that start on segment starts, follow each other without overlap and cover the speech', async () => {
    const record = await readEpisode(dir, 'ep_bed012');
    const segments = record.transcript!.segments;
    const starts = new Set(segments.map((s) => s.startMs));
    const chapters = record.chapters as Generated[];
    expect(chapters.length).to.be.greaterThan(1);
    expect(chapters[0]!.startMs).to.equal(segments[0]!.startMs);
    expect(chapters.at(-1)!.endMs).to.equal(Math.max(...segments.map((s) => s.endMs)));
    chapters.forEach((c, i) => {
      expect(c.generated, `chapter ${i}`).to.equal(true);
      expect(starts.has(c.startMs), `chapter ${i} starts on a segment start`).to.equal(true);
      expect(c.endMs).to.be.greaterThan(c.startMs);
      if (i > 0) expect(c.startMs, `chapter ${i} starts where ${i - 1} ends`).to.equal(chapters[i - 1]!.endMs);
      expect(c.title.length).to.be.within(1, 60);
    });
  });

  it('gives each generated chapter one to three typed moments said inside it, each a sentence from its first word to its last', async () => {
    const record = await readEpisode(dir, 'ep_bed012');
    const segments = record.transcript!.segments;
    // The meeting's words carry times: a moment starts and ends on a word (a segment's start and end where none are timed).
    const starts = new Set([...segments.map((s) => s.startMs), ...segments.flatMap((s) => (s.words ?? []).map((w) => w.s))]);
    const ends = new Set([...segments.map((s) => s.endMs), ...segments.flatMap((s) => (s.words ?? []).map((w) => w.e))]);
    for (const c of record.chapters as Generated[]) {
      expect(c.moments.length, c.title).to.be.within(1, 3);
      for (const m of c.moments) {
        expect(m.generated).to.equal(true);
        expect(MOMENT_TYPES as readonly string[]).to.include(m.type);
        expect(starts.has(m.startMs), `${m.title} starts on a word's or a segment's start`).to.equal(true);
        expect(m.endMs === null || m.endMs === undefined || ends.has(m.endMs), `${m.title} ends on a word's or a segment's end`).to.equal(true);
        expect(m.startMs).to.be.within(c.startMs, c.endMs - 1);
        expect(m.title).to.match(/^\S/);
        expect(m.title).not.to.match(/^(he|she|it|this|that|so|and|but)\b/i);
      }
    }
  });

  it('keeps the creator’s chapters and key moments exactly as they were', async () => {
    const record = await readEpisode(dir, 'ep_bed003');
    expect(record.chapters).to.deep.equal(creatorChapters);
  });

  it('gives episodes 3 to 8 generated topics named in topics.json, marked generated', async () => {
    const topics = JSON.parse(await readFile(join(dir, 'topics.json'), 'utf8')) as (FacetRecord & { generated?: boolean })[];
    const generated = new Map(topics.filter((t) => t.generated === true).map((t) => [t.id, t.name]));
    for (const id of ['ep_bed012', 'ep_bed003']) {
      const record = await readEpisode(dir, id);
      expect(record.topicIds?.length, id).to.be.within(3, 8);
      for (const t of record.topicIds!) expect(generated.has(t), `${id}: ${t} is named and marked generated`).to.equal(true);
    }
    // The human topics of the untouched meetings are still there, not marked.
    expect(topics.filter((t) => t.generated !== true).length).to.be.greaterThan(0);
  });

  it('changes no byte when run again, and --force regenerates the same files', async () => {
    const before = await fingerprint(dir);
    const again = await enrich([dir]);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/enriched 0 of/);
    expect(await fingerprint(dir)).to.deep.equal(before);
    const forced = await enrich([dir, '--force']);
    expect(forced.code, forced.stderr).to.equal(0);
    expect(await fingerprint(dir)).to.deep.equal(before);
  });

  it('says what it would do in a dry run and writes nothing', async () => {
    const copy = await copyLibrary(FIXTURE);
    try {
      const bare = await readEpisode(copy, 'ep_bdb001');
      await writeEpisode(copy, { ...bare, chapters: [] });
      const before = await fingerprint(copy);
      const run = await enrich([copy, '--dry-run', '--episode', 'ep_bdb001']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.match(/would enrich 1 of 1 episodes/);
      expect(await fingerprint(copy)).to.deep.equal(before);
    } finally {
      await removeDir(copy);
    }
  });

  it('refuses an unknown episode, a folder that is not a library, and a read-only folder, changing nothing', async () => {
    const unknown = await enrich([dir, '--episode', 'ep_nope']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/enrich: no episode "ep_nope"/);
    const empty = await mkdtemp(join(tmpdir(), 'cca-enrich-empty-'));
    try {
      const notLibrary = await enrich([empty]);
      expect(notLibrary.code).to.equal(2);
      expect(notLibrary.stderr).to.match(/holds no readable channel/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    const copy = await copyLibrary(FIXTURE);
    try {
      const bare = await readEpisode(copy, 'ep_bdb001');
      await writeEpisode(copy, { ...bare, chapters: [] });
      const before = await fingerprint(copy);
      for (const sub of ['episodes', '']) {
        for (const name of await readdir(join(copy, sub))) if (name !== 'episodes') await chmod(join(copy, sub, name), 0o444);
        await chmod(join(copy, sub), 0o555);
      }
      const run = await enrich([copy], { asNobody: process.getuid?.() === 0 });
      expect(run.code, run.stderr).to.equal(2);
      expect(run.stderr).to.match(/is not writable .*nothing was changed/);
      expect(await fingerprint(copy)).to.deep.equal(before);
    } finally {
      await chmod(copy, 0o755);
      await chmod(join(copy, 'episodes'), 0o755);
      await removeDir(copy);
    }
  });
});
