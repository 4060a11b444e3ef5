import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../src/errors.js';
import { createAdmission, overShare } from '../../src/http/admission.js';

/** What became of a place asked for: granted (with its release) or refused (with the error). */
async function settle(p: Promise<() => void>) {
  return p.then(
    (release) => ({ granted: true as const, release }),
    (error: unknown) => ({ granted: false as const, error }),
  );
}

const expectRefused = (outcome: Awaited<ReturnType<typeof settle>>, code: string, status: number) => {
  expect(outcome.granted).to.equal(false);
  const error = (outcome as { error: unknown }).error;
  expect(error).to.be.instanceOf(ApiError);
  expect(error).to.include({ code, status });
  expect((error as ApiError).headers).to.deep.equal({ 'Retry-After': '1' });
};
/** Refused because the share is full of others' searches (or the store is slow): the service's limit. */
const expectBusy = (outcome: Awaited<ReturnType<typeof settle>>) => expectRefused(outcome, 'search_busy', 503);
/** Refused because its caller already holds its share: the caller's own flood. */
const expectOverShare = (outcome: Awaited<ReturnType<typeof settle>>) => expectRefused(outcome, 'too_many_searches', 429);

describe('search admission: a few at once, a few more waiting, the rest refused', function () {
  it('grants up to `concurrency` places at once and refuses past `queue` waiting at once with 503 search_busy and Retry-After', async function () {
    const gate = createAdmission({ concurrency: 2, queue: 1, maxWaitMs: 10_000 });
    const granted = await Promise.all([gate.admit(undefined, 'a'), gate.admit(undefined, 'b')]);
    const waiting = settle(gate.admit(undefined, 'c'));
    const refusedAt = Date.now();
    expectBusy(await settle(gate.admit(undefined, 'd')));
    expect(Date.now() - refusedAt, 'refused without waiting').to.be.below(50);
    expect([gate.running, gate.waiting, gate.refused]).to.deep.equal([2, 1, 1]);
    granted[0]!();
    const next = await waiting;
    expect(next.granted, 'the waiting one takes the place given back').to.equal(true);
    expect([gate.running, gate.waiting]).to.deep.equal([2, 0]);
    granted[1]!();
    (next as { release: () => void }).release();
    expect(gate.running).to.equal(0);
    expect(gate.refused, 'only the one refused is counted').to.equal(1);
  });

  it('gives a place back to the longest-waiting request first', async function () {
    const gate = createAdmission({ concurrency: 1, queue: 3, maxWaitMs: 10_000 });
    const first = await gate.admit();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => gate.admit().then((release) => (order.push(n), release)));
    first();
    for (const w of waiters) (await w)();
    expect(order).to.deep.equal([1, 2, 3]);
    expect(gate.running).to.equal(0);
  });

  it('refuses a request that found no place within maxWaitMs, and takes it off the queue', async function () {
    const gate = createAdmission({ concurrency: 1, queue: 4, maxWaitMs: 30 });
    const held = await gate.admit(undefined, 'a');
    const started = Date.now();
    expectBusy(await settle(gate.admit(undefined, 'b')));
    expect(Date.now() - started).to.be.within(25, 500);
    expect(gate.waiting).to.equal(0);
    held();
    expect(gate.running, 'the place given back is free, not handed to the one that left').to.equal(0);
  });

  it('takes an abandoned request off the queue at once', async function () {
    const gate = createAdmission({ concurrency: 1, queue: 4, maxWaitMs: 10_000 });
    const held = await gate.admit();
    const controller = new AbortController();
    const waiting = settle(gate.admit(controller.signal));
    await sleep(5);
    expect(gate.waiting).to.equal(1);
    controller.abort();
    expectBusy(await waiting);
    expect(gate.waiting).to.equal(0);
    held();
    expect(gate.running).to.equal(0);
  });

  it('counts a place given back twice once', async function () {
    const gate = createAdmission({ concurrency: 2, queue: 0, maxWaitMs: 10 });
    const release = await gate.admit();
    await gate.admit();
    release();
    release();
    expect(gate.running).to.equal(1);
  });

  describe('whose fault a refusal is', function () {
    it('answers a caller that holds its share 429 too_many_searches, at once or after the wait, and one that holds less 503 search_busy', async function () {
      const gate = createAdmission({ concurrency: 2, queue: 1, maxWaitMs: 30 });
      const held = [await gate.admit(undefined, 'flood'), await gate.admit(undefined, 'flood')];
      const waiting = settle(gate.admit(undefined, 'flood'));
      expectOverShare(await settle(gate.admit(undefined, 'flood')));
      expectBusy(await settle(gate.admit(undefined, 'other')));
      expectOverShare(await waiting);
      for (const release of held) release();
      // Two callers holding one place each: each holds its share (ceil(2 / 2) = 1), a third holding none does not.
      const [a, b] = [await gate.admit(undefined, 'a'), await gate.admit(undefined, 'b')];
      expectOverShare(await settle(gate.admit(undefined, 'a')));
      expectBusy(await settle(gate.admit(undefined, 'c')));
      a();
      b();
      expect([gate.running, gate.waiting, gate.refused]).to.deep.equal([0, 0, 5]);
    });

    it('computes the share as an equal split of the running places among the callers holding or awaiting one', function () {
      expect(overShare({ held: 0, callers: 1, concurrency: 4 })).to.equal(false);
      expect(overShare({ held: 3, callers: 1, concurrency: 4 })).to.equal(false);
      expect(overShare({ held: 4, callers: 1, concurrency: 4 })).to.equal(true);
      expect(overShare({ held: 1, callers: 3, concurrency: 4 })).to.equal(false);
      expect(overShare({ held: 2, callers: 3, concurrency: 4 })).to.equal(true);
      expect(overShare({ held: 1, callers: 36, concurrency: 4 })).to.equal(true);
    });
  });

  describe('fair between callers', function () {
    it('gives a place back to the waiting caller that holds the fewest, then was served least recently', async function () {
      const gate = createAdmission({ concurrency: 2, queue: 10, maxWaitMs: 10_000 });
      const held = await Promise.all([gate.admit(undefined, 'a'), gate.admit(undefined, 'a')]);
      const order: string[] = [];
      ['a', 'a', 'b', 'a', 'c'].forEach(
        (caller, i) =>
          void gate.admit(undefined, caller).then((release) => {
            order.push(`${caller}${i}`);
            held.push(release);
          }),
      );
      // Places are given back oldest first, one at a time.
      while (held.length > 0) {
        held.shift()!();
        await sleep(0);
      }
      expect(order, 'b and c, holding none, before the a queued first; then a in its order').to.deep.equal(['b2', 'c4', 'a0', 'a1', 'a3']);
      expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
    });

    it("gives a full queue's newest place of the caller with the most waiting to a caller with fewer, and serves a single caller first come, first served", async function () {
      const gate = createAdmission({ concurrency: 1, queue: 3, maxWaitMs: 10_000 });
      const held = await gate.admit(undefined, 'flood');
      const flood = [0, 1, 2].map(() => settle(gate.admit(undefined, 'flood')));
      expectOverShare(await settle(gate.admit(undefined, 'flood')));
      const member = settle(gate.admit(undefined, 'member'));
      const displaced = await flood[2]!;
      expectOverShare(displaced);
      expect(((displaced as { error: Error }).error as Error).message).to.match(/its place went to another caller/);
      expect(gate.waiting).to.equal(3);
      held();
      const first = await member;
      expect(first.granted, 'the member, holding none, is served next').to.equal(true);
      (first as { release: () => void }).release();
      for (const f of flood.slice(0, 2)) {
        const outcome = await f;
        expect(outcome.granted).to.equal(true);
        (outcome as { release: () => void }).release();
      }
      expect([gate.running, gate.waiting]).to.deep.equal([0, 0]);
    });
  });
});
