import { expect } from 'chai';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { MAX_TITLE_CHARS } from '../../pipeline/enrich/titles.js';
import type { ChapterBrief, ChapterWriter } from '../../pipeline/enrich/types.js';
import { cutEpisode, hashEmbed } from './enrich-fixture.js';

describe('enrichTranscript', function () {
  const episode = cutEpisode('ep_bdb001');
  const segments = episode.transcript!.segments;

  it('writes titled chapters on segment starts with typed moments on word times, all marked generated', async function () {
    const { chapters, keyphrases } = await enrichTranscript({ segments, language: 'en', title: episode.title }, { embed: hashEmbed() });
    const starts = new Set(segments.map((s) => s.startMs));
    const wordStarts = new Set(segments.flatMap((s) => (s.words ?? []).map((w) => w.s)));
    const wordEnds = new Set(segments.flatMap((s) => (s.words ?? []).map((w) => w.e)));
    expect(chapters.length).to.be.greaterThan(1);
    expect(chapters[0]!.startMs).to.equal(segments[0]!.startMs);
    for (const [i, c] of chapters.entries()) {
      expect(c.generated).to.equal(true);
      expect(starts.has(c.startMs)).to.equal(true);
      expect(c.title.length).to.be.within(1, MAX_TITLE_CHARS);
      if (i + 1 < chapters.length) expect(c.endMs).to.equal(chapters[i + 1]!.startMs);
      expect(c.moments.length).to.be.within(1, 3);
      for (const m of c.moments) {
        expect(m.generated).to.equal(true);
        // This meeting's words carry times: a moment starts at its claim's first word and ends at its last.
        expect(wordStarts.has(m.startMs)).to.equal(true);
        expect(wordEnds.has(m.endMs!)).to.equal(true);
        expect(m.startMs).to.be.within(c.startMs, c.endMs);
      }
    }
    expect(keyphrases.length).to.be.within(3, 20);
  });

  it('gives byte-identical output for the same input', async function () {
    const a = await enrichTranscript({ segments, language: 'en' }, { embed: hashEmbed() });
    const b = await enrichTranscript({ segments: [...segments], language: 'en' }, { embed: hashEmbed() });
    expect(JSON.stringify(b)).to.equal(JSON.stringify(a));
  });

  it('uses a language model’s title and claims when it answers and keeps the local text when it declines, times unchanged', async function () {
    const local = await enrichTranscript({ segments, language: 'en' }, { embed: hashEmbed() });
    const briefs: ChapterBrief[] = [];
    let n = 0;
    const writer: ChapterWriter = {
      write: async (brief) => {
        briefs.push(brief);
        return n++ === 0 ? { title: 'Storing features in XML', claims: brief.moments.map((_, i) => `Claim ${i}.`) } : null;
      },
    };
    const written = await enrichTranscript({ segments, language: 'en' }, { embed: hashEmbed(), writer });
    expect(briefs).to.have.length(local.chapters.length);
    expect(briefs[0]!.localTitle).to.equal(local.chapters[0]!.title);
    expect(written.chapters[0]!.title).to.equal('Storing features in XML');
    expect(written.chapters[0]!.moments.map((m) => m.title)).to.deep.equal(local.chapters[0]!.moments.map((_, i) => `Claim ${i}.`));
    expect(written.chapters.slice(1)).to.deep.equal(local.chapters.slice(1));
    const times = (cs: typeof local.chapters) => cs.map((c) => [c.startMs, c.endMs, c.moments.map((m) => [m.startMs, m.endMs])]);
    expect(times(written.chapters)).to.deep.equal(times(local.chapters));
  });

  it('gives no chapters for an empty transcript, and chapters in another language', async function () {
    expect(await enrichTranscript({ segments: [] }, { embed: hashEmbed() })).to.deep.equal({ chapters: [], keyphrases: [] });
    const es = Array.from({ length: 60 }, (_, i) => ({
      startMs: i * 10_000,
      endMs: i * 10_000 + 9_000,
      speakerLabel: null,
      text: i < 30 ? 'Las canciones del mercado son muy bonitas. El mercado abre temprano.' : 'La cocina tradicional usa mucho aceite de oliva. La receta es sencilla.',
    }));
    const { chapters, keyphrases } = await enrichTranscript({ segments: es, language: 'es' }, { embed: hashEmbed() });
    expect(chapters.length).to.be.at.least(1);
    expect(chapters.map((c) => c.title).join(' ')).not.to.match(/\b(las|del|son|muy)\b/i);
    expect(keyphrases.some((k) => k.key.split(' ').includes('mercado'))).to.equal(true);
  });
});
