import { expect } from 'chai';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';

const norm = (v: number[]) => Math.hypot(...v);
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('createHashEmbedder (test-only embedder)', function () {
  it('gives the same vector for the same text, across calls and instances', async function () {
    const a = createHashEmbedder();
    const b = createHashEmbedder();
    const [first] = await a.embedPassages(['The cat sat on the mat']);
    expect(await a.embedQuery('The cat sat on the mat')).to.deep.equal(first);
    expect(await b.embedQuery('The cat sat on the mat')).to.deep.equal(first);
  });

  it('returns unit-length vectors of the requested dimension, empty text included', async function () {
    const embedder = createHashEmbedder(64);
    expect(embedder.dimension).to.equal(64);
    for (const v of await embedder.embedPassages(['one', 'two words here', '', '!!!'])) {
      expect(v).to.have.length(64);
      expect(norm(v)).to.be.closeTo(1, 1e-9);
    }
  });

  it('ignores case and punctuation', async function () {
    const embedder = createHashEmbedder();
    expect(await embedder.embedQuery('Hello, World!')).to.deep.equal(await embedder.embedQuery('hello world'));
  });

  it('puts texts sharing words closer than texts sharing none', async function () {
    const embedder = createHashEmbedder();
    const [base, overlap, disjoint] = await embedder.embedPassages([
      'hybrid search over podcast transcripts',
      'podcast transcripts with word timings',
      'quarterly revenue grew by ten percent',
    ]);
    expect(dot(base!, overlap!)).to.be.greaterThan(dot(base!, disjoint!));
  });

  it('counts every text it embeds', async function () {
    const embedder = createHashEmbedder();
    expect(embedder.embeddedCount).to.equal(0);
    await embedder.embedPassages(['a', 'b', 'c']);
    await embedder.embedQuery('d');
    expect(embedder.embeddedCount).to.equal(4);
  });
});
