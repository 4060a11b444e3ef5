import { expect } from 'chai';
import { parseRetryAfter } from '../../core/ground/http-headers.js';

describe('parseRetryAfter', function () {
  const now = Date.parse('2026-11-25T12:00:00Z');

  it('reads delta-seconds as milliseconds', function () {
    expect(parseRetryAfter('120', now)).to.equal(120_000);
    expect(parseRetryAfter(' 12 ', now)).to.equal(12_000);
  });

  it('reads an HTTP date as the wait from now, and a date already past as no wait', function () {
    expect(parseRetryAfter('Wed, 25 Nov 2026 12:01:00 GMT', now)).to.equal(60_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 11:59:00 GMT', now)).to.equal(0);
  });

  it('gives nothing for an absent or unreadable header', function () {
    expect(parseRetryAfter(null, now)).to.equal(undefined);
    expect(parseRetryAfter(undefined, now)).to.equal(undefined);
    expect(parseRetryAfter('', now)).to.equal(undefined);
    expect(parseRetryAfter('soon', now)).to.equal(undefined);
  });
});
