import { expect } from 'chai';
import { buildEpisodeQuery, EPISODE_LEG_MIN_MS, episodePriors } from '../../core/search/episode-leg.js';
import { reciprocalRankFusion } from '../../core/search/fusion.js';
import { groupByEpisode } from '../../core/search/group.js';
import type { SearchParams } from '../../core/search/types.js';
import { passageHits } from '../support/search-fixtures.js';

const scores = [
  { episodeId: 'A', rank: 1, score: 12 },
  { episodeId: 'B', rank: 2, score: 8 },
  { episodeId: 'C', rank: 3, score: 4 },
];

describe('episode leg priors', function () {
  it('gives weight × the min-max normalised score under minmax fusion, weight / (k + rank) under rrf', function () {
    expect([...episodePriors(scores, { weight: 0.3, fusion: 'minmax', k: 60 })]).to.deep.equal([
      ['A', 0.3],
      ['B', 0.15],
      ['C', 0],
    ]);
    const rrf = episodePriors(scores, { weight: 0.5, fusion: 'rrf', k: 60 });
    expect(rrf.get('B')).to.be.closeTo(0.5 / 62, 1e-12);
  });

  it('gives nothing at weight 0', function () {
    expect(episodePriors(scores, { weight: 0, fusion: 'minmax', k: 60 }).size).to.equal(0);
  });

  it('raises the episodes found and forms no group for an episode only the leg ranked', function () {
    // B's passage is ahead of A's; A's prior puts A first; C, ranked by the episode leg alone, is not shown.
    const fused = reciprocalRankFusion([{ name: 'keyword', hits: passageHits('b1@B', 'a1@A') }], { k: 60 });
    expect(groupByEpisode(fused, 10, 3).map((g) => g.episodeId)).to.deep.equal(['B', 'A']);
    const priors = new Map([
      ['A', 0.01],
      ['C', 1],
    ]);
    const groups = groupByEpisode(fused, 10, 3, priors);
    expect(groups.map((g) => g.episodeId)).to.deep.equal(['A', 'B']);
    expect(groups[0]!.score).to.be.closeTo(1 / 62 + 0.01, 1e-12);
  });
});

describe('buildEpisodeQuery', function () {
  const params = (extra: Partial<SearchParams> = {}): SearchParams => ({ query: 'how do we fund the reading room', fast: false, limit: 10, publishedOnly: true, ...extra });
  const filters = (body: ReturnType<typeof buildEpisodeQuery>) => (body.query as { bool: { filter: [{ bool: { filter: unknown[] } }] } }).bool.filter[0].bool.filter;

  it("matches the query's words without its framing against long episodes' speech, in the channel, published only", function () {
    const body = buildEpisodeQuery(params({ episodeIds: ['e1', 'e1'] }), { id: 'ch1' });
    expect((body.query as { bool: { must: unknown[] } }).bool.must).to.deep.equal([{ match: { speech: { query: 'fund the reading room' } } }]);
    expect(filters(body)).to.deep.equal([
      { term: { channelId: 'ch1' } },
      { term: { archived: false } },
      { range: { speechMs: { gte: EPISODE_LEG_MIN_MS } } },
      { term: { status: 'published' } },
      { terms: { episodeId: ['e1'] } },
    ]);
    expect(body).to.include({ size: 20, stored_fields: '_none_' });
    expect(body.docvalue_fields, 'the id from doc values: no stored field is read').to.deep.equal(['episodeId']);
  });

  it("searches a channel in another language in that language's sub-field", function () {
    const body = buildEpisodeQuery(params({ query: 'canciones' }), { id: 'ch1', language: 'es' }, { minMs: 0 });
    expect((body.query as { bool: { must: unknown[] } }).bool.must).to.deep.equal([{ match: { 'speech.es': { query: 'canciones' } } }]);
    expect(filters(body)).to.not.deep.include({ range: { speechMs: { gte: EPISODE_LEG_MIN_MS } } });
  });
});
