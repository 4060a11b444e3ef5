import { expect } from 'chai';
import { SearchError } from '../../core/search/errors.js';
import { readMsearchResponse } from '../../core/search/msearch.js';
import { createOpenSearchClient } from '../../core/store/opensearch.js';
import { runSearch } from '../../core/search/search.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { indexAliases } from '../../core/store/opensearch.js';
import { CHANNEL, params } from '../support/search-fixtures.js';

describe('the _msearch step', function () {
  it('returns the hits of every item in order', function () {
    const hits = readMsearchResponse(
      {
        responses: [
          { status: 200, hits: { hits: [{ _id: 'a', _score: 1 }] } },
          { status: 200, hits: { hits: [] } },
        ],
      },
      2,
    );
    expect(hits.map((h) => h.map((x) => x._id))).to.deep.equal([['a'], []]);
  });

  it('turns a failed item into a search_failed error, even though the request answered 200', function () {
    const body = {
      responses: [
        { status: 200, hits: { hits: [] } },
        { status: 400, error: { type: 'query_shard_exception', root_cause: [{ reason: 'failed to create query' }] } },
      ],
    };
    expect(() => readMsearchResponse(body, 2))
      .to.throw(SearchError, /search 2 of 2 failed: query_shard_exception: failed to create query/)
      .with.property('code', 'search_failed');
  });

  it('refuses an answer with a different number of items', function () {
    expect(() => readMsearchResponse({ responses: [] }, 1)).to.throw(SearchError);
  });

  it('answers a blank query with no episodes without touching OpenSearch or the embedder', async function () {
    // Nothing listens on port 1: any request would fail with a connection error.
    const client = createOpenSearchClient({ url: 'http://127.0.0.1:1' });
    const embedder = createHashEmbedder();
    const deps = {
      client,
      embedder,
      aliases: indexAliases('none-'),
      settings: {
        fusion: 'minmax' as const,
        rrfK: 60,
        keywordWeight: 1,
        semanticWeight: 1,
        episodeWeight: 0.3,
        chapterHits: 'lend' as const,
        candidates: 100,
        queryCacheSize: 10,
        queryCacheChannels: 1,
        hydrationCacheMb: 0,
      },
      channelSites: { baseDomain: 'b.test', scheme: 'https' as const, customDomains: true },
    };
    expect((await runSearch(deps, CHANNEL, params({ query: '   ' }))).result).to.deep.equal({ query: '', episodes: [] });
    expect(embedder.embeddedCount).to.equal(0);
    await client.close();
  });
});

describe('SearchError', function () {
  it('marks an overloaded engine or a missing index as unavailable (503), not as our bug', function () {
    const busy = () => readMsearchResponse({ responses: [{ status: 429, error: { type: 'es_rejected_execution_exception' } }] }, 1);
    expect(busy).to.throw(SearchError).with.property('code', 'store_unavailable');
    const missing = () => readMsearchResponse({ responses: [{ status: 404, error: { type: 'index_not_found_exception' } }] }, 1);
    expect(missing).to.throw(SearchError).with.property('status', 503);
  });
});
