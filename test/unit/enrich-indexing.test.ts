import { expect } from 'chai';
import { episodeDocuments } from '../../indexer/documents.js';
import { buildPassages, searchedChapters } from '../../indexer/passages.js';
import type { ChapterRecord, EpisodeRecord } from '../../indexer/schemas.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { cutEpisode, hashEmbed } from './enrich-fixture.js';

describe('generated structure in the search documents', function () {
  const episode = cutEpisode('ep_bdb001');
  const speechOnly: EpisodeRecord = { ...episode, chapters: [] };

  it('packs, titles and ranks an enriched episode exactly as its speech alone', async function () {
    const { chapters } = await enrichTranscript({ segments: episode.transcript!.segments, language: 'en' }, { embed: hashEmbed() });
    expect(chapters.length).to.be.greaterThan(1);
    const enriched: EpisodeRecord = { ...episode, chapters };
    expect(buildPassages(enriched)).to.deep.equal(buildPassages(speechOnly));
    const at = '2026-11-27T00:00:00.000Z';
    const a = episodeDocuments(enriched, { modelId: 'm', indexedAt: at });
    const b = episodeDocuments(speechOnly, { modelId: 'm', indexedAt: at });
    expect(a.episode.chapterTitles).to.deep.equal([]);
    expect(a.episode.momentTitles).to.deep.equal([]);
    expect(a.passages.map((p) => [p.id, p.text, p.chapterTitle])).to.deep.equal(b.passages.map((p) => [p.id, p.text, p.chapterTitle]));
    // The chapters are still stored for display.
    expect(a.chapters.chapters).to.have.length(chapters.length);
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
