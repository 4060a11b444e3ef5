// The delivery retry schedule: growing waits with upward jitter, at least a day in all, Retry-After honoured within a cap.
import { expect } from 'chai';
import { DEFAULT_RETRY_SCHEDULE_MS, attemptsFor, retryDelay, retryWindow } from '../../pipeline/webhooks/backoff.js';

const MIN = 60_000;
const H = 60 * MIN;
const none = () => 0;
const most = () => 0.999999;

describe('webhooks: retry schedule', function () {
  it('waits 30 s, 2 min, 10 min, 1 h and longer after each failure, nine attempts in all', function () {
    const waits = DEFAULT_RETRY_SCHEDULE_MS.map((_, i) => retryDelay(i + 1, { random: none }));
    expect(waits.slice(0, 4)).to.deep.equal([30_000, 2 * MIN, 10 * MIN, 1 * H]);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).to.be.greaterThan(waits[i - 1]!);
    expect(attemptsFor()).to.equal(9);
  });

  it('keeps retrying for at least a day and at most about 27 hours', function () {
    const { minMs, maxMs } = retryWindow();
    expect(minMs).to.be.at.least(24 * H);
    expect(maxMs).to.be.at.most(27 * H);
    const longest = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, _, i) => sum + retryDelay(i + 1, { random: most }), 0);
    expect(longest).to.be.at.most(maxMs);
  });

  it('jitters upward only, by at most the jitter fraction', function () {
    expect(retryDelay(2, { random: none })).to.equal(2 * MIN);
    expect(retryDelay(2, { random: most })).to.be.within(2 * MIN, 2.2 * MIN);
    expect(retryDelay(2, { random: () => 0.5 }, { jitter: 0.5 })).to.equal(2.5 * MIN);
  });

  it('honours a longer Retry-After up to its cap, and never lets a short one shorten the schedule', function () {
    expect(retryDelay(1, { random: none, retryAfterMs: 5 * MIN })).to.equal(5 * MIN);
    expect(retryDelay(1, { random: none, retryAfterMs: 1000 })).to.equal(30_000);
    expect(retryDelay(1, { random: none, retryAfterMs: 48 * H })).to.equal(6 * H);
    expect(retryDelay(1, { random: none, retryAfterMs: 48 * H }, { maxRetryAfterMs: 1000 })).to.equal(30_000);
  });

  it('follows a schedule given in options (tests shorten it), repeating its last wait past its end', function () {
    const schedule = [50, 100];
    expect([1, 2, 3].map((n) => retryDelay(n, { random: none }, { schedule, jitter: 0 }))).to.deep.equal([50, 100, 100]);
    expect(attemptsFor(schedule)).to.equal(3);
  });
});
