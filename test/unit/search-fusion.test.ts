import { expect } from 'chai';
import { convexFusion, minMaxScores, reciprocalRankFusion } from '../../core/search/fusion.js';
import { absorbChapterHits, groupByEpisode } from '../../core/search/group.js';
import { episodeHits, passageHits } from '../support/search-fixtures.js';

describe('reciprocal rank fusion', function () {
  it('scores a hit as the sum over legs of weight / (k + rank)', function () {
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('a@e1', 'b@e1') },
        { name: 'semantic', hits: passageHits('b@e1', 'c@e2') },
      ],
      { k: 60, weights: { keyword: 2 } },
    );
    const b = fused.find((h) => h.id === 'b')!;
    expect(b.fusedScore).to.be.closeTo(2 / 62 + 1 / 61, 1e-12);
    expect(b.legs).to.deep.equal({ keyword: { rank: 2, score: 9 }, semantic: { rank: 1, score: 10 } });
  });

  it('ranks a hit found by both legs above one found first by either', function () {
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('only-kw@e1', 'both@e2') },
        { name: 'semantic', hits: passageHits('only-sem@e3', 'both@e2') },
      ],
      { k: 60 },
    );
    expect(fused.map((h) => h.id)).to.deep.equal(['both', 'only-kw', 'only-sem']);
  });

  it('leaves out a leg weighing 0', function () {
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('a@e1') },
        { name: 'semantic', hits: passageHits('b@e1') },
      ],
      { k: 60, weights: { semantic: 0 } },
    );
    expect(fused.map((h) => h.id)).to.deep.equal(['a']);
  });

  it('never merges a passage with an episode of the same id, and breaks ties by best rank then id', function () {
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('x@x', 'z@e2') },
        { name: 'title', hits: episodeHits('x', 'y') },
      ],
      { k: 60 },
    );
    expect(fused.map((h) => `${h.type}:${h.id}`)).to.deep.equal(['episode:x', 'passage:x', 'episode:y', 'passage:z']);
  });
});

describe('groupByEpisode', function () {
  const fuse = (k = 60) =>
    reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('a1@A', 'a2@A', 'a3@A', 'a4@A', 'b1@B', 'c1@C') },
        { name: 'semantic', hits: passageHits('b1@B', 'a1@A') },
        { name: 'title', hits: episodeHits('D') },
      ],
      { k },
    );

  it('keeps at most maxSegments passages per episode, best first', function () {
    const groups = groupByEpisode(fuse(), 10, 3);
    const a = groups.find((g) => g.episodeId === 'A')!;
    expect(a.passages.map((p) => p.id)).to.deep.equal(['a1', 'a2', 'a3']);
  });

  it('orders episodes by their best passage plus any title match, and honours the limit', function () {
    const groups = groupByEpisode(fuse(), 3);
    expect(groups.map((g) => g.episodeId)).to.deep.equal(['A', 'B', 'D']);
    expect(groups[0]!.score).to.be.closeTo(1 / 61 + 1 / 62, 1e-12);
    const d = groupByEpisode(fuse(), 10).find((g) => g.episodeId === 'D')!;
    expect(d.passages).to.have.length(0);
    expect(d.title?.id).to.equal('D');
  });
});

describe('groupByEpisode citations', function () {
  it('keeps one passage per start time, so no two segments cite the same moment', function () {
    const hits = passageHits('chapter@A', 'speech@A', 'later@A').map((h, i) => ({ ...h, startMs: [5000, 5000, 9000][i]! }));
    const [group] = groupByEpisode(reciprocalRankFusion([{ name: 'keyword', hits }], { k: 60 }), 10);
    expect(group!.passages.map((p) => p.id)).to.deep.equal(['chapter', 'later']);
  });
});

describe('convex fusion of normalized scores', function () {
  const legs = (kw: Array<[string, number]>, sem: Array<[string, number]>) => [
    { name: 'keyword' as const, hits: kw.map(([id, score], i) => ({ type: 'passage' as const, id, episodeId: 'e1', startMs: i, rank: i + 1, score })) },
    { name: 'semantic' as const, hits: sem.map(([id, score], i) => ({ type: 'passage' as const, id, episodeId: 'e1', startMs: i, rank: i + 1, score })) },
  ];

  it('min-max maps each leg onto [0, 1] and adds the weighted values', function () {
    expect(minMaxScores([12, 7, 2])).to.deep.equal([1, 0.5, 0]);
    expect(minMaxScores([3])).to.deep.equal([1]);
    const fused = convexFusion(
      legs(
        [
          ['a', 12],
          ['b', 7],
          ['c', 2],
        ],
        [
          ['b', 0.9],
          ['a', 0.5],
        ],
      ),
      { weights: { keyword: 0.4, semantic: 0.6 } },
    );
    const by = Object.fromEntries(fused.map((h) => [h.id, h.fusedScore]));
    expect(by.a).to.be.closeTo(0.4, 1e-12);
    expect(by.b).to.be.closeTo(0.2 + 0.6, 1e-12);
    expect(fused.map((h) => h.id)).to.deep.equal(['b', 'a', 'c']);
  });

  it('keeps a leg’s margin that rank fusion throws away', function () {
    // Keyword is sure of x (far ahead); semantic barely prefers y. RRF ties them; min-max follows the margin.
    const l = legs(
      [
        ['x', 30],
        ['y', 5],
        ['z', 4],
      ],
      [
        ['y', 0.81],
        ['x', 0.8],
        ['z', 0.5],
      ],
    );
    expect(
      reciprocalRankFusion(l, { k: 60 })
        .map((h) => h.fusedScore)
        .slice(0, 2),
    ).to.satisfy(([a, b]: number[]) => Math.abs(a! - b!) < 1e-12);
    expect(convexFusion(l)[0]!.id).to.equal('x');
  });
});

describe('chapter hits handed to the speech inside them', function () {
  const hit = (id: string, kind: 'transcript' | 'chapter', startMs: number, endMs: number, fusedScore: number, leg: 'keyword' | 'semantic' = 'keyword') => ({
    type: 'passage' as const,
    id,
    episodeId: 'e1',
    startMs,
    endMs,
    kind,
    rank: 1,
    score: 1,
    fusedScore,
    legs: { [leg]: { rank: 1, score: 1 } },
  });

  it('adds a chapter title hit to the best speech passage inside its chapter, which then stands for it', function () {
    const out = absorbChapterHits([
      hit('chapter', 'chapter', 60_000, 300_000, 0.03),
      hit('outside', 'transcript', 0, 40_000, 0.02),
      hit('inside', 'transcript', 120_000, 160_000, 0.01, 'semantic'),
      hit('later-inside', 'transcript', 200_000, 240_000, 0.005),
    ]);
    expect(out.map((h) => h.id)).to.deep.equal(['inside', 'outside', 'later-inside']);
    expect(out[0]!.fusedScore).to.be.closeTo(0.04, 1e-12);
    expect(Object.keys(out[0]!.legs).sort()).to.deep.equal(['keyword', 'semantic']);
  });

  it('with keepChapters, keeps the chapter hit right after the passage that now carries it', function () {
    const out = absorbChapterHits([hit('chapter', 'chapter', 60_000, 300_000, 0.03), hit('inside', 'transcript', 120_000, 160_000, 0.01)], { keepChapters: true });
    expect(out.map((h) => [h.id, Number(h.fusedScore.toFixed(3))])).to.deep.equal([
      ['inside', 0.04],
      ['chapter', 0.03],
    ]);
  });

  it('cites a short chapter (two minutes or less) as it is', function () {
    const out = absorbChapterHits([hit('step', 'chapter', 60_000, 150_000, 0.03), hit('inside', 'transcript', 70_000, 100_000, 0.01)]);
    expect(out.map((h) => h.id)).to.deep.equal(['step', 'inside']);
  });

  it('keeps a chapter hit with no speech passage of its chapter among the hits', function () {
    const out = absorbChapterHits([hit('chapter', 'chapter', 60_000, 300_000, 0.03), hit('outside', 'transcript', 0, 40_000, 0.02)]);
    expect(out.map((h) => h.id)).to.deep.equal(['chapter', 'outside']);
  });
});
