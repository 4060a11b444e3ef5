import { UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import { checkBulkItems, type BulkItem, type BulkOp } from '../../indexer/bulk.js';
import { INDEX_ERRORS, RetryableIndexError, UnrecoverableIndexError, classifyStoreError, createIndexError, retryIndexErrors } from '../../indexer/errors.js';

const ops: BulkOp[] = [
  { op: 'index', index: 'p', id: 'a', doc: {} },
  { op: 'delete', index: 'p', id: 'b' },
];

describe('checkBulkItems', function () {
  it('counts indexed and deleted items and accepts deleting a missing document', function () {
    expect(checkBulkItems([{ index: { status: 201 } }, { delete: { status: 200 } }], ops)).to.deep.equal({ indexed: 1, deleted: 1 });
    expect(checkBulkItems([{ index: { status: 200 } }, { delete: { status: 404, result: 'not_found' } }], ops)).to.deep.equal({ indexed: 1, deleted: 0 });
  });

  it('fails unrecoverably on a document the mapping refuses, naming index, id and reason', function () {
    const items: Record<string, BulkItem>[] = [
      { index: { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [startMs]' } } },
      { delete: { status: 200 } },
    ];
    expect(() => checkBulkItems(items, ops))
      .to.throw(UnrecoverableIndexError, 'index p/a: 400 mapper_parsing_exception: failed to parse field [startMs]')
      .that.is.instanceOf(UnrecoverableError);
  });

  it('fails retryably when items were only rejected for load (429) or a write block', function () {
    expect(() => checkBulkItems([{ index: { status: 429, error: { type: 'es_rejected_execution_exception' } } }, { delete: { status: 200 } }], ops)).to.throw(RetryableIndexError);
    expect(() => checkBulkItems([{ index: { status: 403, error: { type: 'cluster_block_exception' } } }, { delete: { status: 200 } }], ops)).to.throw(RetryableIndexError);
  });

  it('prefers the unrecoverable failure when both kinds occur', function () {
    const items: Record<string, BulkItem>[] = [
      { index: { status: 503, error: { type: 'unavailable_shards_exception' } } },
      { delete: { status: 400, error: { type: 'illegal_argument_exception' } } },
    ];
    expect(() => checkBulkItems(items, ops)).to.throw(UnrecoverableIndexError);
  });
});

describe('createIndexError', function () {
  it('makes every retryable code a RetryableIndexError and every other one unrecoverable for BullMQ', function () {
    for (const [code, { transient, message }] of Object.entries(INDEX_ERRORS)) {
      const err = createIndexError(code as keyof typeof INDEX_ERRORS);
      expect(err, code).to.be.instanceOf(transient ? RetryableIndexError : UnrecoverableError);
      expect(err.code).to.equal(code);
      expect(err.message).to.equal(message);
    }
    const cause = new Error('refused');
    const detailed = createIndexError('invalid_record', { message: 'episode e: /title must be string', cause });
    expect(detailed).to.be.instanceOf(UnrecoverableIndexError).with.property('message', 'episode e: /title must be string');
    expect(detailed.cause).to.equal(cause);
  });
});

describe('classifyStoreError', function () {
  const named = (name: string, meta?: object) => Object.assign(new Error('boom'), { name, meta });

  it('retries connection loss and timeouts', function () {
    expect(classifyStoreError(named('ConnectionError'), 'bulk')).to.be.instanceOf(RetryableIndexError);
    expect(classifyStoreError(named('TimeoutError'), 'bulk'))
      .to.be.instanceOf(RetryableIndexError)
      .with.property('message', 'bulk: TimeoutError: boom');
  });

  it('retries 429, 502 and the write block of a reindex, and gives up at once on other 4xx and on 500', function () {
    expect(classifyStoreError(named('ResponseError', { statusCode: 429, body: { error: { type: 'x' } } }), 'bulk')).to.be.instanceOf(RetryableIndexError);
    expect(classifyStoreError(named('ResponseError', { statusCode: 502, body: {} }), 'bulk')).to.be.instanceOf(RetryableIndexError);
    expect(classifyStoreError(named('ResponseError', { statusCode: 403, body: { error: { type: 'cluster_block_exception' } } }), 'bulk')).to.be.instanceOf(RetryableIndexError);
    const refused = classifyStoreError(named('ResponseError', { statusCode: 400, body: { error: { type: 'parsing_exception', reason: 'bad query' } } }), 'search');
    expect(refused).to.be.instanceOf(UnrecoverableIndexError);
    expect(refused.message).to.equal('search: 400 parsing_exception: bad query');
    expect(classifyStoreError(named('ResponseError', { statusCode: 500, body: { error: { type: 'null_pointer_exception' } } }), 'bulk')).to.be.instanceOf(UnrecoverableIndexError);
  });

  it('fails at once on a missing index: the job cannot succeed before the indices exist', function () {
    const missing = classifyStoreError(
      named('ResponseError', { statusCode: 404, body: { error: { type: 'index_not_found_exception', reason: 'no such index [p]' } } }),
      'get episode',
    );
    expect(missing).to.be.instanceOf(UnrecoverableIndexError);
    expect(missing.message).to.equal('get episode: 404 index_not_found_exception: no such index [p]');
  });

  it('passes other errors through unchanged', function () {
    const err = new TypeError('x');
    expect(classifyStoreError(err, 'bulk')).to.equal(err);
  });
});

describe('retryIndexErrors', function () {
  it('tries again while the call fails retryably, backing off, up to the attempts given', async function () {
    let calls = 0;
    const retried: number[] = [];
    const started = performance.now();
    const failure = await retryIndexErrors(
      async () => {
        calls++;
        throw new RetryableIndexError('store_unavailable', 'busy');
      },
      { attempts: 3, baseDelayMs: 10, onRetry: (_err, attempt) => retried.push(attempt) },
    ).catch((err: unknown) => err);
    expect(failure).to.be.instanceOf(RetryableIndexError);
    expect(calls).to.equal(3);
    expect(retried).to.deep.equal([1, 2]);
    // Waits of 10 and 20 ms.
    expect(performance.now() - started).to.be.within(29, 500);
    let tries = 0;
    expect(
      await retryIndexErrors(async () => (++tries < 2 ? Promise.reject(new RetryableIndexError('store_unavailable', 'busy')) : 'done'), { attempts: 3, baseDelayMs: 1 }),
    ).to.equal('done');
  });

  it('gives up at once on an unrecoverable error', async function () {
    let calls = 0;
    const refused = new UnrecoverableIndexError('store_rejected', 'mapping');
    const failure = await retryIndexErrors(
      async () => {
        calls++;
        throw refused;
      },
      { attempts: 5, baseDelayMs: 1 },
    ).catch((err: unknown) => err);
    expect(failure).to.equal(refused);
    expect(calls).to.equal(1);
  });
});
