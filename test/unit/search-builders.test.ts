import { expect } from 'chai';
import { buildFilters } from '../../core/store/filters.js';
import { buildKeywordQuery, keywordText } from '../../core/search/keyword-query.js';
import { buildKnnQuery } from '../../core/search/knn-query.js';
import { buildMsearchBody } from '../../core/search/msearch.js';
import { CHANNEL, params } from '../support/search-fixtures.js';

type Bool = { bool: { filter: Record<string, unknown>[]; must_not: Record<string, unknown>[] } };

describe('search builders', function () {
  describe('buildFilters', function () {
    it('always scopes to the channel and excludes archived episodes by flag and by status', function () {
      const f = buildFilters(params(), CHANNEL) as Bool;
      expect(f.bool.filter).to.deep.equal([{ term: { channelId: 'ch_demo' } }, { term: { archived: false } }]);
      expect(f.bool.must_not).to.deep.equal([{ term: { status: 'archived' } }]);
    });

    it('keeps every non-archived status unless the read is anonymous', function () {
      expect(JSON.stringify(buildFilters(params(), CHANNEL))).not.to.contain('published');
      const f = buildFilters(params({ publishedOnly: true }), CHANNEL) as Bool;
      expect(f.bool.filter).to.deep.include({ term: { status: 'published' } });
    });

    it('ORs within a facet list and ANDs across parameters', function () {
      const f = buildFilters(params({ topicIds: ['tp_a', 'tp_b', 'tp_a'], personIds: ['pe_x'], entityIds: ['en_1'], collectionId: 'cl_1', year: 2021 }), CHANNEL) as Bool;
      expect(f.bool.filter).to.deep.include({ terms: { topicIds: ['tp_a', 'tp_b'] } });
      expect(f.bool.filter).to.deep.include({ terms: { personIds: ['pe_x'] } });
      expect(f.bool.filter).to.deep.include({ terms: { entityIds: ['en_1'] } });
      expect(f.bool.filter).to.deep.include({ term: { collectionIds: 'cl_1' } });
      expect(f.bool.filter).to.deep.include({ term: { year: 2021 } });
    });

    it('scopes episodeIds on the field of the target index, and ignores an empty list', function () {
      const passages = buildFilters(params({ episodeIds: ['ep_1'] }), CHANNEL) as Bool;
      const episodes = buildFilters(params({ episodeIds: ['ep_1'] }), CHANNEL, { episodeIdField: 'id' }) as Bool;
      expect(passages.bool.filter).to.deep.include({ terms: { episodeId: ['ep_1'] } });
      expect(episodes.bool.filter).to.deep.include({ terms: { id: ['ep_1'] } });
      expect((buildFilters(params({ topicIds: [] }), CHANNEL) as Bool).bool.filter).to.have.length(2);
    });
  });

  describe('buildKeywordQuery', function () {
    it('searches passage text, chapter titles and main speakers, and episode titles (boosted), summaries and chapter/moment titles', function () {
      const q = buildKeywordQuery(params({ episodeIds: ['ep_1'] }), CHANNEL, { candidates: 100 });
      const text = JSON.stringify(q.passages);
      expect(q.passages.size).to.equal(100);
      expect(text).to.contain('"fields":["text","chapterTitle","mainSpeakers"]');
      expect(JSON.stringify(q.episodes)).to.contain('"fields":["title^3","summary","description","chapterTitles","momentTitles"]');
      expect(JSON.stringify(q.episodes)).to.contain('{"terms":{"id"').and.not.to.contain('episodeId');
    });

    it('ranks on doc values and never fetches the stored source (embedding included) unless asked', function () {
      const q = buildKeywordQuery(params(), CHANNEL, { candidates: 100 });
      expect(q.passages._source).to.equal(false);
      expect(q.passages.docvalue_fields).to.deep.equal(['episodeId', 'startMs', 'endMs', 'kind', 'sourceHash']);
      const withText = buildKeywordQuery(params(), CHANNEL, { candidates: 100 }, { withText: true });
      const source = withText.passages._source as { includes: string[]; excludes: string[] };
      expect(source.includes).to.include.members(['id', 'episodeId', 'text', 'startMs', 'endMs', 'speaker', 'kind']).and.not.include('embedding');
      // Named as excluded, so an index with derived vectors does not rebuild them for the read.
      expect(source.excludes).to.deep.equal(['embedding']);
      expect(buildKnnQuery([1], params(), CHANNEL, 10)._source).to.equal(false);
    });

    it('takes tuned fields and match type', function () {
      const q = buildKeywordQuery(params(), CHANNEL, { candidates: 20 }, { passageFields: ['text^2'], type: 'cross_fields' });
      expect(JSON.stringify(q.passages)).to.contain('"fields":["text^2"],"type":"cross_fields"');
      expect(JSON.stringify(buildKeywordQuery(params(), CHANNEL, { candidates: 20 }).passages)).to.contain('"type":"most_fields"');
    });
  });

  describe('buildKnnQuery', function () {
    it('puts the filter inside the knn clause (efficient filtering), not in a post-filter', function () {
      const body = buildKnnQuery([0.1, 0.2], params({ year: 2020 }), CHANNEL, 50);
      const knn = (body.query as { knn: { embedding: { vector: number[]; k: number; filter: Bool } } }).knn.embedding;
      expect(knn.k).to.equal(50);
      expect(knn.vector).to.deep.equal([0.1, 0.2]);
      expect(knn.filter.bool.filter).to.deep.include({ term: { year: 2020 } });
      expect(body).not.to.have.property('post_filter');
      expect(body.size).to.equal(50);
    });
  });

  describe('buildMsearchBody', function () {
    it('interleaves a header naming the index with each body', function () {
      expect(
        buildMsearchBody([
          { index: 'a', body: { size: 1 } },
          { index: 'b', body: { size: 2 } },
        ]),
      ).to.deep.equal([{ index: 'a' }, { size: 1 }, { index: 'b' }, { size: 2 }]);
    });
  });
});

describe('keywordText', function () {
  it('leaves a question’s framing out of the keyword query, unless nothing else is left', function () {
    expect(keywordText('how do farmers keep soil healthy')).to.equal('farmers keep soil healthy');
    expect(keywordText('What did Kirsty Williams say about school meals?')).to.equal('Kirsty Williams say about school meals?');
    expect(keywordText('how do I')).to.equal('how do I');
  });

  it('is what the keyword leg matches when asked to drop framing', function () {
    const q = buildKeywordQuery(params({ query: 'how do farmers keep soil healthy' }), CHANNEL, { candidates: 10 }, { dropFraming: true });
    expect(JSON.stringify(q.passages.query)).to.contain('"query":"farmers keep soil healthy"');
  });
});
