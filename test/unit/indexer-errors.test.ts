import { UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import { checkBulkItems, type BulkItem, type BulkOp } from '../../indexer/bulk.js';
import { RetryableIndexError, UnrecoverableIndexError, classifyStoreError } from '../../indexer/errors.js';

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
    const items: Record<string, BulkItem>[] = [{ index: { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [startMs]' } } }, { delete: { status: 200 } }];
    expect(() => checkBulkItems(items, ops))
      .to.throw(UnrecoverableIndexError, 'index p/a: 400 mapper_parsing_exception: failed to parse field [startMs]')
      .that.is.instanceOf(UnrecoverableError);
  });

  it('fails retryably when items were only rejected for load (429) or a write block', function () {
    expect(() => checkBulkItems([{ index: { status: 429, error: { type: 'es_rejected_execution_exception' } } }, { delete: { status: 200 } }], ops)).to.throw(RetryableIndexError);
    expect(() => checkBulkItems([{ index: { status: 403, error: { type: 'cluster_block_exception' } } }, { delete: { status: 200 } }], ops)).to.throw(RetryableIndexError);
  });

  it('prefers the unrecoverable failure when both kinds occur', function () {
    const items: Record<string, BulkItem>[] = [{ index: { status: 503, error: { type: 'unavailable_shards_exception' } } }, { delete: { status: 400, error: { type: 'illegal_argument_exception' } } }];
    expect(() => checkBulkItems(items, ops)).to.throw(UnrecoverableIndexError);
  });
});

describe('classifyStoreError', function () {
  const named = (name: string, meta?: object) => Object.assign(new Error('boom'), { name, meta });

  it('retries connection loss and timeouts', function () {
    expect(classifyStoreError(named('ConnectionError'), 'bulk')).to.be.instanceOf(RetryableIndexError);
    expect(classifyStoreError(named('TimeoutError'), 'bulk')).to.be.instanceOf(RetryableIndexError);
  });

  it('retries 429 and 5xx answers and gives up at once on other 4xx', function () {
    expect(classifyStoreError(named('ResponseError', { statusCode: 429, body: { error: { type: 'x' } } }), 'bulk')).to.be.instanceOf(RetryableIndexError);
    expect(classifyStoreError(named('ResponseError', { statusCode: 502, body: {} }), 'bulk')).to.be.instanceOf(RetryableIndexError);
    const refused = classifyStoreError(named('ResponseError', { statusCode: 400, body: { error: { type: 'parsing_exception', reason: 'bad query' } } }), 'search');
    expect(refused).to.be.instanceOf(UnrecoverableIndexError);
    expect(refused.message).to.equal('search: 400 parsing_exception: bad query');
  });

  it('passes other errors through unchanged', function () {
    const err = new TypeError('x');
    expect(classifyStoreError(err, 'bulk')).to.equal(err);
  });
});
