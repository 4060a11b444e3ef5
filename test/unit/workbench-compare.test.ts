// The workbench's pure parts: how alike two rankings are (Jaccard, RBO), what moved, and judgments in the eval's format.
import { expect } from 'chai';
import { jaccard, movements, rbo } from '../../scripts/eval/workbench/compare.js';
import { applyJudgment } from '../../scripts/eval/workbench/judgments.js';

describe('workbench: comparing rankings', function () {
  it('gives Jaccard and RBO of 1 for the same list, 0 for disjoint lists, and RBO weighs the top more', function () {
    expect([jaccard(['a', 'b'], ['b', 'a']), rbo(['a', 'b', 'c'], ['a', 'b', 'c'])]).to.deep.equal([1, 1]);
    expect([jaccard(['a'], ['b']), rbo(['a', 'b'], ['c', 'd'])]).to.deep.equal([0, 0]);
    expect(jaccard([], [])).to.equal(1);
    // The same swap costs more at the top than at the bottom.
    const top = rbo(['a', 'b', 'c', 'd', 'e'], ['b', 'a', 'c', 'd', 'e']);
    const bottom = rbo(['a', 'b', 'c', 'd', 'e'], ['a', 'b', 'c', 'e', 'd']);
    expect(top).to.be.below(bottom).and.below(1);
    // Agreement 0 at depth 1 and 1 at depth 2: ((1-p)/p)·(0·p + 1·p²) + 1·p² = p, with p 0.9.
    expect(rbo(['a', 'b'], ['b', 'a'])).to.be.closeTo(0.9, 1e-12);
  });

  it('says for each hit of B whether it is the same, moved (by how many places) or new, and what of A is gone', function () {
    expect(movements(['a', 'b', 'c'], ['b', 'a', 'd'])).to.deep.equal({ b: [{ kind: 'moved', by: 1 }, { kind: 'moved', by: -1 }, { kind: 'new' }], gone: ['c'] });
  });
});

describe('workbench: judgments', function () {
  const set = [{ id: 'q1', channel: 'c', query: 'soil', relevant: [{ episodeId: 'e', startMs: 10_000, endMs: 100_000 }] }];

  it('adds a relevant segment as a range unless a range already holds its start', function () {
    const added = applyJudgment(set, { query: { id: 'q1', channel: 'c', query: 'soil' }, segment: { episodeId: 'f', startMs: 0, endMs: 5000 }, relevant: true });
    expect(added.queries[0]!.relevant).to.deep.equal([
      { episodeId: 'e', startMs: 10_000, endMs: 100_000 },
      { episodeId: 'f', startMs: 0, endMs: 5000 },
    ]);
    const inside = applyJudgment(set, { query: { id: 'q1', channel: 'c', query: 'soil' }, segment: { episodeId: 'e', startMs: 20_000, endMs: 30_000 }, relevant: true });
    expect(inside.queries[0]!.relevant).to.deep.equal(set[0]!.relevant);
    expect(set[0]!.relevant, 'the input is not changed').to.have.length(1);
  });

  it('carves a segment judged not relevant out of the ranges it overlaps, and adds a typed query the set lacks', function () {
    const carved = applyJudgment(set, { query: { id: 'q1', channel: 'c', query: 'soil' }, segment: { episodeId: 'e', startMs: 40_000, endMs: 50_000 }, relevant: false });
    expect(carved.queries[0]!.relevant).to.deep.equal([
      { episodeId: 'e', startMs: 10_000, endMs: 40_000 },
      { episodeId: 'e', startMs: 50_000, endMs: 100_000 },
    ]);
    const typed = applyJudgment(set, { query: { channel: 'c', query: 'water' }, segment: { episodeId: 'e', startMs: 1000, endMs: 2000 }, relevant: true });
    expect(typed.id).to.equal('wb-2');
    expect(typed.queries.map((q) => q.query)).to.deep.equal(['soil', 'water']);
  });
});
