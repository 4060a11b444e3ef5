import { expect } from 'chai';
import { errors } from '@opensearch-project/opensearch';
import { ApiError, API_ERRORS, createError, toApiError } from '../../src/errors.js';
import { SearchError } from '../../core/search/errors.js';
import { chooseQuery } from '../../src/routes/search.js';

const responseError = (statusCode: number, type: string) => new errors.ResponseError({ body: { error: { type } }, statusCode, headers: {}, warnings: null, meta: {} as never });

describe('error catalogue: stable codes, one mapping from anything thrown', function () {
  it('gives every code a status and a sentence', function () {
    for (const [code, { status, message }] of Object.entries(API_ERRORS)) {
      expect(code).to.match(/^[a-z][a-z0-9_]*$/);
      expect(status).to.be.within(400, 599);
      expect(message).to.match(/^[A-Z].*\.$/);
    }
  });

  it('maps an unreachable or slow store to 503 with Retry-After', function () {
    for (const error of [
      new errors.ConnectionError('connect ECONNREFUSED', undefined as never),
      new errors.TimeoutError('Request timed out', undefined as never),
      new errors.NoLivingConnectionsError('none', undefined as never),
      responseError(503, 'cluster_block_exception'),
      responseError(403, 'cluster_block_exception'),
      responseError(429, 'rejected_execution_exception'),
      responseError(408, 'timeout_exception'),
      responseError(404, 'index_not_found_exception'),
      new SearchError('item failed', { type: 'index_not_found_exception' }),
    ]) {
      const mapped = toApiError(error);
      expect(mapped.code, error.name).to.equal('store_unavailable');
      expect(mapped.headers['Retry-After']).to.equal('5');
    }
  });

  it("maps the engine's clause limit on a search item to 400 query_too_complex naming the query, not 500", function () {
    // As OpenSearch 2.19 answers an _msearch item of more than 1,024 clauses.
    const item = {
      root_cause: [{ type: 'too_many_clauses', reason: 'maxClauseCount is set to 1024' }],
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      caused_by: { type: 'too_many_clauses', reason: 'maxClauseCount is set to 1024' },
    };
    const mapped = toApiError(new SearchError('search 2 of 3 failed', item, { itemStatus: 500 }));
    expect([mapped.status, mapped.code, mapped.parameter]).to.deep.equal([400, 'query_too_complex', 'query']);
    // The same on a whole-request 400 (body `{ error, status }`).
    expect(toApiError(new SearchError('_msearch rejected the request', { error: item, status: 400 })).code).to.equal('query_too_complex');
  });

  it('maps an OpenSearch error on a query we built, and anything unexpected, to 500', function () {
    expect(toApiError(responseError(400, 'parsing_exception')).code).to.equal('internal_error');
    expect(toApiError(responseError(500, 'null_pointer_exception')).code).to.equal('internal_error');
    expect(toApiError(new SearchError('bad query', { type: 'parsing_exception' })).code).to.equal('internal_error');
    expect(toApiError(new TypeError('x is undefined')).code).to.equal('internal_error');
    expect(toApiError('a string').code).to.equal('internal_error');
  });

  it('maps an undecodable URL to 400 malformed_url and keeps ApiErrors as they are', function () {
    expect(toApiError(Object.assign(new URIError('URI malformed'), { status: 400 })).code).to.equal('malformed_url');
    const e = createError('invalid_parameter', { parameter: 'year' });
    expect(toApiError(e)).to.equal(e);
    expect(e).to.be.instanceOf(ApiError);
    expect(e.status).to.equal(400);
  });
});

describe('search query precedence (decision 2)', function () {
  it('takes query when non-blank, else q, else ""', function () {
    expect(chooseQuery('a', 'b')).to.equal('a');
    expect(chooseQuery('  ', 'b')).to.equal('b');
    expect(chooseQuery(undefined, ' b ')).to.equal('b');
    expect(chooseQuery('', '')).to.equal('');
    expect(chooseQuery(undefined, undefined)).to.equal('');
  });
});
