// The embedder signature's pure helpers: defaults that reproduce today's bge behaviour, comparison, cache files, OpenAI answers.
import { expect } from 'chai';
import { BGE_QUERY_PREFIX, legacySignature, readSignature, resolvePooling, resolvePrefixes, signatureDifferences } from '../../core/embedding/signature.js';
import { mismatchMessage } from '../../core/embedding/index-signature.js';
import { normalise, readEmbeddings } from '../../core/embedding/openai.js';
import { EmbeddingsError } from '../../core/embedding/errors.js';
import { cacheFileName } from '../../core/embedding/embedding-cache.js';
import { fitsTarget } from '../../indexer/reindex.js';
import { DIMENSION_PLACEHOLDER, withDefaultDimension, withVectorDimension } from '../../core/store/vector-field.js';

const BGE = 'Xenova/bge-small-en-v1.5';

describe('embedder signature', function () {
  it('defaults a bge model to CLS pooling with the query instruction, and others to mean pooling without prefixes', function () {
    expect(resolvePooling(BGE)).to.equal('cls');
    expect(resolvePooling('Xenova/all-MiniLM-L6-v2')).to.equal('mean');
    expect(resolvePooling(BGE, 'mean')).to.equal('mean');
    expect(resolvePrefixes(BGE)).to.deep.equal({ queryPrefix: BGE_QUERY_PREFIX, passagePrefix: '' });
    expect(resolvePrefixes('intfloat/e5-small', { queryPrefix: 'query: ', passagePrefix: 'passage: ' })).to.deep.equal({ queryPrefix: 'query: ', passagePrefix: 'passage: ' });
  });

  it('names every field in which two signatures differ', function () {
    const a = legacySignature(BGE, 384);
    expect(signatureDifferences(a, { ...a })).to.deep.equal([]);
    expect(signatureDifferences(a, { ...a, kind: 'openai', pooling: 'server' })).to.deep.equal(['kind', 'pooling']);
    expect(readSignature({ ...a, dimension: 'x' })).to.equal(undefined);
    expect(readSignature(a)).to.deep.equal(a);
  });

  it('refuses with one line naming both models, and accepts the same embedder', function () {
    const live = { index: 'p-v2-1', signature: legacySignature(BGE, 384) };
    expect(mismatchMessage(live, legacySignature(BGE, 384))).to.equal(undefined);
    const message = mismatchMessage(live, { ...legacySignature(BGE, 384), kind: 'openai', model: 'remote/bge', pooling: 'server' })!;
    expect(message).to.include(`p-v2-1 holds vectors of model "${BGE}" but the embedder is "remote/bge"`);
    expect(message).to.include('they differ in kind, model, pooling');
    expect(message).not.to.include('\n');
  });

  it('keeps the cache file of the default embedder and gives any other signature its own', function () {
    expect(cacheFileName(legacySignature(BGE, 384))).to.equal('Xenova_bge-small-en-v1.5-384.vectors');
    expect(cacheFileName({ ...legacySignature(BGE, 384), queryPrefix: '' }), 'a query prefix never changes a passage vector').to.equal('Xenova_bge-small-en-v1.5-384.vectors');
    const remote = cacheFileName({ ...legacySignature(BGE, 384), kind: 'openai', pooling: 'server' });
    const mean = cacheFileName({ ...legacySignature(BGE, 384), pooling: 'mean' });
    expect(remote).to.match(/^Xenova_bge-small-en-v1\.5-384-[0-9a-f]{12}\.vectors$/);
    expect(mean).not.to.equal(remote);
  });

  it('re-uses stored vectors only for the same embedder, the dimension unknown until loaded', function () {
    const stored = legacySignature(BGE, 384);
    const { dimension: _d, ...target } = stored;
    expect(fitsTarget(stored, target)).to.equal(true);
    expect(fitsTarget(stored, { ...target, pooling: 'mean' })).to.equal(false);
    expect(fitsTarget(stored, { ...target, dimension: 768 })).to.equal(false);
    expect(fitsTarget(undefined, target)).to.equal(false);
  });

  it('fills the mapping placeholder: the default dimension when read, the embedder’s at creation', function () {
    const def = { mappings: { properties: { embedding: { type: 'knn_vector', dimension: DIMENSION_PLACEHOLDER } } } };
    expect(withDefaultDimension(def).mappings.properties.embedding.dimension).to.equal(384);
    expect(withVectorDimension(def, 1024).mappings.properties.embedding.dimension).to.equal(1024);
  });
});

describe('OpenAI embeddings answers', function () {
  it('orders vectors by index and normalises them', function () {
    const vectors = readEmbeddings(
      {
        data: [
          { index: 1, embedding: [0, 2] },
          { index: 0, embedding: [3, 4] },
        ],
      },
      2,
    ).map(normalise);
    expect(vectors).to.deep.equal([
      [0.6, 0.8],
      [0, 1],
    ]);
  });

  it('refuses an answer with a missing, duplicated, or non-numeric vector (embeddings_bad_answer)', function () {
    const bad = [
      { data: [{ index: 0, embedding: [1] }] },
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
      { data: [{ embedding: 'AAAA' }, { embedding: [1] }] },
      { nope: true },
    ];
    for (const body of bad) {
      const error = (() => {
        try {
          readEmbeddings(body, 2);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(body)).to.be.instanceOf(EmbeddingsError);
      expect((error as EmbeddingsError).code).to.equal('embeddings_bad_answer');
    }
  });
});
