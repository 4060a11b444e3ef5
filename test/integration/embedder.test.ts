// The real model from MODEL_DIR: shape, geometry, query prefix and batching.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { skipUnprovisioned } from '../support/skip.js';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** Mixed lengths, so that batches of them need padding. */
const TEXTS = [
  'short',
  'A somewhat longer sentence, so that the batch needs padding for the others.',
  'Ten texts in batches of 4 make model calls of 4, 4 and 2.',
  'The cat sat on the mat',
  'A feline was resting on the rug',
  'Quarterly revenue grew by ten percent',
  'Speech recognition errors cluster around proper nouns.',
  'We could store the features in an XML file or a binary format.',
  'Yeah.',
  'Let us move on to the next item on the agenda.',
];

describe('createEmbedder with the real model', function () {
  this.timeout(120_000);
  const config = loadConfig(process.env);
  let embedder: Embedder;

  before(async function () {
    if (config.modelDir === undefined) skipUnprovisioned(this, "MODEL_DIR is not set (the embedding model's files)");
    embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: 1 });
  });

  it('returns 384-dimensional unit vectors', async function () {
    expect(embedder.dimension).to.equal(384);
    const [v] = await embedder.embedPassages(['The cat sat on the mat']);
    expect(v).to.have.length(384);
    expect(Math.hypot(...v!)).to.be.closeTo(1, 1e-4);
  });

  it('puts a paraphrase closer than an unrelated sentence', async function () {
    const [cat, feline, revenue] = await embedder.embedPassages(['The cat sat on the mat', 'A feline was resting on the rug', 'Quarterly revenue grew by ten percent']);
    expect(dot(cat!, feline!)).to.be.greaterThan(dot(cat!, revenue!) + 0.1);
  });

  it('ranks the relevant passage first for a prefixed query', async function () {
    const passages = await embedder.embedPassages(['Quarterly revenue grew by ten percent after the product launch.', 'The physician prescribed antibiotics for the infection.']);
    const query = await embedder.embedQuery('which medicine did the doctor give');
    expect(dot(query, passages[1]!)).to.be.greaterThan(dot(query, passages[0]!));
  });

  it('embeds a query differently from the same text as a passage', async function () {
    const text = 'how do I bleep out a word in a recording';
    const [passage] = await embedder.embedPassages([text]);
    const query = await embedder.embedQuery(text);
    expect(Math.hypot(...query)).to.be.closeTo(1, 1e-4);
    expect(dot(query, passage!)).to.be.lessThan(0.999);
  });

  it('gives each text the vector it gets alone when batchSize is 1', async function () {
    const batched = await embedder.embedPassages(TEXTS);
    expect(batched).to.have.length(TEXTS.length);
    for (const [i, text] of TEXTS.entries()) {
      const [single] = await embedder.embedPassages([text]);
      for (const [j, x] of single!.entries()) expect(batched[i]![j]).to.be.closeTo(x, 1e-4);
    }
  });

  // Not within 1e-4: the int8 model quantizes activations with one scale per model call,
  // so batch mates shift each other's vectors slightly. Close enough to rank the same.
  it('keeps vectors from batches of 4 within 0.98 cosine of one-by-one', async function () {
    const batchedEmbedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: 4 });
    const batched = await batchedEmbedder.embedPassages(TEXTS);
    const single = await embedder.embedPassages(TEXTS);
    for (const [i, vector] of batched.entries()) expect(dot(vector, single[i]!)).to.be.greaterThan(0.98);
  });

  it('lets timers run between model calls instead of blocking for the whole list', async function () {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await embedder.embedPassages(TEXTS);
    clearInterval(timer);
    expect(ticks).to.be.at.least(TEXTS.length - 1);
  });

  it('truncates a text longer than 512 tokens instead of failing', async function () {
    const long = 'The meeting went on about storage formats and transcripts. '.repeat(200);
    const [v] = await embedder.embedPassages([long]);
    expect(v).to.have.length(384);
    expect(Math.hypot(...v!)).to.be.closeTo(1, 1e-4);
  });

  it('counts every text it embeds', async function () {
    const before = embedder.embeddedCount;
    await embedder.embedPassages(['a', 'b', 'c', 'd', 'e']);
    await embedder.embedQuery('f');
    expect(embedder.embeddedCount - before).to.equal(6);
  });
});
