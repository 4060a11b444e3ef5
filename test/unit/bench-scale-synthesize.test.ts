import { expect } from 'chai';
import { noisyUnitVector, planChannels, recallAt, seededRandom } from '../../scripts/bench/scale-synthesize.js';

describe('bench:scale synthesis', function () {
  const unit = (n: number, random: () => number) => {
    const v = Array.from({ length: n }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

  it('derives a unit vector that stays close to its real source but is not a copy of it', function () {
    const random = seededRandom(7);
    const base = unit(384, random);
    const copy = noisyUnitVector(base, 0.3, random);
    const other = noisyUnitVector(base, 0.3, random);
    expect(Math.hypot(...copy)).to.be.closeTo(1, 1e-5);
    expect(dot(copy, base)).to.be.closeTo(1 / Math.sqrt(1 + 0.3 ** 2), 0.02);
    expect(dot(copy, other)).to.be.below(0.97);
  });

  it('plans channels that add up exactly to the next store size, numbered on from the existing ones', function () {
    const random = seededRandom(1);
    const first = planChannels(0, 100_000, random, { min: 200, max: 20_000, firstN: 0 });
    const more = planChannels(100_000, 300_000, random, { min: 200, max: 20_000, firstN: first.length });
    expect(first.reduce((s, c) => s + c.size, 0)).to.equal(100_000);
    expect(more.reduce((s, c) => s + c.size, 0)).to.equal(200_000);
    expect(more[0]!.n).to.equal(first.length);
    expect(Math.max(...first.map((c) => c.size))).to.be.at.most(20_000);
    expect(new Set(first.map((c) => c.size)).size).to.be.above(first.length / 2); // mixed sizes
  });

  it('gives the same library for the same seed', function () {
    const plan = (seed: number) => planChannels(0, 50_000, seededRandom(seed), { min: 200, max: 20_000, firstN: 0 });
    expect(plan(3)).to.deep.equal(plan(3));
    expect(plan(3)).to.not.deep.equal(plan(4));
  });

  it('counts recall@10 as the share of the exact top 10 found', function () {
    const exact = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    expect(recallAt(exact, exact)).to.equal(1);
    expect(recallAt(['a', 'b', 'x', 'y', 'z', 'c', 'd', 'e', 'f', 'g'], exact)).to.equal(0.7);
  });
});
