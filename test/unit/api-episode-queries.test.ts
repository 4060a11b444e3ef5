import { expect } from 'chai';
import { STATUS_VIEWS, buildEpisodeListBody, buildRelatedBody, sortClause } from '../../src/store/episode-queries.js';
import type { ChannelDoc } from '../../core/store/documents.js';

const channel: ChannelDoc = { id: 'ch_1', slug: 'one', title: 'One', providerType: 'rss', ownerId: 'u_o', memberIds: ['u_o'], customDomain: null };

describe('episode list and related: request bodies', function () {
  it('maps the status views to stored statuses as decision 1 says', function () {
    expect(STATUS_VIEWS).to.deep.equal({
      all: undefined,
      queued: ['pending'],
      indexing: ['processing'],
      live: ['indexed', 'published'],
      failed: ['failed'],
    });
  });

  it('sorts by the field, nulls last, then by id as the unique tie-breaker', function () {
    expect(sortClause('popular')).to.deep.equal([{ viewCount: { order: 'desc', missing: Number.MIN_SAFE_INTEGER } }, { id: { order: 'asc' } }]);
    expect(sortClause('oldest')).to.deep.equal([{ publishedAt: { order: 'asc', missing: Number.MAX_SAFE_INTEGER } }, { id: { order: 'asc' } }]);
  });

  it('filters by channel, excludes archived rows, narrows by view and facets, and pages with search_after', function () {
    const body = buildEpisodeListBody({
      channel,
      status: 'live',
      publishedOnly: false,
      filters: { topicIds: ['t1', 't2'], personIds: ['p1'], year: 2020, collectionId: 'c1', episodeIds: ['e1'] },
      sort: 'newest',
      searchAfter: [5, 'ep_5'],
      size: 21,
    }) as { query: { bool: { filter: unknown[]; must_not: unknown[] } }; search_after: unknown; size: number };
    const json = JSON.stringify(body.query);
    expect(body.query.bool.filter).to.deep.include({ term: { channelId: 'ch_1' } });
    expect(body.query.bool.filter).to.deep.include({ terms: { status: ['indexed', 'published'] } });
    expect(body.query.bool.filter).to.deep.include({ terms: { topicIds: ['t1', 't2'] } });
    expect(body.query.bool.filter).to.deep.include({ terms: { personIds: ['p1'] } });
    expect(body.query.bool.filter).to.deep.include({ terms: { id: ['e1'] } });
    expect(body.query.bool.filter).to.deep.include({ term: { year: 2020 } });
    expect(body.query.bool.filter).to.deep.include({ term: { collectionIds: 'c1' } });
    expect(json).to.include('archived');
    expect(body.search_after).to.deep.equal([5, 'ep_5']);
    expect(body.size).to.equal(21);
  });

  it('adds no status filter for the all view, and published only for anonymous reads', function () {
    const all = JSON.stringify(buildEpisodeListBody({ channel, status: 'all', publishedOnly: false, filters: {}, sort: 'newest', size: 5 }));
    expect(all).not.to.include('"status":[');
    const anon = JSON.stringify(buildEpisodeListBody({ channel, status: 'all', publishedOnly: true, filters: {}, sort: 'newest', size: 5 }));
    expect(anon).to.include('"status":"published"');
  });

  it('scores related episodes by shared topics, one point each, published only, never the episode itself', function () {
    const body = buildRelatedBody({ channel, episodeId: 'ep_1', topicIds: ['t1', 't2', 't1'] }) as {
      size: number;
      query: { bool: { should: unknown[]; filter: unknown[]; must_not: unknown[]; minimum_should_match: number } };
      sort: unknown[];
    };
    expect(body.size).to.equal(10);
    expect(body.query.bool.should).to.have.length(2);
    expect(body.query.bool.should[0]).to.deep.equal({ constant_score: { filter: { term: { topicIds: 't1' } }, boost: 1 } });
    expect(body.query.bool.minimum_should_match).to.equal(1);
    expect(body.query.bool.filter).to.deep.include({ term: { status: 'published' } });
    expect(body.query.bool.must_not).to.deep.include({ term: { id: 'ep_1' } });
    expect(body.sort).to.deep.equal([{ _score: 'desc' }, { publishedAt: { order: 'desc' } }, { id: 'asc' }]);
  });

  it('has no related query for an episode without topics', function () {
    expect(buildRelatedBody({ channel, episodeId: 'ep_1', topicIds: [] })).to.equal(null);
  });
});
