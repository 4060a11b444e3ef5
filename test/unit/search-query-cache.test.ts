import { expect } from 'chai';
import type { Embedder } from '../../core/embedding/embedder.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { createQueryVectorCache } from '../../core/embedding/query-cache.js';

describe('QueryVectorCache', function () {
  it('embeds a repeated query once, whitespace aside', async function () {
    const embedder = createHashEmbedder();
    const cache = createQueryVectorCache(10);
    const a = await cache.embed(embedder, 'remote control');
    const b = await cache.embed(embedder, '  remote   control ');
    expect(b).to.equal(a);
    expect(embedder.embeddedCount).to.equal(1);
    expect([cache.hits, cache.misses]).to.deep.equal([1, 1]);
  });

  it('evicts the least recently used query', async function () {
    const embedder = createHashEmbedder();
    const cache = createQueryVectorCache(2);
    await cache.embed(embedder, 'a');
    await cache.embed(embedder, 'b');
    await cache.embed(embedder, 'a'); // a is now the most recent
    await cache.embed(embedder, 'c'); // evicts b
    expect(cache.size).to.equal(2);
    await cache.embed(embedder, 'a');
    expect(embedder.embeddedCount).to.equal(3);
    await cache.embed(embedder, 'b');
    expect(embedder.embeddedCount).to.equal(4);
  });

  it('shares one embedding between concurrent misses', async function () {
    const embedder = createHashEmbedder();
    const cache = createQueryVectorCache(10);
    await Promise.all([cache.embed(embedder, 'q'), cache.embed(embedder, 'q'), cache.embed(embedder, 'q')]);
    expect(embedder.embeddedCount).to.equal(1);
  });

  it('does not cache a failed embedding', async function () {
    let calls = 0;
    const flaky: Embedder = {
      ...createHashEmbedder(),
      modelId: 'flaky',
      embeddedCount: 0,
      embedQuery: async () => {
        calls++;
        if (calls === 1) throw new Error('model busy');
        return [1];
      },
    };
    const cache = createQueryVectorCache(10);
    await cache.embed(flaky, 'q').then(
      () => expect.fail('should have thrown'),
      (err: Error) => expect(err.message).to.equal('model busy'),
    );
    expect(await cache.embed(flaky, 'q')).to.deep.equal([1]);
    expect(calls).to.equal(2);
  });

  it('asks a guarded embedder to confirm its index before handing out a stored vector, and hands out none it refuses', async function () {
    // As index-guard.ts's embedder does once a reindex swapped in an index of another embedder: the stored vector must not meet it.
    let refused = false;
    let confirms = 0;
    const hash = createHashEmbedder();
    const guarded: Embedder = {
      ...hash,
      embedQuery: (text) => hash.embedQuery(text),
      confirmIndex: async () => {
        confirms++;
        if (refused) throw new Error('index of another embedder');
      },
    };
    const cache = createQueryVectorCache(10);
    const first = await cache.embed(guarded, 'q');
    expect(await cache.embed(guarded, 'q')).to.equal(first);
    expect(confirms, 'one confirmation, for the hit').to.equal(1);
    refused = true;
    await cache.embed(guarded, 'q').then(
      () => expect.fail('a stored vector was handed out for a refused index'),
      (err: Error) => expect(err.message).to.equal('index of another embedder'),
    );
  });

  it('hands out a stored vector early with its confirmation still running, and none of a fresh embedding', async function () {
    let release!: () => void;
    const pending = new Promise<void>((resolve) => (release = resolve));
    const hash = createHashEmbedder();
    const guarded: Embedder = { ...hash, embedQuery: (text) => hash.embedQuery(text), confirmIndex: () => pending };
    const cache = createQueryVectorCache(10);
    const fresh = await cache.embedEarly(guarded, 'q');
    expect(fresh.confirmed, 'a vector embedded now was checked before the model ran').to.equal(undefined);
    // The check has not answered, yet the stored vector is handed out with it.
    const early = await cache.embedEarly(guarded, 'q');
    expect(early.vector).to.equal(fresh.vector);
    let settled = false;
    void early.confirmed!.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).to.equal(false);
    release();
    await early.confirmed;
    expect(settled).to.equal(true);
  });

  it('keeps vectors of different models apart, and caches nothing at size 0', async function () {
    const cache = createQueryVectorCache(10);
    const e1 = createHashEmbedder(8);
    const e2 = createHashEmbedder(16);
    expect((await cache.embed(e1, 'q')).length).to.equal(8);
    expect((await cache.embed(e2, 'q')).length).to.equal(16);
    const off = createQueryVectorCache(0);
    await off.embed(e1, 'q');
    await off.embed(e1, 'q');
    expect(e1.embeddedCount).to.equal(3);
  });

  it("never lets one channel find a vector another channel's search left (no cross-channel timing)", async function () {
    const embedder = createHashEmbedder();
    const cache = createQueryVectorCache(10);
    await cache.embed(embedder, 'secret merger plans', 'ch_a');
    await cache.embed(embedder, 'secret merger plans', 'ch_b');
    expect(embedder.embeddedCount, 'a miss in the second channel').to.equal(2);
    await cache.embed(embedder, 'secret merger plans', 'ch_a');
    expect(embedder.embeddedCount, 'a hit in the first').to.equal(2);
    // Concurrent misses in two channels do not share one embedding either.
    await Promise.all([cache.embed(embedder, 'q', 'ch_a'), cache.embed(embedder, 'q', 'ch_b')]);
    expect(embedder.embeddedCount).to.equal(4);
  });

  it("keeps one channel's entries whatever another channel searches, and drops whole channels past maxScopes", async function () {
    const embedder = createHashEmbedder();
    const cache = createQueryVectorCache(2, { maxScopes: 2 });
    await cache.embed(embedder, 'kept', 'ch_a');
    for (let i = 0; i < 10; i++) await cache.embed(embedder, `flood ${i}`, 'ch_b');
    const before = embedder.embeddedCount;
    await cache.embed(embedder, 'kept', 'ch_a');
    expect(embedder.embeddedCount, 'still cached in ch_a').to.equal(before);
    await cache.embed(embedder, 'x', 'ch_c'); // a third channel: ch_b was searched least recently
    await cache.embed(embedder, 'kept', 'ch_a');
    expect(embedder.embeddedCount).to.equal(before + 1);
    expect(cache.size).to.equal(2);
  });
});
