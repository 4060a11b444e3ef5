import { expect } from 'chai';
import { checkRelated, topRelated, type RelatedInput } from '../../scripts/eval/related.js';

const ep = (id: string, topicIds: string[], collectionIds: string[] = [], publishedAt = '2024-01-01T00:00:00Z', channelId = 'ch'): RelatedInput => ({
  id,
  channelId,
  publishedAt,
  topicIds,
  collectionIds,
});

describe('the /related check of the eval', function () {
  it('ranks by shared topics, then newest, then id, within the channel', function () {
    const eps = [ep('a', ['x', 'y']), ep('b', ['x']), ep('c', ['x', 'y'], [], '2023-01-01T00:00:00Z'), ep('d', ['x', 'y'], [], '2024-01-01T00:00:00Z', 'other'), ep('e', ['z'])];
    const top = topRelated(eps);
    expect(top.get('a')).to.equal('c');
    expect(top.get('b')).to.equal('a');
    expect(top.get('e')).to.equal(undefined);
  });

  it('counts answered episodes and top related ones in the same collection, against chance', function () {
    const r = checkRelated([ep('a', ['x'], ['t1']), ep('b', ['x'], ['t1']), ep('c', ['q'], ['t2']), ep('d', [], ['t2'])]);
    expect(r.answered).to.equal(0.5);
    expect(r.sameCollection).to.equal(1);
    expect(r.sameCollectionByChance).to.be.closeTo(1 / 3, 1e-9);
  });
});
