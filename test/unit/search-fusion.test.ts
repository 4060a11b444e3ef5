import { expect } from 'chai';
import { reciprocalRankFusion } from '../../src/search/fusion.js';
import { groupByEpisode } from '../../src/search/group.js';
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

  it('can add up the top passages instead', function () {
    const sum = groupByEpisode(fuse(), 10, 3, { episodeScore: 'sum' });
    const a = sum.find((g) => g.episodeId === 'A')!;
    expect(a.score).to.be.closeTo(1 / 61 + 1 / 62 + 1 / 62 + 1 / 63, 1e-12);
  });
});

describe('groupByEpisode citations', function () {
  it('keeps one passage per start time, so no two segments cite the same moment', function () {
    const hits = passageHits('chapter@A', 'speech@A', 'later@A').map((h, i) => ({ ...h, startMs: [5000, 5000, 9000][i]! }));
    const [group] = groupByEpisode(reciprocalRankFusion([{ name: 'keyword', hits }], { k: 60 }), 10);
    expect(group!.passages.map((p) => p.id)).to.deep.equal(['chapter', 'later']);
  });
});
