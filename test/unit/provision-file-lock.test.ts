import { mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { isLockHeld, withFileLock } from '../../scripts/ops/provision/file-lock.js';

describe('withFileLock', function () {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'file-lock-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('lets one holder run at a time: the second waits for the first to finish, then runs', async function () {
    const lock = path.join(dir, 'lock');
    const events: string[] = [];
    const first = withFileLock(lock, async () => {
      events.push('first start');
      await sleep(300);
      events.push('first end');
    });
    await sleep(50);
    const second = withFileLock(lock, async () => void events.push('second'), { onWait: () => events.push('second waits') });
    await Promise.all([first, second]);
    expect(events).to.deep.equal(['first start', 'second waits', 'first end', 'second']);
    expect(
      await stat(lock).then(
        () => 'still there',
        () => 'released',
      ),
    ).to.equal('released');
  });

  it('gives up with ELOCKED once the wait outlasts timeoutMs', async function () {
    const lock = path.join(dir, 'lock');
    const started = Date.now();
    const failure = await withFileLock(lock, () => withFileLock(lock, async () => 'never', { timeoutMs: 700 })).catch((err: unknown) => err);
    expect(isLockHeld(failure)).to.equal(true);
    expect(Date.now() - started).to.be.within(600, 3000);
  });

  it('takes over a lock its holder stopped refreshing (a holder that was killed)', async function () {
    const lock = path.join(dir, 'lock');
    await mkdir(lock);
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, minuteAgo, minuteAgo);
    const started = Date.now();
    expect(await withFileLock(lock, async () => 'ran')).to.equal('ran');
    expect(Date.now() - started).to.be.below(1000);
  });

  it('releases the lock when the function throws', async function () {
    const lock = path.join(dir, 'lock');
    await withFileLock(lock, () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await withFileLock(lock, async () => 'again', { timeoutMs: 0 })).to.equal('again');
  });
});
