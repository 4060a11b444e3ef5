import { expect } from 'chai';
import { episodeDocuments } from '../../indexer/documents.js';
import { buildPassages, GENERATED_CONTEXT_MIN_MS, generatedContextAt, searchedChapters } from '../../core/passages/passages.js';
import type { ChapterRecord, EpisodeRecord } from '../../core/library/checks.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { cutEpisode, hashEmbed } from './enrich-fixture.js';

describe('generated structure in the search documents', function () {
  const episode = cutEpisode('ep_bdb001');
  const speechOnly: EpisodeRecord = { ...episode, chapters: [] };

  it('packs and cites an enriched episode exactly as its speech alone, each speech passage lent its generated chapter title only', async function () {
    const { chapters } = await enrichTranscript({ segments: episode.transcript!.segments, language: 'en' }, { embed: hashEmbed() });
    expect(chapters.length).to.be.greaterThan(1);
    const enriched: EpisodeRecord = { ...episode, chapters };
    const made = buildPassages(enriched);
    const alone = buildPassages(speechOnly);
    // The same passages (ids, text, times, marks, no chapter or moment passage), differing only in generatedContext.
    expect(made.map((p) => ({ ...p, generatedContext: null }))).to.deep.equal(alone);
    expect(made.every((p) => p.kind === 'transcript')).to.equal(true);
    expect(alone.every((p) => p.generatedContext === null)).to.equal(true);
    for (const p of made) {
      const holder = chapters.find((c) => c.startMs <= p.startMs && p.startMs < c.endMs)!;
      expect(p.generatedContext, p.id).to.equal(holder.title);
    }
    const at = '2026-11-27T00:00:00.000Z';
    const a = episodeDocuments(enriched, { modelId: 'm', indexedAt: at });
    const b = episodeDocuments(speechOnly, { modelId: 'm', indexedAt: at });
    expect(a.episode.chapterTitles).to.deep.equal([]);
    expect(a.episode.momentTitles).to.deep.equal([]);
    expect(a.passages.map((p) => [p.id, p.text, p.chapterTitle, p.startMs])).to.deep.equal(b.passages.map((p) => [p.id, p.text, p.chapterTitle, p.startMs]));
    // The chapters are still stored for display.
    expect(a.chapters.chapters).to.have.length(chapters.length);
  });

  it('lends no context from a single generated chapter (it restates the episode), from generated chapters of a short talk, nor from a creator chapter', function () {
    const only: ChapterRecord = { title: 'Whole meeting', startMs: 0, endMs: 10_000_000, moments: [], generated: true };
    expect(buildPassages({ ...episode, chapters: [only] }).every((p) => p.generatedContext === null)).to.equal(true);
    const creator: ChapterRecord = { title: 'Opening', startMs: 0, endMs: 5_000_000, moments: [] };
    const rest: ChapterRecord = { title: 'The rest', startMs: 5_000_000, endMs: 10_000_000, moments: [] };
    expect(buildPassages({ ...episode, chapters: [creator, rest] }).every((p) => p.generatedContext === null)).to.equal(true);
    expect(
      generatedContextAt(
        [
          { ...only, endMs: 60_000 },
          { ...only, title: 'Second', startMs: 60_000 },
        ],
        60_000,
      ),
    ).to.equal('Second');
    // Two generated chapters spanning under 20 minutes (a short talk is about one thing) lend nothing either.
    const short: ChapterRecord[] = [
      { ...only, endMs: 300_000 },
      { ...only, title: 'Second', startMs: 300_000, endMs: GENERATED_CONTEXT_MIN_MS - 1 },
    ];
    expect(generatedContextAt(short, 400_000)).to.equal(null);
    expect(generatedContextAt([short[0]!, { ...short[1]!, endMs: GENERATED_CONTEXT_MIN_MS }], 400_000)).to.equal('Second');
    expect(
      generatedContextAt(
        [
          { ...only, endMs: 60_000 },
          { ...only, title: ' ', startMs: 60_000 },
        ],
        61_000,
      ),
    ).to.equal(null);
  });

  it("keeps a creator's chapters and moments searched, without the generated moments added to them", function () {
    const creator: ChapterRecord = {
      title: 'Opening',
      startMs: 0,
      endMs: 60_000,
      moments: [
        { type: 'quote', title: 'Mine.', startMs: 0 },
        { type: 'insight', title: 'Made.', startMs: 10_000, generated: true },
      ],
    };
    const made: ChapterRecord = { title: 'Made', startMs: 60_000, endMs: 120_000, moments: [], generated: true };
    expect(searchedChapters([creator, made])).to.deep.equal([{ ...creator, moments: [creator.moments[0]!] }]);
    expect(searchedChapters(null)).to.deep.equal([]);
  });
});
