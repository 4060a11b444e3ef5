import { expect } from 'chai';
import { ApiError } from '../../src/errors.js';
import { decodeCursor, encodeCursor, queryDigest } from '../../src/http/cursor.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? `${error.code}:${error.parameter}` : String(error);
  }
  return undefined;
}

describe('cursors: opaque, versioned, bound to their query', function () {
  const digest = queryDigest({ channel: 'ch_1', sort: 'newest', status: 'all', topicIds: ['a', 'b'] });

  it('round-trips the sort key of the last row', function () {
    const cursor = encodeCursor([1700000000000, 'ep_9'], digest);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, digest)).to.deep.equal([1700000000000, 'ep_9']);
  });

  it('keeps the missing-value stand-ins exact', function () {
    for (const v of [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]) {
      expect(decodeCursor(encodeCursor([v, 'x'], digest), digest)).to.deep.equal([v, 'x']);
    }
  });

  it('gives the same digest for the same filters in another order, another digest for other filters', function () {
    expect(queryDigest({ sort: 'newest', topicIds: ['b', 'a', 'a'], status: 'all', channel: 'ch_1' })).to.equal(digest);
    expect(queryDigest({ channel: 'ch_1', sort: 'oldest', status: 'all', topicIds: ['a', 'b'] })).not.to.equal(digest);
    expect(queryDigest({ channel: 'ch_2', sort: 'newest', status: 'all', topicIds: ['a', 'b'] })).not.to.equal(digest);
    expect(queryDigest({ channel: 'ch_1', sort: 'newest', status: 'all', topicIds: ['a'] })).not.to.equal(digest);
  });

  it('refuses a cursor made for other filters with 400 invalid_cursor', function () {
    const other = queryDigest({ channel: 'ch_1', sort: 'newest', status: 'live' });
    expect(codeOf(() => decodeCursor(encodeCursor([1, 'a'], other), digest))).to.equal('invalid_cursor:cursor');
  });

  it('refuses garbage, other versions and malformed sort keys', function () {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of [
      'not a cursor',
      '!!!',
      enc('text'),
      enc(null),
      enc({ v: 2, k: [1, 'a'], d: digest }),
      enc({ v: 1, k: [1], d: digest }),
      enc({ v: 1, k: ['1', 'a'], d: digest }),
      enc({ v: 1, k: [1.5, 'a'], d: digest }),
      enc({ v: 1, k: [1, 'a', 'b'], d: digest }),
      Buffer.from('{"v":1,').toString('base64url'),
    ]) {
      expect(
        codeOf(() => decodeCursor(bad, digest)),
        bad,
      ).to.equal('invalid_cursor:cursor');
    }
  });
});
