// The publishing write checks its record once: publishedRecord checks the record as ingest will, and the library writer
// writes that checked episode without checking it again; a record whose chapters break the format is published
// without them (the record, then the record without them, checked), as before.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { EPISODE_LIMITS, type ChapterRecord, type EpisodeRecord } from '../../core/contract/library-format.js';
import { episodeChecksSoFar } from '../../core/library/checks.js';
import { episodePath } from '../../core/library/layout.js';
import { RecordRefusedError, writeEpisodeRecord } from '../../core/library/writer.js';
import { publishedRecord } from '../../pipeline/follow/process.js';

const stored: EpisodeRecord = {
  id: 'ep_once',
  channelId: 'ch_once',
  title: 'Checked once',
  publishedAt: '2024-01-01T00:00:00.000Z',
  status: 'processing',
  transcript: null,
  chapters: [],
};
const transcript = {
  formatVersion: 1 as const,
  segments: Array.from({ length: 10 }, (_, i) => ({ startMs: i * 6000, endMs: i * 6000 + 6000, text: `Sentence ${i} about the river.` })),
};
const chapter = (i: number): ChapterRecord => ({ title: `Part ${i + 1}`, startMs: i * 20, endMs: i * 20 + 20, moments: [], generated: false });
const made = (chapters: ChapterRecord[]) => ({ transcript, language: 'en', durationMs: 60_000, chapters });

describe('follow: the publishing write checks its record once', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'cca-publish-check-'));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  const written = async (): Promise<EpisodeRecord> => JSON.parse(await readFile(episodePath(dir, stored.id), 'utf8')) as EpisodeRecord;

  it('checks a published record once between the publishing rule and its file', async function () {
    const before = episodeChecksSoFar();
    const { episode, notes } = publishedRecord(stored, made([chapter(0), chapter(1)]));
    await writeEpisodeRecord(dir, episode);
    expect(episodeChecksSoFar() - before, 'episode checks').to.equal(1);
    expect(notes).to.deep.equal([]);
    const file = await written();
    expect(file).to.deep.include({ id: stored.id, status: 'published', error: null, language: 'en', durationMs: 60_000 });
    expect(file.chapters).to.have.length(2);
    expect(file.transcript).to.deep.equal(transcript);
  });

  it('publishes a record whose chapters break the format without them, with a note, and checks nothing again to write it', async function () {
    const tooMany = Array.from({ length: EPISODE_LIMITS.chapters + 1 }, (_, i) => chapter(i));
    const before = episodeChecksSoFar();
    const { episode, notes } = publishedRecord(stored, made(tooMany));
    await writeEpisodeRecord(dir, episode);
    expect(episodeChecksSoFar() - before, 'the record, then the record without its chapters').to.equal(2);
    expect(notes).to.have.length(1);
    expect(notes[0]).to.match(/^chapters left out: .*2,001 chapters/);
    const file = await written();
    expect(file.status).to.equal('published');
    expect(file.chapters).to.deep.equal([]);
    expect(file.transcript).to.deep.equal(transcript);
  });

  it('still checks a record written as it is, and writes nothing it refuses', async function () {
    const before = episodeChecksSoFar();
    const bad: EpisodeRecord = { ...stored, transcript: { formatVersion: 1, segments: [{ startMs: 5000, endMs: 1000, text: 'Backwards.' }] } };
    let refused: unknown;
    await writeEpisodeRecord(dir, bad).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(RecordRefusedError);
    expect(episodeChecksSoFar() - before).to.equal(1);
    let missing: unknown;
    await written().catch((err: unknown) => (missing = err));
    expect(missing).to.have.property('code', 'ENOENT');
  });
});
