import { expect } from 'chai';
import { evenSubset, judge, landing, meanLanding, meanScores, overlaps, parseQueries, scopedEpisodes } from '../../scripts/eval/relevance.js';

const seg = (startMs: number, endMs: number, episodeId = 'ep') => ({ episodeId, startMs, endMs });

describe('relevance measures', function () {
  it('scopes a query to the distinct episodes of its answers, or to nothing for channel-wide search', function () {
    const q = { id: 'q', channel: 'c', query: 'x', relevant: [seg(0, 10, 'a'), seg(20, 30, 'b'), seg(40, 50, 'a')] };
    expect(scopedEpisodes(q, 'episode')).to.deep.equal(['a', 'b']);
    expect(scopedEpisodes(q, 'channel')).to.equal(undefined);
  });

  it('counts a segment relevant when it overlaps a relevant range of the same episode', function () {
    expect(overlaps(seg(0, 10), seg(5, 20))).to.equal(true);
    expect(overlaps(seg(0, 5), seg(5, 20))).to.equal(false);
    expect(overlaps(seg(7, 7), seg(5, 20))).to.equal(true);
    expect(overlaps(seg(0, 10, 'other'), seg(5, 20))).to.equal(false);
  });

  it('gives 1 to a list with the only relevant moment on top, and discounts it lower down', function () {
    expect(judge([seg(0, 10), seg(100, 110)], [seg(5, 8)])).to.deep.equal({ ndcg: 1, recall: 1, rr: 1, precision: 0.1, episodeRr: 1 });
    const second = judge([seg(100, 110), seg(0, 10)], [seg(5, 8)]);
    expect(second.ndcg).to.be.closeTo(1 / Math.log2(3), 1e-12);
    expect(second.rr).to.equal(0.5);
  });

  it('credits each relevant range once, so repeated slices of one moment do not inflate the score', function () {
    const s = judge([seg(0, 10), seg(10, 20), seg(200, 210)], [seg(0, 30), seg(200, 300)]);
    expect(s.recall).to.equal(1);
    const ideal = 1 + 1 / Math.log2(3);
    expect(s.ndcg).to.be.closeTo((1 + 1 / Math.log2(4)) / ideal, 1e-12);
  });

  it('looks at the top k only', function () {
    const list = [...Array.from({ length: 10 }, (_, i) => seg(1000 + i, 1001 + i)), seg(0, 10)];
    // The episode is found at once (every segment is of it); the moment is not in the top 10.
    expect(judge(list, [seg(0, 10)], 10)).to.deep.equal({ ndcg: 0, recall: 0, rr: 0, precision: 0, episodeRr: 1 });
  });

  it('counts P@k over the top k segments and episode MRR over the episodes in the order shown', function () {
    const list = [seg(0, 10, 'x'), seg(20, 30, 'x'), seg(0, 10), seg(50, 60), seg(500, 510)];
    const s = judge(list, [seg(0, 100)], 5);
    expect([s.precision, s.episodeRr, s.rr]).to.deep.equal([2 / 5, 1 / 2, 1 / 3]);
  });

  it('averages scores, parses query lines and picks an even subset', function () {
    expect(
      meanScores([
        { ndcg: 1, recall: 0, rr: 1, precision: 0.2, episodeRr: 1 },
        { ndcg: 0, recall: 1, rr: 0, precision: 0, episodeRr: 0.5 },
      ]),
    ).to.deep.equal({ ndcg: 0.5, recall: 0.5, rr: 0.5, precision: 0.1, episodeRr: 0.75 });
    const qs = parseQueries('{"id":"q1","channel":"c","query":"x","relevant":[]}\n\n');
    expect(qs).to.have.length(1);
    expect(() => parseQueries('{"id":1}')).to.throw(/line 1/);
    expect(evenSubset([1, 2, 3, 4, 5, 6], 3)).to.deep.equal([1, 3, 5]);
  });
});

describe('landing of the top citation', function () {
  it('lands when the first segment overlaps the answer and starts at most 5 s before it', function () {
    expect(landing([seg(98_000, 130_000)], [seg(100_000, 200_000)])).to.deep.equal({ overlap: true, landed: true, offsetMs: -2000 });
    expect(landing([seg(150_000, 160_000)], [seg(100_000, 200_000)])).to.deep.equal({ overlap: true, landed: true, offsetMs: 50_000 });
  });

  it('overlaps without landing when the citation starts long before the answer', function () {
    expect(landing([seg(60_000, 120_000)], [seg(100_000, 200_000)])).to.deep.equal({ overlap: true, landed: false, offsetMs: -40_000 });
  });

  it('measures the offset to the nearest answer of the cited episode, and none for another episode', function () {
    expect(landing([seg(0, 10_000)], [seg(30_000, 40_000), seg(90_000, 99_000)])).to.deep.equal({ overlap: false, landed: false, offsetMs: -30_000 });
    expect(landing([seg(0, 10_000, 'other')], [seg(0, 10_000)])).to.deep.equal({ overlap: false, landed: false, offsetMs: null });
    expect(landing([], [seg(0, 10_000)])).to.deep.equal({ overlap: false, landed: false, offsetMs: null });
  });

  it('averages shares and takes the median absolute offset', function () {
    const m = meanLanding([
      { overlap: true, landed: true, offsetMs: -1000 },
      { overlap: true, landed: false, offsetMs: -30_000 },
      { overlap: false, landed: false, offsetMs: 5000 },
      { overlap: false, landed: false, offsetMs: null },
    ]);
    expect(m).to.deep.equal({ overlap1: 0.5, landing1: 0.25, medianOffsetMs: 5000 });
  });
});
