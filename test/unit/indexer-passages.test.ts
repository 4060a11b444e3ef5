import { expect } from 'chai';
import { buildPassages, chapterBoundaries, mainSpeakers, packAtoms, sentenceMarks, shortHash, type Passage } from '../../core/passages/passages.js';
import type { ChapterRecord, EpisodeRecord, SegmentRecord } from '../../core/library/checks.js';

const S = 1000;

/** A segment of `n` one-second words from `start` (seconds); a sentence ends at each index in `ends` (and the last word). */
function worded(start: number, n: number, { speaker = 'A', ends = [] as number[] } = {}): SegmentRecord {
  const words = Array.from({ length: n }, (_, i) => ({
    t: `w${start + i}${ends.includes(i) || i === n - 1 ? '.' : ''}`,
    s: (start + i) * S,
    e: (start + i + 1) * S,
  }));
  return { speakerLabel: speaker, startMs: start * S, endMs: (start + n) * S, text: words.map((w) => w.t).join(' '), words };
}

/** A segment without words, [start, end) in seconds. */
function plain(start: number, end: number, text: string, speaker: string | null = 'A'): SegmentRecord {
  return { speakerLabel: speaker, startMs: start * S, endMs: end * S, text };
}

function episode(segments: SegmentRecord[], chapters: ChapterRecord[] = []): Pick<EpisodeRecord, 'id' | 'transcript' | 'chapters'> {
  return { id: 'ep1', transcript: { formatVersion: 1, segments }, chapters };
}

const spans = (ps: Passage[]) => ps.filter((p) => p.kind === 'transcript').map((p) => [p.startMs, p.endMs]);

describe('buildPassages', function () {
  it('merges short segments into passages that close at the first segment end after 40 s', function () {
    const segs = Array.from({ length: 10 }, (_, i) => plain(i * 10, i * 10 + 10, `Segment ${i}.`));
    const ps = buildPassages(episode(segs));
    expect(spans(ps)).to.deep.equal([
      [0, 40_000],
      [40_000, 80_000],
      [80_000, 100_000],
    ]);
    expect(ps[0]!.text).to.equal('Segment 0. Segment 1. Segment 2. Segment 3.');
    expect(ps.map((p) => p.id)).to.deep.equal(['ep1:t:0', 'ep1:t:40000', 'ep1:t:80000']);
  });

  it('merges a last passage shorter than 20 s into the one before when the result fits 60 s', function () {
    const segs = [...Array.from({ length: 5 }, (_, i) => plain(i * 10, i * 10 + 10, `Part ${i}.`)), plain(50, 55, 'The end.')];
    expect(spans(buildPassages(episode(segs)))).to.deep.equal([[0, 55_000]]);
  });

  it('sets the speaker only when every merged segment has that one speaker', function () {
    const segs = [plain(0, 10, 'One.', 'Ann'), plain(10, 20, 'Two.', 'Ann'), plain(20, 30, 'Three.', 'Ann'), plain(30, 40, 'Four.', 'Ann')];
    segs.push(plain(40, 50, 'Five.', 'Ann'), plain(50, 60, 'Six.', 'Bob'), plain(60, 70, 'Seven.', 'Ann'), plain(70, 80, 'Eight.', 'Ann'));
    segs.push(plain(80, 100, 'Nine.', null), plain(100, 120, 'Ten.', null));
    const ps = buildPassages(episode(segs));
    expect(ps.map((p) => [p.startMs, p.speaker])).to.deep.equal([
      [0, 'Ann'],
      [40_000, null],
      [80_000, null],
    ]);
  });

  it('lists as main speakers everyone holding at least a quarter of the speech time, in order of first speech', function () {
    // One 40 s passage: Bob 4 s, Ann 20 s, Cy 10 s, unlabelled 6 s (Cy: 10 of 34 labelled seconds).
    const segs = [plain(0, 4, 'Yeah.', 'Bob'), plain(4, 24, 'Long answer.', 'Ann'), plain(24, 30, 'Mumble.', null), plain(30, 40, 'Reply.', 'Cy')];
    const [p] = buildPassages(episode(segs));
    expect(p!.endMs).to.equal(40_000);
    expect(p!.speaker).to.equal(null);
    expect(p!.mainSpeakers).to.deep.equal(['Ann', 'Cy']);
  });

  it('gives each passage its own main speakers, and none to unlabelled speech', function () {
    const segs = [plain(0, 40, 'Opening.', 'Ann'), plain(40, 80, 'Answer.', 'Bob'), plain(80, 85, 'Thanks.', 'Ann')];
    expect(buildPassages(episode(segs)).map((p) => [p.startMs, p.speaker, p.mainSpeakers])).to.deep.equal([
      [0, 'Ann', ['Ann']],
      [40_000, null, ['Bob']],
    ]);
    expect(buildPassages(episode([plain(0, 30, 'Nobody known.', null)]))[0]!.mainSpeakers).to.deep.equal([]);
  });

  it('weighs speakers by time, not by turns', function () {
    expect(
      mainSpeakers([
        { speaker: 'Ann', s: 0, e: 1000 },
        { speaker: 'Bob', s: 1000, e: 40_000 },
        { speaker: 'Ann', s: 40_000, e: 41_000 },
      ]),
    ).to.deep.equal(['Bob']);
    expect(
      mainSpeakers(
        [
          { speaker: 'Ann', s: 0, e: 1000 },
          { speaker: 'Bob', s: 1000, e: 4000 },
        ],
        0.2,
      ),
    ).to.deep.equal(['Ann', 'Bob']);
    expect(mainSpeakers([{ speaker: ' ', s: 0, e: 1000 }])).to.deep.equal([]);
  });

  it('splits a long worded segment at the first sentence end after 40 s, on word timings', function () {
    const ps = buildPassages(episode([worded(0, 100, { ends: [9, 19, 29, 39, 49, 59, 69, 79, 89] })]));
    expect(spans(ps)).to.deep.equal([
      [0, 40_000],
      [40_000, 80_000],
      [80_000, 100_000],
    ]);
    expect(ps[1]!.text.split(' ')[0]).to.equal('w40');
    expect(ps[1]!.text.split(' ').at(-1)).to.equal('w79.');
  });

  it('cuts a run with no sentence end at 60 s', function () {
    expect(spans(buildPassages(episode([worded(0, 90)])))).to.deep.equal([
      [0, 60_000],
      [60_000, 90_000],
    ]);
  });

  it('cuts back to the last sentence end leaving at least 20 s when 60 s would be exceeded', function () {
    expect(spans(buildPassages(episode([worded(0, 70, { ends: [24] })])))).to.deep.equal([
      [0, 25_000],
      [25_000, 70_000],
    ]);
  });

  it('splits a long segment without words on sentence boundaries, timing sentences by character length', function () {
    const sentences = ['We sold every crop.', 'Rain came in March.', 'Farmers paid twice.', 'The loans grew too.', 'Nobody saw it come.', 'Then the banks left.'];
    const text = sentences.join(' ');
    expect(text.length).to.equal(120); // 1 character = 1 s over [0, 120 s]
    const ps = buildPassages(episode([plain(0, 120, text, 'Host')]));
    expect(spans(ps)).to.deep.equal([
      [0, 59_000],
      [60_000, 120_000],
    ]);
    expect(ps[0]!.text).to.equal('We sold every crop. Rain came in March. Farmers paid twice.');
    expect(ps[0]!.speaker).to.equal('Host');
  });

  it('never lets a passage cross a chapter start or end, splitting a segment on its words', function () {
    const chapters: ChapterRecord[] = [
      { title: 'Intro', startMs: 0, endMs: 25_000, moments: [] },
      { title: 'Main', startMs: 25_000, endMs: 100_000, moments: [] },
    ];
    const ps = buildPassages(episode([worded(0, 10), worded(10, 10), worded(20, 10), worded(30, 70, { ends: [9, 19, 29, 39, 49, 59] })], chapters));
    const transcript = ps.filter((p) => p.kind === 'transcript');
    expect(transcript.map((p) => [p.startMs, p.endMs, p.chapterTitle])).to.deep.equal([
      [0, 25_000, 'Intro'],
      [25_000, 70_000, 'Main'],
      [70_000, 100_000, 'Main'],
    ]);
    expect(transcript[0]!.text.split(' ').at(-1)).to.equal('w24');
    expect(transcript[1]!.text.split(' ')[0]).to.equal('w25');
  });

  it('treats every start and end of overlapping chapters as a boundary and names the innermost chapter', function () {
    const chapters: ChapterRecord[] = [
      { title: 'Budget', startMs: 0, endMs: 60_000, moments: [] },
      { title: 'Staffing', startMs: 30_000, endMs: 90_000, moments: [] },
    ];
    expect(chapterBoundaries(chapters)).to.deep.equal([0, 30_000, 60_000, 90_000]);
    const segs = Array.from({ length: 12 }, (_, i) => plain(i * 10, i * 10 + 10, `Point ${i}.`));
    const ps = buildPassages(episode(segs, chapters)).filter((p) => p.kind === 'transcript');
    expect(ps.map((p) => [p.startMs, p.endMs, p.chapterTitle])).to.deep.equal([
      [0, 30_000, 'Budget'],
      [30_000, 60_000, 'Staffing'],
      [60_000, 90_000, 'Staffing'],
      [90_000, 120_000, null],
    ]);
  });

  it('adds one passage per chapter title and per key-moment title at its start time', function () {
    const chapters: ChapterRecord[] = [
      {
        title: 'Why farm loans fail',
        startMs: 0,
        endMs: 50_000,
        moments: [
          { type: 'insight', title: 'Debt waivers reward the lender, not the farmer', startMs: 12_000, endMs: 20_000 },
          { type: 'quote', title: 'Land you cannot sell is not an asset', startMs: 30_000 },
        ],
      },
    ];
    const ps = buildPassages(episode([plain(0, 50, 'Talk.')], chapters)).filter((p) => p.kind !== 'transcript');
    expect(ps).to.deep.equal([
      {
        id: `ep1:c:0:${shortHash('Why farm loans fail')}`,
        kind: 'chapter',
        text: 'Why farm loans fail',
        startMs: 0,
        endMs: 50_000,
        speaker: null,
        mainSpeakers: [],
        chapterTitle: 'Why farm loans fail',
        generatedContext: null,
        momentType: null,
        marks: [],
      },
      {
        id: `ep1:m:12000:${shortHash('insight\nDebt waivers reward the lender, not the farmer')}`,
        kind: 'moment',
        text: 'Debt waivers reward the lender, not the farmer',
        startMs: 12_000,
        endMs: 20_000,
        speaker: null,
        mainSpeakers: [],
        chapterTitle: 'Why farm loans fail',
        generatedContext: null,
        momentType: 'insight',
        marks: [],
      },
      {
        id: `ep1:m:30000:${shortHash('quote\nLand you cannot sell is not an asset')}`,
        kind: 'moment',
        text: 'Land you cannot sell is not an asset',
        startMs: 30_000,
        endMs: 30_000,
        speaker: null,
        mainSpeakers: [],
        chapterTitle: 'Why farm loans fail',
        generatedContext: null,
        momentType: 'quote',
        marks: [],
      },
    ]);
  });

  it('gives the same passages and ids for the same input, and unique ids', function () {
    const chapters: ChapterRecord[] = [
      { title: 'A', startMs: 0, endMs: 50_000, moments: [] },
      { title: 'A', startMs: 0, endMs: 50_000, moments: [] },
    ];
    const input = episode([worded(0, 50, { ends: [9, 29] }), plain(50, 80, 'More talk. And more.')], chapters);
    const first = buildPassages(input);
    expect(buildPassages(structuredClone(input))).to.deep.equal(first);
    const ids = first.map((p) => p.id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.filter((id) => id.includes(':c:'))).to.deep.equal([`ep1:c:0:${shortHash('A')}`, `ep1:c:0:${shortHash('A')}~2`]);
  });

  it('skips segments without text and episodes without a transcript', function () {
    expect(buildPassages(episode([plain(0, 5, '   '), plain(5, 30, 'Only this.')])).map((p) => p.text)).to.deep.equal(['Only this.']);
    expect(buildPassages({ id: 'ep2', transcript: null, chapters: null })).to.deep.equal([]);
  });
});

describe('packAtoms', function () {
  const opts = { minMs: 20_000, targetMs: 40_000, maxMs: 60_000 };
  const atom = (s: number, e: number, sentenceEnd = true) => ({ s: s * S, e: e * S, sentenceEnd });

  it('keeps a single atom longer than the maximum as its own group', function () {
    expect(packAtoms([atom(0, 10), atom(10, 90), atom(90, 100)], opts).map((g) => g.length)).to.deep.equal([1, 1, 1]);
  });

  it('returns no groups for no atoms', function () {
    expect(packAtoms([], opts)).to.deep.equal([]);
  });
});

describe('passage marks (where a citation may begin)', function () {
  /** Pairs of a flat marks array. */
  const pairs = (flat: number[]) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

  it('marks every sentence of a timed segment at its first word', function () {
    const seg = worded(10, 6, { ends: [1, 3] }); // "w10 w11. w12 w13. w14 w15."
    expect(sentenceMarks(seg.text, seg.words!, seg.startMs, seg.endMs)).to.deep.equal([
      [0, 10_000],
      [seg.text.indexOf('w12'), 12_000],
      [seg.text.indexOf('w14'), 14_000],
    ]);
  });

  it('shares times out by character length when a segment has no word timings', function () {
    const text = 'One two three. Four five six.';
    const marks = sentenceMarks(text, [], 0, 29_000);
    expect(marks.map(([c]) => c)).to.deep.equal([0, text.indexOf('Four')]);
    expect(marks[1]![1]).to.equal(text.indexOf('Four') * 1000);
  });

  it('gives every passage its turn and sentence starts as offsets into its own text', function () {
    const [p] = buildPassages(episode([plain(0, 10, 'Hello there. How are you?'), plain(10, 20, 'Fine.', 'B'), plain(20, 45, 'Good to hear.')]));
    expect(p!.text).to.equal('Hello there. How are you? Fine. Good to hear.');
    const marks = pairs(p!.marks);
    expect(marks.map(([c]) => p!.text.slice(c!, c! + 4))).to.deep.equal(['Hell', 'How ', 'Fine', 'Good']);
    expect(marks.map(([, ms]) => ms)).to.deep.equal([0, Math.round((10_000 * 13) / 25), 10_000, 20_000]);
  });

  it('marks sentence starts of a long segment split word by word, and opens each passage at its start', function () {
    const ps = buildPassages(episode([worded(0, 100, { ends: [9, 19, 29, 39, 49, 59, 69, 79, 89] })])).filter((x) => x.kind === 'transcript');
    expect(ps.length).to.be.greaterThan(1);
    for (const p of ps) {
      const marks = pairs(p.marks);
      expect(marks[0]).to.deep.equal([0, p.startMs]);
      for (const [c, ms] of marks.slice(1)) {
        // Every later mark sits on a word that follows a sentence end, at that word's time.
        expect(p.text.slice(0, c)).to.match(/\. $/);
        expect(ms).to.equal(Number(/^w(\d+)/.exec(p.text.slice(c))![1]) * 1000);
      }
    }
    expect(ps.flatMap((p) => pairs(p.marks)).length).to.equal(10);
  });
});
