import { expect } from 'chai';
import { GAP_FEATURES, gapFeatureRows } from '../../pipeline/enrich/boundary-model.js';
import { BOUNDARY_DECODING, BOUNDARY_MODEL } from '../../pipeline/enrich/boundary-weights.js';
import {
  blocksOf,
  depthScores,
  hasCue,
  learnedProbabilities,
  pickBoundaries,
  pickByProbability,
  segmentTranscript,
  spansFromStarts,
  startsOf,
} from '../../pipeline/enrich/segment.js';
import { fitLogistic } from '../../scripts/eval/segmentation-train.js';
import type { ChapterSpan } from '../../pipeline/enrich/segment.js';
import { DEFAULT_CHAPTER_BOUNDS, type EnrichSegment } from '../../pipeline/enrich/types.js';
import { cutEpisode, hashEmbed } from './enrich-fixture.js';

const MIN = 60_000;

/** The invariants every generated chapter list keeps. */
function expectCovering(chapters: readonly ChapterSpan[], segments: readonly EnrichSegment[]): void {
  const starts = new Set(segments.map((s) => s.startMs));
  expect(chapters[0]!.first).to.equal(0);
  expect(chapters[0]!.startMs).to.equal(segments[0]!.startMs);
  for (const [i, c] of chapters.entries()) {
    expect(starts.has(c.startMs), `chapter ${i} starts on a segment start`).to.equal(true);
    expect(c.startMs).to.equal(segments[c.first]!.startMs);
    expect(c.endMs).to.be.greaterThan(c.startMs);
    if (i + 1 < chapters.length) {
      expect(c.endMs, `chapter ${i} ends where the next starts`).to.equal(chapters[i + 1]!.startMs);
      expect(c.last + 1).to.equal(chapters[i + 1]!.first);
    }
  }
  expect(chapters[chapters.length - 1]!.endMs).to.equal(Math.max(...segments.map((s) => s.endMs)));
  expect(chapters[chapters.length - 1]!.last).to.equal(segments.length - 1);
}

describe('segmentTranscript', function () {
  for (const id of ['ep_bdb001', 'ep_es2010a', 'ep_education-19']) {
    it(`cuts ${id} into ordered chapters that start on segment starts and cover the speech without overlap`, async function () {
      const segments = cutEpisode(id).transcript!.segments;
      const { chapters } = await segmentTranscript(segments, hashEmbed());
      // At most 20 minutes a chapter: a longer meeting has several.
      const minutes = (segments[segments.length - 1]!.endMs - segments[0]!.startMs) / MIN;
      expect(chapters.length).to.be.at.least(Math.ceil(minutes / 21));
      expectCovering(chapters, segments);
    });
  }

  it('keeps every chapter within the bounds it is given', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    const bounds = { minMs: 3 * MIN, maxMs: 12 * MIN, singleBelowMs: 3 * MIN };
    const { chapters } = await segmentTranscript(segments, hashEmbed(), { bounds });
    expectCovering(chapters, segments);
    for (const c of chapters) {
      expect(c.endMs - c.startMs).to.be.at.least(bounds.minMs);
      expect(c.endMs - c.startMs).to.be.at.most(bounds.maxMs + MIN); // a boundary falls on a passage start, up to a passage later
    }
  });

  it('gives speech under three minutes one chapter', async function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments.filter((s) => s.endMs < 150_000);
    const { chapters } = await segmentTranscript(segments, hashEmbed());
    expect(chapters).to.have.length(1);
    expectCovering(chapters, segments);
  });

  it('gives the same chapters for the same transcript', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    const a = await segmentTranscript(segments, hashEmbed());
    const b = await segmentTranscript(segments, hashEmbed());
    expect(b.chapters).to.deep.equal(a.chapters);
  });

  it('embeds each speech passage once when cohesion of vectors is asked for, and nothing by default or for an empty transcript', async function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const embed = hashEmbed();
    const { blocks } = await segmentTranscript(segments, embed, { semanticShare: 0.5 });
    expect(embed.texts).to.equal(blocks.length);
    const lexical = hashEmbed();
    await segmentTranscript(segments, lexical);
    expect(lexical.texts).to.equal(0);
    const none = hashEmbed();
    expect((await segmentTranscript([], none, { semanticShare: 0.5 })).chapters).to.deep.equal([]);
    expect(none.texts).to.equal(0);
  });
});

describe('segmentation parts', function () {
  it('blocks start on segment starts and follow each other', function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const blocks = blocksOf(segments);
    for (const [i, b] of blocks.entries()) {
      expect(b.startMs).to.equal(segments[b.first]!.startMs);
      if (i > 0) expect(b.first).to.be.at.least(blocks[i - 1]!.first);
    }
  });

  it('scores a valley by how far it lies below the peaks on either side', function () {
    expect(depthScores([1, 0.5, 1])).to.deep.equal([0, 1, 0]);
    expect(depthScores([1, 0.8, 0.4, 0.9, 0.7])[2]).to.be.closeTo(0.6 + 0.5, 1e-9);
  });

  it('recognises agenda words and transitions', function () {
    expect(hasCue('Okay, moving on to the budget.')).to.equal(true);
    expect(hasCue('The next item on the agenda is the remote.')).to.equal(true);
    expect(hasCue('I like the yellow one.')).to.equal(false);
  });

  it('picks the strongest gaps, never two closer than the minimum, and cuts what is too long', function () {
    const blocks = Array.from({ length: 40 }, (_, i) => ({ first: i, last: i, startMs: i * MIN, endMs: (i + 1) * MIN, text: '' }));
    const scores = blocks.map((_, g) => (g === 10 ? 5 : g === 11 ? 4.9 : g === 30 ? 4 : 0));
    const picked = pickBoundaries(blocks, scores, { minMs: 3 * MIN, maxMs: 20 * MIN, targetMs: 10 * MIN, threshold: 1, endMs: 40 * MIN });
    expect(picked).to.include(10).and.include(30).and.not.include(11);
    const edges = [0, ...picked.map((g) => g * MIN), 40 * MIN];
    for (let i = 1; i < edges.length; i++)
      expect(edges[i]! - edges[i - 1]!)
        .to.be.at.most(20 * MIN)
        .and.at.least(3 * MIN);
  });

  it('turns boundary segment indexes into spans ending where the next begins', function () {
    const segments = [0, 10, 20, 30].map((s) => ({ startMs: s * 1000, endMs: s * 1000 + 9000, text: 'x', speakerLabel: null }));
    expect(spansFromStarts(segments, [2])).to.deep.equal([
      { first: 0, last: 1, startMs: 0, endMs: 20_000 },
      { first: 2, last: 3, startMs: 20_000, endMs: 39_000 },
    ]);
  });
});

/** A talk of `topics.length` subjects, `minutesEach` minutes each, in 20-second turns of two speakers, words drawn in turn from each subject's list. */
function syntheticTalk(topics: readonly string[][], minutesEach: number, glue: string): EnrichSegment[] {
  const out: EnrichSegment[] = [];
  const perTopic = (minutesEach * 60) / 20;
  topics.forEach((words, t) => {
    for (let i = 0; i < perTopic; i++) {
      const pick = [0, 1, 2, 3, 4].map((j) => words[(i * 3 + j * 5) % words.length]!);
      const startMs = (t * perTopic + i) * 20_000;
      out.push({ startMs, endMs: startMs + 19_000, speakerLabel: i % 2 === 0 ? 'Ana' : 'Luis', text: `${glue} ${pick.join(' ')}. ${pick.reverse().join(' ')}.` });
    }
  });
  return out;
}

describe('learned boundaries', function () {
  it('describes every gap between passages with one finite row of the shipped model’s features', function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const blocks = blocksOf(segments);
    const rows = gapFeatureRows(segments, blocks);
    expect(rows).to.have.length(blocks.length - 1);
    for (const row of rows) {
      expect(row).to.have.length(GAP_FEATURES.length);
      for (const v of row) expect(Number.isFinite(v)).to.equal(true);
    }
    expect(BOUNDARY_MODEL.features).to.deep.equal([...GAP_FEATURES]);
    for (const list of [BOUNDARY_MODEL.mean, BOUNDARY_MODEL.sd, BOUNDARY_MODEL.weights]) expect(list).to.have.length(GAP_FEATURES.length);
  });

  it('takes the likeliest gaps first, keeps them apart, stops at the hourly budget and still cuts what is too long', function () {
    const blocks = Array.from({ length: 60 }, (_, i) => ({ first: i, last: i, startMs: i * MIN, endMs: (i + 1) * MIN, text: '' }));
    const probabilities = blocks.map((_, g) => (g === 10 ? 0.9 : g === 12 ? 0.85 : g === 30 ? 0.8 : g === 31 ? 0.7 : 0.05));
    const picked = pickByProbability(blocks, probabilities, { minMs: 2 * MIN, maxMs: 25 * MIN, endMs: 60 * MIN, minProbability: 0.5, perHour: 2, spacingMs: 5 * MIN });
    expect(picked.slice(0, 2)).to.deep.equal([10, 30]);
    const edges = [0, ...picked.map((g) => g * MIN), 60 * MIN];
    for (let i = 1; i < edges.length; i++) expect(edges[i]! - edges[i - 1]!).to.be.at.most(25 * MIN);
    expect(picked).to.not.include(12).and.not.include(31);
  });

  it('finds the changes of subject of a Spanish talk from its words', async function () {
    const topics = [
      'presupuesto impuestos deuda banco dinero inflación gasto crédito ahorro interés'.split(' '),
      'partido equipo gol portero entrenador liga estadio jugadores árbitro campeonato'.split(' '),
      'receta cocina harina horno azúcar mantequilla masa pastel chocolate canela'.split(' '),
    ];
    const segments = syntheticTalk(topics, 12, 'bueno, pues');
    const { chapters } = await segmentTranscript(segments, hashEmbed(), { language: 'es' });
    expectCovering(chapters, segments);
    for (const change of [12 * MIN, 24 * MIN]) {
      const nearest = Math.min(...chapters.slice(1).map((c) => Math.abs(c.startMs - change)));
      expect(nearest, `a chapter starts near minute ${change / MIN}`).to.be.at.most(MIN);
    }
  });

  it('cuts by default exactly where the training script measures the shipped model and decoding', async function () {
    for (const id of ['ep_bdb001', 'ep_education-19']) {
      const segments = cutEpisode(id).transcript!.segments;
      const blocks = blocksOf(segments);
      const endMs = Math.max(...segments.map((s) => s.endMs));
      const bounds = DEFAULT_CHAPTER_BOUNDS;
      const picked = pickByProbability(blocks, learnedProbabilities(segments, blocks), { minMs: bounds.minMs, maxMs: bounds.maxMs, endMs, ...BOUNDARY_DECODING });
      const { chapters } = await segmentTranscript(segments, hashEmbed());
      expect(chapters.slice(1).map((c) => c.first)).to.deep.equal(startsOf(segments, blocks, picked, bounds.minMs));
    }
  });

  it('counts the speaker features of a transcript without speaker labels as average, and still cuts it', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments.map((s) => ({ ...s, speakerLabel: null }));
    const blocks = blocksOf(segments);
    const rows = gapFeatureRows(segments, blocks);
    const speakerFeatures = ['spkGap2', 'spkGap4', 'spkDepth4', 'speakerChange', 'spkGap8', 'leadOpen', 'leadShare'];
    for (const row of rows) GAP_FEATURES.forEach((f, j) => expect(Number.isNaN(row[j]!), f).to.equal(speakerFeatures.includes(f)));
    const neutral = { ...BOUNDARY_MODEL, weights: BOUNDARY_MODEL.weights.map((w, j) => (speakerFeatures.includes(GAP_FEATURES[j]!) ? 0 : w)) };
    const probabilities = learnedProbabilities(segments, blocks).filter(Number.isFinite);
    expect(probabilities).to.deep.equal(learnedProbabilities(segments, blocks, undefined, neutral).filter(Number.isFinite));
    const { chapters } = await segmentTranscript(segments, hashEmbed());
    expect(chapters.length).to.be.greaterThan(1);
    expectCovering(chapters, segments);
  });

  it('gives the same probabilities for the same transcript', function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    const blocks = blocksOf(segments);
    expect(learnedProbabilities(segments, blocks)).to.deep.equal(learnedProbabilities(segments, blocks));
  });
});

describe('boundary model training', function () {
  it('fits a large weight to a feature that marks the boundaries and a small one to noise', function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const blocks = blocksOf(segments);
    const labels = Array.from({ length: 600 }, (_, i) => (i % 7 === 3 ? 1 : 0));
    // Feature 0 carries the label (with some overlap), the others are deterministic noise.
    const noise = (i: number, j: number) => {
      const x = Math.sin(i * 12.9898 + j * 78.233) * 43758.5453;
      return x - Math.floor(x);
    };
    const rows = labels.map((y, i) => GAP_FEATURES.map((_, j) => (j === 0 ? y + noise(i, 99) : noise(i, j))));
    const meeting = { id: 'x', split: 'train', channel: 'c', segments, blocks, rows, valid: rows.map(() => true), labels, reference: [] };
    const model = fitLogistic([meeting]);
    expect(model.weights[0]!).to.be.greaterThan(1);
    for (const w of model.weights.slice(1)) expect(Math.abs(w)).to.be.lessThan(model.weights[0]! / 3);
  });
});
