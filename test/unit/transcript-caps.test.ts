// Characters per segment and per transcript are capped (EPISODE_LIMITS; security review 2026-12-01, finding 1): ingest
// skips a record over a cap naming its file and the cap, the importer skips the item naming the cap, and the follower
// fails the episode with a sentence naming it, before enrichment reads any of its text. Nothing else is lost.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { EPISODE_LIMITS, type EpisodeRecord } from '../../core/contract/library-format.js';
import { createLogger } from '../../core/ground/logger.js';
import { runImport } from '../../importer/import.js';
import { ingestProblem } from '../../importer/model.js';
import { readEpisodes, type LibraryIssue } from '../../core/library/reader.js';
import { checkEpisode } from '../../core/library/checks.js';
import { ProcessFailure, publishedRecord } from '../../pipeline/follow/process.js';

const { segmentChars, transcriptChars } = EPISODE_LIMITS;
const episode = (id: string, texts: string[]): EpisodeRecord => ({
  id,
  channelId: 'ch_caps',
  title: id,
  publishedAt: '2024-01-01T00:00:00.000Z',
  status: 'published',
  transcript: { formatVersion: 1, segments: texts.map((text, i) => ({ startMs: i * 1000, endMs: i * 1000 + 1000, text })) },
  chapters: [],
});
const reason = (record: EpisodeRecord) => {
  const checked = checkEpisode(record);
  return checked.ok ? 'accepted' : checked.reason;
};
/** Segments of `per` characters adding up to `total`. */
const texts = (total: number, per = segmentChars) => Array.from({ length: Math.ceil(total / per) }, (_, i) => 'a'.repeat(Math.min(per, total - i * per)));

describe('transcript text caps', function () {
  it('accepts a segment and a transcript at their caps, and refuses one character more, naming the cap', function () {
    expect(reason(episode('ep_seg', ['a'.repeat(segmentChars)]))).to.equal('accepted');
    expect(reason(episode('ep_seg', ['ok', 'a'.repeat(segmentChars + 1)]))).to.equal('/transcript/segments/1 has 30,001 characters: more than the 30,000 a segment may hold');
    expect(reason(episode('ep_all', texts(transcriptChars)))).to.equal('accepted');
    expect(reason(episode('ep_all', texts(transcriptChars + 1)))).to.equal('transcript has 4,000,001 characters: more than the 4,000,000 allowed');
  });

  it('fails a followed episode over a cap with a sentence naming it, as ingest would refuse it', function () {
    const stored = { ...episode('ep_follow', []), status: 'processing' as const, transcript: null };
    const made = { transcript: episode('x', ['Fine.', '"'.repeat(segmentChars + 1)]).transcript!, language: 'en', durationMs: 2000, chapters: [] };
    expect(ingestProblem({ ...stored, ...made } as EpisodeRecord)).to.match(/^not imported: \/transcript\/segments\/1 has 30,001 characters/);
    expect(() => publishedRecord(stored, made))
      .to.throw(ProcessFailure)
      .with.property('message', 'the episode could not be published: /transcript/segments/1 has 30,001 characters: more than the 30,000 a segment may hold');
    expect(publishedRecord(stored, { ...made, transcript: episode('x', ['Fine.']).transcript! }).episode.record.status, 'within the caps').to.equal('published');
  });

  describe('in a library and a feed', function () {
    let work: string;
    beforeEach(async function () {
      work = await mkdtemp(join(tmpdir(), 'cca-text-caps-'));
    });
    afterEach(async function () {
      await rm(work, { recursive: true, force: true });
    });

    it('ingest skips the record over a cap, naming its file and the cap, and reads the others', async function () {
      await mkdir(join(work, 'episodes'), { recursive: true });
      await writeFile(join(work, 'episodes', 'long.json'), JSON.stringify(episode('ep_long', ['a'.repeat(segmentChars + 1)])));
      await writeFile(join(work, 'episodes', 'fine.json'), JSON.stringify(episode('ep_fine', ['Fine.'])));
      const issues: LibraryIssue[] = [];
      const read: string[] = [];
      for await (const entry of readEpisodes(work, { channelIds: new Set(['ch_caps']), onIssue: (i) => issues.push(i) })) read.push(entry.record.id);
      expect(read).to.deep.equal(['ep_fine']);
      expect(issues).to.deep.equal([
        { path: join(work, 'episodes', 'long.json'), id: 'ep_long', reason: '/transcript/segments/0 has 30,001 characters: more than the 30,000 a segment may hold' },
      ]);
    });

    it('the importer skips a feed item whose transcript file holds a cue over the cap, naming the item and the cap, and imports the rest', async function () {
      const feedDir = join(work, 'feed');
      await mkdir(feedDir, { recursive: true });
      const srt = (text: string) => `1\n00:00:00,000 --> 00:00:05,000\n${text}\n`;
      await writeFile(join(feedDir, 'long.srt'), srt(`${"a'".repeat(segmentChars / 2)}.`));
      await writeFile(join(feedDir, 'fine.srt'), srt('A fine cue.'));
      const item = (n: number, file: string) =>
        `<item><title>Item ${n}</title><guid>g${n}</guid><pubDate>Tue, 0${n} Jan 2024 10:00:00 GMT</pubDate><podcast:transcript url="${file}" type="application/srt"/></item>`;
      const feed = join(feedDir, 'feed.xml');
      await writeFile(
        feed,
        `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Caps</title>${item(1, 'long.srt')}${item(2, 'fine.srt')}</channel></rss>`,
      );
      const summary = await runImport({ source: feed, out: join(work, 'lib'), log: createLogger({ level: 'silent' }) });
      expect(summary.skipped.map((s) => s.notes[0])).to.deep.equal(['not imported: /transcript/segments/0 has 30,001 characters: more than the 30,000 a segment may hold']);
      expect(summary.skipped[0]!.item).to.match(/^ep_caps_/);
      const imported: string[] = [];
      for await (const entry of readEpisodes(join(work, 'lib'), { channelIds: new Set(['ch_caps']), onIssue: () => {} })) imported.push(entry.record.title);
      expect(imported).to.deep.equal(['Item 2']);
    });
  });
});
