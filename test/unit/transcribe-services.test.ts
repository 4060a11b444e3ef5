// Several transcription services behind one worker: which one takes a piece, how many at once, and which are passed
// over after a transient failure (the pool's own rule; the services themselves are the integration suite's).
import { expect } from 'chai';
import { pickService, TranscribeServices, type ServiceState } from '../../pipeline/transcribe/services.js';
import { TranscribeError } from '../../pipeline/transcribe/errors.js';
import { loadConfig } from '../../core/config/load.js';

const idle = (over: Partial<ServiceState> = {}): ServiceState => ({ busy: 0, coolUntil: 0, lastStart: 0, ...over });

describe('transcription services: choosing one', function () {
  it('gives the piece to the least busy service', function () {
    expect(pickService([idle({ busy: 1 }), idle(), idle({ busy: 1 })], { perService: 2, now: 0 })).to.deep.equal({ pick: 1 });
  });

  it('takes turns between equally busy services (the one started longest ago first)', function () {
    expect(pickService([idle({ lastStart: 5 }), idle({ lastStart: 3 })], { perService: 1, now: 0 })).to.deep.equal({ pick: 1 });
  });

  it('waits when every service has its share of requests in flight', function () {
    expect(pickService([idle({ busy: 2 }), idle({ busy: 2 })], { perService: 2, now: 0 })).to.equal('wait');
  });

  it('passes over a service cooling down after a failure while another can take the piece, even a busy one', function () {
    const states = [idle({ coolUntil: 1000 }), idle({ busy: 1 })];
    expect(pickService(states, { perService: 1, now: 500 })).to.equal('wait');
    expect(pickService(states, { perService: 2, now: 500 })).to.deep.equal({ pick: 1 });
    expect(pickService(states, { perService: 1, now: 1000 })).to.deep.equal({ pick: 0 });
  });

  it('tries a cooling service when every service left is cooling (the one back first), and none when all were tried', function () {
    const states = [idle({ coolUntil: 900 }), idle({ coolUntil: 700 })];
    expect(pickService(states, { perService: 1, now: 500 })).to.deep.equal({ pick: 1 });
    expect(pickService(states, { perService: 1, now: 500, exclude: new Set([0, 1]) })).to.equal('none');
  });
});

describe('transcription services: running pieces', function () {
  const busy = () => new TranscribeError('http_status', 'HTTP 503', { transient: true, status: 503 });

  it('spreads pieces running at once over the services, at most perService on each', async function () {
    const pool = new TranscribeServices(['http://a', 'http://b'], { perService: 2 });
    const seen: string[] = [];
    let peak = 0;
    const releases: (() => void)[] = [];
    const runs = Array.from({ length: 5 }, () =>
      pool.run(async (url) => {
        seen.push(url);
        peak = Math.max(peak, ...pool.busy());
        await new Promise<void>((r) => releases.push(r));
        return url;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(pool.busy()).to.deep.equal([2, 2]); // the fifth waits for a slot
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(runs);
    expect(seen.filter((u) => u === 'http://a')).to.have.length.within(2, 3);
    expect(seen).to.have.length(5);
    expect(peak).to.equal(2);
  });

  it('sends a piece a service failed transiently to another, and keeps sending to that one during the cooldown', async function () {
    let clock = 0;
    const pool = new TranscribeServices(['http://down', 'http://up'], { cooldownMs: 60_000, now: () => clock });
    const calls: string[] = [];
    const request = async (url: string) => {
      calls.push(url);
      if (url === 'http://down') throw busy();
      return url;
    };
    for (let i = 0; i < 3; i++) expect(await pool.run(request)).to.equal('http://up');
    expect(calls.filter((u) => u === 'http://down')).to.have.length(1);
    clock = 61_000;
    await pool.run(request);
    expect(calls.filter((u) => u === 'http://down')).to.have.length(2); // tried again once the cooldown is over
  });

  it('throws the last transient failure when every service failed the piece, and a piece’s own failure at once', async function () {
    const pool = new TranscribeServices(['http://a', 'http://b']);
    const calls: string[] = [];
    const err = await pool
      .run(async (url) => {
        calls.push(url);
        throw busy();
      })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('status', 503);
    expect(calls).to.have.length(2);
    const refused = new TranscribeError('http_status', 'HTTP 400', { status: 400 });
    const once: string[] = [];
    const got = await pool
      .run(async (url) => {
        once.push(url);
        throw refused;
      })
      .catch((e: unknown) => e);
    expect(got).to.equal(refused);
    expect(once).to.have.length(1);
  });

  it('wakes a piece waiting for a busy service as soon as a cooling one is back, not when the busy one frees', async function () {
    const pool = new TranscribeServices(['http://a', 'http://b'], { cooldownMs: 50 });
    let releaseA: () => void = () => undefined;
    const heldOnA = (url: string) => (url === 'http://a' ? new Promise<string>((r) => (releaseA = () => r(url))) : Promise.reject(busy()));
    const first = pool.run(heldOnA); // A busy from now on, whichever service it tried first
    const second = pool.run((url) => (url === 'http://b' ? Promise.reject(busy()) : Promise.resolve(url))); // B cooling
    await new Promise((r) => setTimeout(r, 10));
    const third = pool.run(async (url) => url);
    const timedOut = new Promise((r) => setTimeout(() => r('still waiting'), 2000));
    expect(await Promise.race([third, timedOut])).to.equal('http://b');
    releaseA();
    expect(await first).to.equal('http://a');
    expect(await second).to.equal('http://a');
  });

  it('wakes a waiting piece when the clock says the cooldown is over, though the timer fired before it did', async function () {
    // Timers may fire a millisecond before Date.now() reaches their time: a piece woken then must not wait for good.
    let clock = 0;
    const pool = new TranscribeServices(['http://a', 'http://b'], { cooldownMs: 20, now: () => clock });
    let releaseA: (() => void) | undefined;
    let refusedOnB = 0;
    const onB = () => (refusedOnB++, Promise.reject(busy()));
    const turns = async (until: () => boolean) => {
      while (!until()) await new Promise((r) => setImmediate(r));
    };
    // A is held by the first piece; B has refused one and cools down (until 20 on this clock).
    const first = pool.run((url) => (url === 'http://a' ? new Promise<string>((r) => (releaseA = () => r(url))) : onB()));
    await turns(() => releaseA !== undefined);
    // B refuses while it is cooling by this clock, and serves once the clock has moved on.
    const second = pool.run((url) => (url === 'http://b' && clock === 0 ? onB() : Promise.resolve(url)));
    await turns(() => refusedOnB > 0);
    const third = pool.run(async (url) => url);
    // B's cooldown timer fires, more than once, while the clock still says B is cooling; then the clock moves on.
    await new Promise((r) => setTimeout(r, 80));
    clock = 10_000;
    const timedOut = new Promise((r) => setTimeout(() => r('still waiting'), 2000));
    expect(await Promise.race([third, timedOut])).to.equal('http://b');
    releaseA!();
    expect(await first).to.equal('http://a');
    // The second piece, woken with the third, may have taken B first (then the third took it after): either is on time.
    expect(await second).to.be.oneOf(['http://a', 'http://b']);
  });

  it('with one service, keeps trying it whatever failed before (BullMQ backs off, not the pool)', async function () {
    const pool = new TranscribeServices(['http://only']);
    await pool.run(() => Promise.reject(busy())).catch(() => undefined);
    expect(await pool.run(async (url) => url)).to.equal('http://only');
  });
});

describe('TRANSCRIBE_URL: one service or several', function () {
  it('reads a comma-separated list in order, the first also being the NER default', function () {
    const { pipeline, enrich } = loadConfig({ TRANSCRIBE_URL: 'http://127.0.0.1:8910/, http://gpu.example.com:8000' });
    expect(pipeline.transcribe.urls).to.deep.equal(['http://127.0.0.1:8910', 'http://gpu.example.com:8000']);
    expect(pipeline.transcribe.url).to.equal('http://127.0.0.1:8910');
    expect(enrich.nerUrl).to.equal('http://127.0.0.1:8910');
  });

  it('refuses an empty entry, a repeated service and credentials in any entry', function () {
    expect(() => loadConfig({ TRANSCRIBE_URL: 'http://a:1,,http://b:1' })).to.throw(/without empty entries/);
    expect(() => loadConfig({ TRANSCRIBE_URL: 'http://a:1,http://a:1/' })).to.throw(/twice/);
    expect(() => loadConfig({ TRANSCRIBE_URL: 'http://a:1,http://u:p@b:1' })).to.throw(/credentials/);
  });

  it('has no services when unset', function () {
    expect(loadConfig({}).pipeline.transcribe.urls).to.deep.equal([]);
  });
});
