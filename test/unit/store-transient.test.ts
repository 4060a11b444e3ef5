import { expect } from 'chai';
import { errors } from '@opensearch-project/opensearch';
import { isMissingIndex, isTransient, isTransientStoreError, retryTransient, storeFailure } from '../../core/store/transient.js';

const responseError = (statusCode: number, error?: { type: string; reason?: string } | string) =>
  new errors.ResponseError({ body: error === undefined ? {} : { error }, statusCode, headers: {}, warnings: null, meta: {} as never });

describe('store failures: one rule for what goes away by itself', function () {
  it('counts every way of getting no answer as transient', function () {
    for (const error of [
      new errors.ConnectionError('connect ECONNREFUSED', undefined as never),
      new errors.TimeoutError('Request timed out', undefined as never),
      new errors.NoLivingConnectionsError('none', undefined as never),
      new errors.RequestAbortedError('aborted', undefined as never),
    ]) {
      expect(isTransientStoreError(error), error.name).to.equal(true);
      expect(storeFailure(error)).to.deep.include({ unreachable: true, reason: `${error.name}: ${error.message}` });
    }
  });

  it('counts overload, a node not ready, gateway trouble and request timeouts as transient', function () {
    for (const status of [408, 429, 502, 503, 504]) expect(isTransientStoreError(responseError(status)), String(status)).to.equal(true);
  });

  it('counts the write block of a running reindex as transient, though it comes as a 403', function () {
    const blocked = responseError(403, { type: 'cluster_block_exception', reason: 'index [k] blocked by: [FORBIDDEN/8/index write (api)];' });
    expect(isTransientStoreError(blocked)).to.equal(true);
    expect(storeFailure(blocked)).to.deep.equal({
      status: 403,
      type: 'cluster_block_exception',
      reason: 'cluster_block_exception: index [k] blocked by: [FORBIDDEN/8/index write (api)];',
    });
  });

  it('counts rejected or shard-less work as transient whatever its status', function () {
    for (const type of ['es_rejected_execution_exception', 'circuit_breaking_exception', 'unavailable_shards_exception', 'no_shard_available_action_exception']) {
      expect(isTransient({ status: 500, type }), type).to.equal(true);
    }
  });

  it('does not retry a request the engine refused or failed on: 400, 404, 409, 500', function () {
    expect(isTransientStoreError(responseError(400, { type: 'parsing_exception', reason: 'bad query' }))).to.equal(false);
    expect(isTransientStoreError(responseError(409, { type: 'version_conflict_engine_exception' }))).to.equal(false);
    expect(isTransientStoreError(responseError(500, { type: 'null_pointer_exception' }))).to.equal(false);
    expect(isTransient({ status: 500 })).to.equal(false);
    expect(isTransient({})).to.equal(false);
  });

  it('tells a missing index apart, for callers that read it as a store not set up yet', function () {
    const missing = storeFailure(responseError(404, { type: 'index_not_found_exception', reason: 'no such index [x]' }))!;
    expect(isTransient(missing)).to.equal(false);
    expect(isMissingIndex(missing)).to.equal(true);
    expect(isMissingIndex({ status: 404, type: 'document_missing_exception' })).to.equal(false);
  });

  it('ignores errors that do not come from the OpenSearch client', function () {
    expect(storeFailure(new TypeError('x is undefined'))).to.equal(undefined);
    expect(storeFailure('a string')).to.equal(undefined);
    expect(storeFailure(null)).to.equal(undefined);
    expect(isTransientStoreError(new Error('ECONNREFUSED'))).to.equal(false);
  });

  it('keeps the reason of an answer whose error is a bare string or absent', function () {
    expect(storeFailure(responseError(502, 'bad gateway'))).to.deep.equal({ status: 502, type: undefined, reason: 'bad gateway' });
    expect(storeFailure(responseError(503))).to.deep.equal({ status: 503, type: undefined, reason: 'Response Error' });
  });
});

describe('retryTransient', function () {
  const blocked = () => responseError(403, { type: 'cluster_block_exception', reason: 'blocked' });

  it('runs the call again while it fails transiently, backing off, and returns its answer', async function () {
    let calls = 0;
    const retried: number[] = [];
    const started = performance.now();
    const answer = await retryTransient(
      async () => {
        if (++calls < 4) throw blocked();
        return 'done';
      },
      { firstDelayMs: 5, maxDelayMs: 12, onRetry: (_err, attempt) => retried.push(attempt) },
    );
    expect(answer).to.equal('done');
    expect(calls).to.equal(4);
    expect(retried).to.deep.equal([1, 2, 3]);
    // Waits of 5, 10 and 12 ms (doubled, capped at maxDelayMs).
    expect(performance.now() - started).to.be.within(26, 500);
  });

  it('throws the last transient error once the budget is spent', async function () {
    let calls = 0;
    const started = Date.now();
    const failure = await retryTransient(
      async () => {
        calls++;
        throw blocked();
      },
      { budgetMs: 100, firstDelayMs: 10, maxDelayMs: 20 },
    ).catch((err: unknown) => err);
    expect(failure).to.be.instanceOf(errors.ResponseError);
    expect(calls).to.be.greaterThan(2);
    expect(Date.now() - started).to.be.within(100, 1000);
  });

  it('throws at once on an error that is not transient', async function () {
    let calls = 0;
    const refused = responseError(400, { type: 'parsing_exception' });
    const failure = await retryTransient(async () => {
      calls++;
      throw refused;
    }).catch((err: unknown) => err);
    expect(failure).to.equal(refused);
    expect(calls).to.equal(1);
  });
});
