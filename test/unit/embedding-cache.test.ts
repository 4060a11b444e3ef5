import { mkdtemp, rm, stat, appendFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { withEmbeddingCache } from '../../core/embedding/embedding-cache.js';

describe('withEmbeddingCache', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'embed-cache-'));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('embeds a text once and answers it from the file in a later process', async function () {
    const first = await withEmbeddingCache(createHashEmbedder(), { dir });
    const a = await first.embedPassages(['alpha beta', 'gamma']);
    expect(first.embeddedCount).to.equal(2);

    const model = createHashEmbedder();
    const second = await withEmbeddingCache(model, { dir });
    const b = await second.embedPassages(['gamma', 'alpha beta', 'delta']);
    expect(model.embeddedCount).to.equal(1);
    expect(second.cacheHits).to.equal(2);
    expect(b[0]!.map((v) => Math.fround(v))).to.deep.equal(a[1]!.map((v) => Math.fround(v)));
    expect(b[1]).to.have.length(384);
  });

  it('cuts a torn record left by a killed writer and keeps the whole ones', async function () {
    const cache = await withEmbeddingCache(createHashEmbedder(), { dir });
    await cache.embedPassages(['one', 'two']);
    const [file] = await readdir(dir);
    const path = join(dir, file!);
    const whole = (await stat(path)).size;
    await appendFile(path, Buffer.alloc(100, 7));
    const model = createHashEmbedder();
    const reopened = await withEmbeddingCache(model, { dir });
    expect((await stat(path)).size).to.equal(whole);
    await reopened.embedPassages(['one', 'two']);
    expect(model.embeddedCount).to.equal(0);
  });

  it('answers from vectors another open cache appended after it was opened (two loaders share the work)', async function () {
    const model = createHashEmbedder();
    const late = await withEmbeddingCache(model, { dir });
    const early = await withEmbeddingCache(createHashEmbedder(), { dir });
    await early.embedPassages(['shared one', 'shared two']);
    await late.embedPassages(['shared one', 'shared two', 'own']);
    expect(model.embeddedCount).to.equal(1);
    expect(late.cacheHits).to.equal(2);
  });
});
