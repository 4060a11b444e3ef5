import { expect } from 'chai';
import { GAP_FEATURES, SHORT_GAP_FEATURES, gapFeatureRows, shortGapFeatureRows } from '../../pipeline/enrich/boundary-model.js';
import { BOUNDARY_DECODING, BOUNDARY_MODEL } from '../../pipeline/enrich/boundary-weights.js';
import { depthScores, hasCue, opensStep } from '../../pipeline/enrich/cohesion.js';
import { SHORT_TALK_MODEL } from '../../pipeline/enrich/short-talk-weights.js';
import {
  blocksOf,
  learnedProbabilities,
  oneVoice,
  pickByProbability,
  segmentTranscript,
  shortTalkCut,
  spansFromStarts,
  startsOf,
  tocStarts,
  unitsOf,
} from '../../pipeline/enrich/segment.js';
import { pickBoundaries, segmentWithKnobs } from '../../scripts/eval/segmentation-knobs.js';
import { fitLogistic } from '../../scripts/eval/segmentation-train.js';
import type { ChapterSpan } from '../../pipeline/enrich/segment.js';
import { DEFAULT_CHAPTER_BOUNDS, minChapterMs, type EnrichSegment } from '../../pipeline/enrich/types.js';
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
      const chapters = segmentTranscript(segments);
      // At most 20 minutes a chapter: a longer meeting has several.
      const minutes = (segments[segments.length - 1]!.endMs - segments[0]!.startMs) / MIN;
      expect(chapters.length).to.be.at.least(Math.ceil(minutes / 21));
      expectCovering(chapters, segments);
    });
  }

  it('keeps every chapter within the bounds it is given', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    const bounds = { minMs: 3 * MIN, maxMs: 12 * MIN, singleBelowMs: 3 * MIN };
    const chapters = segmentTranscript(segments, { bounds });
    expectCovering(chapters, segments);
    for (const c of chapters) {
      expect(c.endMs - c.startMs).to.be.at.least(bounds.minMs);
      expect(c.endMs - c.startMs).to.be.at.most(bounds.maxMs + MIN); // a boundary falls on a passage start, up to a passage later
    }
  });

  it('gives speech under a minute and a half one chapter, a meeting’s or a tutorial’s', async function () {
    for (const segments of [cutEpisode('ep_es2010a').transcript!.segments.filter((s) => s.endMs < 85_000), tutorial(STEPS).filter((s) => s.endMs < 85_000)]) {
      const chapters = segmentTranscript(segments);
      expect(chapters).to.have.length(1);
      expectCovering(chapters, segments);
    }
  });

  it('gives the same chapters for the same transcript', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    expect(segmentTranscript(segments)).to.deep.equal(segmentTranscript(segments));
  });

  it('gives an empty transcript no chapters', function () {
    expect(segmentTranscript([])).to.deep.equal([]);
  });
});

describe('the evaluation’s dialled segmenter (scripts/eval/segmentation-knobs.ts)', function () {
  it('cuts as the product does with its default dials, meetings and short talks alike', async function () {
    for (const segments of [...['ep_bdb001', 'ep_es2010a', 'ep_education-19'].map((id) => cutEpisode(id).transcript!.segments), tutorial(STEPS)]) {
      const embed = hashEmbed();
      expect((await segmentWithKnobs(segments, embed)).chapters).to.deep.equal(segmentTranscript(segments));
      expect(embed.texts, 'no vectors asked for, none embedded').to.equal(0);
    }
  });

  it('embeds each speech passage once when cohesion of vectors is asked for, and nothing for an empty transcript', async function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const embed = hashEmbed();
    const { blocks, vectors } = await segmentWithKnobs(segments, embed, { method: 'depth', semanticShare: 0.5 });
    expect(embed.texts).to.equal(blocks.length);
    expect(vectors).to.have.length(blocks.length);
    const none = hashEmbed();
    expect((await segmentWithKnobs([], none, { semanticShare: 0.5 })).chapters).to.deep.equal([]);
    expect(none.texts).to.equal(0);
  });

  it('cuts a meeting by the older depth method into covering chapters within the bounds', async function () {
    const segments = cutEpisode('ep_bdb001').transcript!.segments;
    const { chapters } = await segmentWithKnobs(segments, hashEmbed(), { method: 'depth' });
    expectCovering(chapters, segments);
    for (const c of chapters) expect(c.endMs - c.startMs).to.be.at.least(DEFAULT_CHAPTER_BOUNDS.minMs);
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

/** Openers of the steps of {@link tutorial}, one per step in turn. */
const OPENERS = ['First, ', 'Next, ', "Now let's ", 'Then ', 'The next step is to ', 'Finally, '];

/** The words of six tutorial steps, one list each. */
const STEPS = [
  'layer mask gradient black white brush paint opacity hide reveal'.split(' '),
  'crop canvas ratio straighten rotate horizon frame border trim edge'.split(' '),
  'text font type size headline kerning tracking paragraph baseline glyph'.split(' '),
  'color hue saturation vibrance balance tint warmth curves levels tone'.split(' '),
  'export format quality resolution pixels file save compression jpeg folder'.split(' '),
  'filter blur sharpen noise grain lens vignette distort liquify smudge'.split(' '),
];

/**
 * A voice-over tutorial of one minute a step, in 6-second sentences without speaker labels: each step opens with a step
 * cue ("First,", "Next,", "Now let's") and its sentences use its own words, or all the first step's (`sameWords`).
 */
function tutorial(steps: readonly string[][], { sameWords = false } = {}): EnrichSegment[] {
  const out: EnrichSegment[] = [];
  steps.forEach((own, t) => {
    const words = sameWords ? steps[0]! : own;
    for (let i = 0; i < 10; i++) {
      const pick = [0, 1, 2, 3].map((j) => words[(i * 3 + j * 5) % words.length]!);
      const startMs = (t * 10 + i) * 6_000;
      out.push({
        startMs,
        endMs: startMs + 5_500,
        speakerLabel: null,
        text: `${i === 0 ? OPENERS[t % OPENERS.length] : 'I will '}${pick.join(' ')} with the ${pick[0]} ${pick[3]}.`,
      });
    }
  });
  return out;
}

describe('short talks', function () {
  it('cuts a 6-minute tutorial whose steps are cued into at least three chapters, each opening a step', async function () {
    const segments = tutorial(STEPS);
    const chapters = segmentTranscript(segments);
    expect(chapters.length).to.be.at.least(3);
    expectCovering(chapters, segments);
    for (const c of chapters.slice(1)) expect(c.startMs % 60_000, `chapter at ${c.startMs} ms starts a step`).to.equal(0);
  });

  it('gives a tutorial whose steps share their words three chapters on its step cues', async function () {
    const segments = tutorial(STEPS, { sameWords: true });
    const chapters = segmentTranscript(segments);
    expect(chapters.length).to.be.at.least(3);
    for (const c of chapters.slice(1)) expect(opensStep(segments[c.first]!.text)).to.equal(true);
    // Without the rule the words alone find no step.
    expect((await segmentWithKnobs(segments, hashEmbed(), { cuedSteps: 0 })).chapters).to.have.length(1);
  });

  it('keeps every chapter of a short talk at least a tenth of the talk long, and 30 s', async function () {
    for (const minutes of [2, 4, 6]) {
      const segments = tutorial(STEPS).filter((s) => s.endMs <= minutes * MIN);
      const chapters = segmentTranscript(segments);
      const min = minChapterMs(DEFAULT_CHAPTER_BOUNDS, segments.at(-1)!.endMs);
      for (const c of chapters) expect(c.endMs - c.startMs, `${minutes} minutes`).to.be.at.least(min);
    }
    expect([5, 10, 14, 15, 60].map((m) => minChapterMs(DEFAULT_CHAPTER_BOUNDS, m * MIN))).to.deep.equal([30_000, 60_000, 84_000, 2 * MIN, 2 * MIN]);
    expect(minChapterMs({ ...DEFAULT_CHAPTER_BOUNDS, minMs: 45_000 }, 10 * MIN), 'never above the configured minimum').to.equal(45_000);
  });

  it('keeps a 60-minute meeting’s bounds and chapters as they were before short talks had their own', async function () {
    expect(DEFAULT_CHAPTER_BOUNDS).to.include({ minMs: 2 * MIN, maxMs: 20 * MIN });
    expect(minChapterMs(DEFAULT_CHAPTER_BOUNDS, 60 * MIN)).to.equal(DEFAULT_CHAPTER_BOUNDS.minMs);
    // Chapter starts (segment indexes) of these meetings before the change (commit 9c05cb2).
    for (const [id, starts] of [
      ['ep_bdb001', [19, 195, 390, 590]],
      ['ep_es2010a', [9, 88]],
    ] as const) {
      const chapters = segmentTranscript(cutEpisode(id).transcript!.segments);
      expect(
        chapters.slice(1).map((c) => c.first),
        id,
      ).to.deep.equal(starts);
    }
  });

  it('keeps a short meeting cut in two as two chapters (the meetings’ model; the rule of three is the short talks’), and a short talk’s two as none', async function () {
    const topics = [
      'budget taxes debt bank money inflation spending credit savings interest'.split(' '),
      'match team goal keeper coach league stadium players referee championship'.split(' '),
    ];
    const segments = syntheticTalk(topics, 12, 'well, so');
    const cut = await segmentWithKnobs(segments, hashEmbed(), { toc: 0 });
    expect(cut.chapters).to.have.length(2);
    const chapters = segmentTranscript(segments);
    expect(chapters).to.have.length(2);
    expectCovering(chapters, segments);
    expect(oneVoice(segments)).to.equal(false);
    expect(oneVoice(tutorial(STEPS))).to.equal(true);
    // A short talk's starts as published: one start (two chapters) gives none, two or more are kept.
    expect(tocStarts([12])).to.deep.equal([]);
    expect(tocStarts([12, 30])).to.deep.equal([12, 30]);
  });

  it('cuts by default exactly where the short-talk training script measures the shipped model', async function () {
    const segments = tutorial(STEPS);
    const chapters = segmentTranscript(segments);
    expect(chapters.slice(1).map((c) => c.first)).to.deep.equal(tocStarts(shortTalkCut(segments, DEFAULT_CHAPTER_BOUNDS)));
    const rows = shortGapFeatureRows(segments, unitsOf(segments));
    expect(rows).to.have.length(segments.length - 1);
    for (const row of rows) for (const v of row) expect(Number.isFinite(v)).to.equal(true);
    expect(SHORT_TALK_MODEL.features).to.deep.equal([...SHORT_GAP_FEATURES]);
    for (const list of [SHORT_TALK_MODEL.mean, SHORT_TALK_MODEL.sd, SHORT_TALK_MODEL.weights]) expect(list).to.have.length(SHORT_GAP_FEATURES.length);
  });

  it('recognises a step cue where it opens a segment, after a lead-in, and nowhere else', function () {
    for (const text of ["Okay, so now let's add a mask.", 'Next, choose the brush.', 'To do that, click the icon.', 'And then drag it down.', 'First we crop.'])
      expect(opensStep(text), text).to.equal(true);
    for (const text of ["I'll then click the icon.", 'The next layer is hidden.', 'Click next to the eye.', 'Firstly-made layers stay.'])
      expect(opensStep(text), text).to.equal(false);
    expect(opensStep('Next, choose the brush.', 'sw'), 'a language without a list').to.equal(false);
  });
});

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
    const chapters = segmentTranscript(segments, { language: 'es' });
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
      const chapters = segmentTranscript(segments);
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
    const chapters = segmentTranscript(segments);
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
