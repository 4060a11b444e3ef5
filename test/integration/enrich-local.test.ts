// Local enrichment with the real model from MODEL_DIR over a whole meeting of the compact corpus: the invariants the
// library relies on, determinism, and what it embeds.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createConfiguredEmbedder } from '../../core/embedding/configured.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { buildPassages } from '../../core/passages/passages.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { MAX_TITLE_CHARS } from '../../pipeline/enrich/titles.js';
import { MOMENT_TYPES, type EmbedTexts } from '../../pipeline/enrich/types.js';
import { cutEpisode } from '../unit/enrich-fixture.js';
import { skipUnprovisioned } from '../support/skip.js';

describe('enrichTranscript with the real model', function () {
  this.timeout(300_000);
  const config = loadConfig(process.env);
  let model: Embedder;
  const asked: string[] = [];
  let embed: EmbedTexts;

  before(async function () {
    if (config.modelDir === undefined) skipUnprovisioned(this, "MODEL_DIR is not set (the embedding model's files)");
    model = await createConfiguredEmbedder(config);
    embed = async (texts) => {
      asked.push(...texts);
      return model.embedPassages(texts);
    };
  });

  it('cuts a product meeting into titled chapters with typed moments, every time a segment’s or a word’s, the same twice', async function () {
    const episode = cutEpisode('ep_es2010a');
    const segments = episode.transcript!.segments;
    const first = await enrichTranscript({ segments, language: 'en', title: episode.title }, { embed });
    const again = await enrichTranscript({ segments, language: 'en', title: episode.title }, { embed });
    expect(JSON.stringify(again)).to.equal(JSON.stringify(first));

    const { chapters } = first;
    const starts = new Set(segments.map((s) => s.startMs));
    const ends = new Set(segments.map((s) => s.endMs));
    // A moment's times are its claim's first and last word's (this meeting's words carry times).
    const wordStarts = new Set([...starts, ...segments.flatMap((s) => (s.words ?? []).map((w) => w.s))]);
    const wordEnds = new Set([...ends, ...segments.flatMap((s) => (s.words ?? []).map((w) => w.e))]);
    expect(chapters.length).to.be.at.least(1);
    expect(chapters[0]!.startMs).to.equal(segments[0]!.startMs);
    expect(chapters[chapters.length - 1]!.endMs).to.equal(Math.max(...segments.map((s) => s.endMs)));
    for (const [i, c] of chapters.entries()) {
      expect(c.generated).to.equal(true);
      expect(starts.has(c.startMs)).to.equal(true);
      if (i + 1 < chapters.length) expect(c.endMs).to.equal(chapters[i + 1]!.startMs);
      expect(c.title.length).to.be.within(3, MAX_TITLE_CHARS);
      expect(c.moments.length).to.be.within(1, 3);
      for (const m of c.moments) {
        expect(MOMENT_TYPES).to.include(m.type);
        expect(wordStarts.has(m.startMs) && wordEnds.has(m.endMs!)).to.equal(true);
      }
    }
    expect(first.keyphrases.length).to.be.at.least(3);
  });

  it('embeds only a sample of each chapter and its title candidates, never the speech passages', async function () {
    const episode = cutEpisode('ep_is1001a');
    asked.length = 0;
    const { chapters } = await enrichTranscript({ segments: episode.transcript!.segments, language: 'en' }, { embed });
    expect(asked.length).to.be.at.most(11 * chapters.length);
    const passages = buildPassages({ ...episode, chapters: [] })
      .filter((p) => p.kind === 'transcript')
      .map((p) => p.text);
    expect(passages.some((p) => asked.includes(p))).to.equal(false);
  });
});
