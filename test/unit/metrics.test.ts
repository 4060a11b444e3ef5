import { expect } from 'chai';
import { createError, storeUnavailable } from '../../src/errors.js';
import { SearchError } from '../../core/search/errors.js';
import { createApiMetrics, routeLabel, statusClass } from '../../src/metrics/api-metrics.js';
import { storeErrorKind } from '../../src/metrics/store-errors.js';
import type { QueryVectorCache } from '../../core/embedding/query-cache.js';

/** What the OpenSearch client throws, by shape (its errors are recognised by name). */
const responseError = (statusCode: number, type: string) => Object.assign(new Error(type), { name: 'ResponseError', meta: { statusCode, body: { error: { type, reason: 'r' } } } });
const named = (name: string) => Object.assign(new Error(name), { name });

describe('metrics: store error kinds', function () {
  it('tells timeouts, lost connections, missing indices, overload, other outages and refused queries apart', function () {
    expect(storeErrorKind(named('TimeoutError'))).to.equal('timeout');
    expect(storeErrorKind(named('ConnectionError'))).to.equal('unreachable');
    expect(storeErrorKind(responseError(404, 'index_not_found_exception'))).to.equal('missing_index');
    expect(storeErrorKind(responseError(429, 'es_rejected_execution_exception'))).to.equal('overloaded');
    expect(storeErrorKind(responseError(503, 'unavailable_shards_exception'))).to.equal('unavailable');
    expect(storeErrorKind(responseError(400, 'parsing_exception'))).to.equal('rejected');
  });

  it('reads the cause of a 503 the API made, and the per-item errors of a search', function () {
    expect(storeErrorKind(storeUnavailable(named('TimeoutError')))).to.equal('timeout');
    expect(storeErrorKind(storeUnavailable(new Error('request time budget for the store is spent')))).to.equal('timeout');
    expect(storeErrorKind(storeUnavailable(new Error('{"type":"index_not_found_exception"}')))).to.equal('missing_index');
    expect(storeErrorKind(new SearchError('m', { type: 'index_not_found_exception' }, { itemStatus: 404 }))).to.equal('missing_index');
    expect(storeErrorKind(new SearchError('m', { type: 'query_shard_exception' }, { itemStatus: 400 }))).to.equal('rejected');
  });

  it('counts nothing for errors that are not the store’s', function () {
    expect(storeErrorKind(createError('invalid_parameter'))).to.equal(undefined);
    expect(storeErrorKind(new Error('bug'))).to.equal(undefined);
    expect(storeErrorKind(undefined)).to.equal(undefined);
  });
});

describe('metrics: request labels', function () {
  it('labels a request by its route template, or "unmatched", never by its raw path', function () {
    expect(routeLabel({ baseUrl: '', route: { path: '/api/v1/channels/:slug/search' } })).to.equal('/api/v1/channels/:slug/search');
    expect(routeLabel({})).to.equal('unmatched');
  });

  it('groups statuses by class', function () {
    expect([200, 202, 404, 429, 503].map(statusClass)).to.deep.equal(['2xx', '2xx', '4xx', '4xx', '5xx']);
  });
});

describe('metrics: read at scrape time', function () {
  it('reports the query-embedding pool’s queued and running jobs, and what the query cache counted since the last scrape', async function () {
    const pool = { queued: 3, running: 1 };
    const cache = { hits: 5, misses: 2 };
    const { registry } = createApiMetrics({ embedQueue: pool, queryCache: cache as unknown as QueryVectorCache });
    const text = await registry.metrics();
    expect(text).to.include('cca_embed_queue_jobs{state="queued"} 3');
    expect(text).to.include('cca_embed_queue_jobs{state="running"} 1');
    expect(text).to.include('cca_query_vector_cache_hits_total 5');
    pool.queued = 0;
    cache.hits = 7;
    const again = await registry.metrics();
    expect(again).to.include('cca_embed_queue_jobs{state="queued"} 0');
    expect(again).to.include('cca_query_vector_cache_hits_total 7');
  });

  it('reports the search admission gate’s running and waiting searches, and the refusals since the last scrape', async function () {
    const gate = { running: 4, waiting: 2, refused: 3 };
    const metrics = createApiMetrics();
    metrics.watchAdmission(gate);
    const text = await metrics.registry.metrics();
    expect(text).to.include('cca_search_admission{state="running"} 4');
    expect(text).to.include('cca_search_admission{state="waiting"} 2');
    expect(text).to.include('cca_search_busy_total 3');
    gate.waiting = 0;
    gate.refused = 5;
    const again = await metrics.registry.metrics();
    expect(again).to.include('cca_search_admission{state="waiting"} 0');
    expect(again).to.include('cca_search_busy_total 5');
  });
});
