import { expect } from 'chai';
import { citedSpan } from '../../src/search/result.js';
import { buildWindowKnnQuery, toWindowPassageHits, windowsIndexName } from '../../src/search/window-query.js';
import type { RawHit } from '../../src/search/msearch.js';
import { CHANNEL, params, passage } from '../support/search-fixtures.js';

function windowHit(passageId: string, score: number, startMs: number, offset: number): RawHit {
  return {
    _id: `${passageId}:w:${offset}`,
    _score: score,
    fields: { passageId: [passageId], episodeId: ['ep_1'], passageStartMs: [1000], passageEndMs: [41_000], startMs: [startMs], offset: [offset] },
  };
}

describe('sentence-window leg', function () {
  it('names the windows index of a prefix outside the prefix itself', function () {
    expect(windowsIndexName('eval-qmsum-')).to.equal('win-eval-qmsum-windows');
  });

  it('filters inside the knn clause and returns doc values only', function () {
    const body = buildWindowKnnQuery([0.1], params({ year: 2020 }), CHANNEL, 300);
    const knn = (body.query as { knn: { embedding: { k: number; filter: { bool: { filter: unknown[] } } } } }).knn.embedding;
    expect(knn.k).to.equal(300);
    expect(knn.filter.bool.filter).to.deep.include({ term: { year: 2020 } });
    expect(body).to.include({ size: 300, _source: false });
  });

  it('scores each passage by its best window, ranks passages from 1 and keeps at most `candidates`', function () {
    const { hits, anchors } = toWindowPassageHits([windowHit('p1', 0.9, 16_000, 200), windowHit('p2', 0.8, 1000, 0), windowHit('p1', 0.7, 1000, 0), windowHit('p3', 0.6, 5000, 50)], 2);
    expect(hits.map((h) => [h.id, h.rank, h.score])).to.deep.equal([
      ['p1', 1, 0.9],
      ['p2', 2, 0.8],
    ]);
    expect(hits[0]).to.include({ type: 'passage', kind: 'transcript', startMs: 1000, endMs: 41_000, episodeId: 'ep_1' });
    expect(anchors.get('p1')).to.deep.equal({ offset: 200, ms: 16_000 });
    expect(anchors.has('p3')).to.equal(false);
  });

  it('keeps the kind of a title window', function () {
    const chapter = windowHit('c1', 0.9, 0, 0);
    chapter.fields!.kind = ['chapter'];
    expect(toWindowPassageHits([chapter], 10).hits[0]).to.include({ id: 'c1', kind: 'chapter' });
  });

  it('cites a passage from its window start when asked, as a fallback only when no query term matched', function () {
    const text = 'First sentence here. The answer is in this one.';
    const p = passage('p1', 'ep_1', { text, startMs: 1000, endMs: 41_000, marks: [0, 1000, 21, 16_000], matches: [] });
    const at = { offset: 21, ms: 16_000 };
    expect(citedSpan(p, {}, { at, use: 'fallback' })).to.include({ startMs: 16_000, text: 'The answer is in this one.' });
    // A matched term decides in fallback mode; `prefer` takes the window anyway.
    const matched = { ...p, matches: [{ start: 0, end: 5 }] };
    expect(citedSpan(matched, {}, { at, use: 'fallback' }).startMs).to.equal(1000);
    expect(citedSpan(matched, {}, { at, use: 'prefer' }).startMs).to.equal(16_000);
  });
});
