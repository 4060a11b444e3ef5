import { expect } from 'chai';
import { parseSegmentSettings } from '../../scripts/eval/segmentation-run.js';
import { defaultK, equalStarts, partsOf, pk, referenceStarts, windowDiff } from '../../scripts/eval/segmentation.js';

describe('Pk and WindowDiff', function () {
  it('numbers the parts of a segmentation', function () {
    expect(partsOf(6, [2, 4])).to.deep.equal([0, 0, 1, 1, 2, 2]);
    expect(partsOf(4, [0, 2, 2, 9])).to.deep.equal([0, 0, 1, 1]);
  });

  it('are 0 for the reference itself and count disagreements of hand-worked cases', function () {
    expect(pk(10, [5], [5], 2)).to.equal(0);
    expect(windowDiff(10, [5], [5], 2)).to.equal(0);
    // Reference cut at 5, none hypothesised, k 2: pairs (3,5) and (4,6) straddle the cut -> 2 of 8.
    expect(pk(10, [5], [], 2)).to.equal(2 / 8);
    expect(windowDiff(10, [5], [], 2)).to.equal(2 / 8);
    // Hypothesis one unit late (6): Pk pairs (3,5) agree? ref differ, hyp same -> wrong; (5,7): ref same, hyp differ -> wrong.
    expect(pk(10, [5], [6], 2)).to.equal(2 / 8);
    // Two hypothesised cuts inside one window: Pk sees "different part" either way, WindowDiff counts them.
    expect(pk(10, [5], [4, 5], 2)).to.be.lessThan(windowDiff(10, [5], [4, 5], 2));
  });

  it('takes k as half the mean reference part length', function () {
    expect(defaultK(100, [25, 50, 75])).to.equal(13);
    expect(defaultK(4, [])).to.equal(2);
  });

  it('places equal parts and reads reference starts from chapter times', function () {
    expect(equalStarts(10, 2)).to.deep.equal([5]);
    expect(equalStarts(9, 3)).to.deep.equal([3, 6]);
    expect(referenceStarts([0, 10, 20, 30], [0, 15, 20, 20])).to.deep.equal([2]);
  });
});

describe('segmenter settings of the eval', function () {
  it('reads the method, the learned decoding knobs and the bounds, and refuses an unknown method or setting', function () {
    expect(parseSegmentSettings('method=depth window=8 perHour=2 baseCount=1 maxMs=1800000')).to.deep.equal({
      method: 'depth',
      window: 8,
      perHour: 2,
      baseCount: 1,
      bounds: { maxMs: 1_800_000 },
    });
    expect(() => parseSegmentSettings('method=neural')).to.throw(/learned or depth/);
    expect(() => parseSegmentSettings('depth=3')).to.throw(/unknown segmenter setting/);
  });
});
