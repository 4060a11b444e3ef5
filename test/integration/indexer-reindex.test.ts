// Reindex by alias swap against the real OpenSearch, with searches running the whole time.
import { expect } from 'chai';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { deleteIndices, indexAliases, resolveAliases, type Client } from '../../core/store/opensearch.js';
import type { PassageDoc } from '../../core/store/documents.js';
import { textHash } from '../../indexer/documents.js';
import { passagesIndexModel } from '../../indexer/load-episode.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { reindex } from '../../indexer/reindex.js';
import { countDocs, countingEmbedder, privatePrefix, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

interface LoopResult {
  searches: number;
  errors: string[];
  empty: string[];
}

/**
 * Searches the aliases in a loop until `stop` resolves (plus a few rounds after): a
 * keyword query and a k-NN query on passages, and a catalog query, in one `_msearch`.
 */
async function searchLoop(client: Client, prefix: string, stop: Promise<unknown>): Promise<LoopResult> {
  const a = indexAliases(prefix);
  const vector = await createHashEmbedder().embedQuery('groundwater electricity pumps');
  const result: LoopResult = { searches: 0, errors: [], empty: [] };
  let done = false;
  void stop.finally(() => (done = true));
  let after = 0;
  while (!done || after++ < 5) {
    try {
      const res = await client.msearch({
        body: [
          { index: a.passages },
          { query: { bool: { must: { match: { text: 'groundwater electricity' } }, filter: { term: { archived: false } } } }, size: 3 },
          { index: a.passages },
          { query: { knn: { embedding: { vector, k: 5 } } }, size: 5 },
          { index: a.episodes },
          { query: { match: { title: 'food prices' } }, size: 3 },
        ],
      } as never);
      const responses = (res.body as { responses: { error?: unknown; hits?: { hits: unknown[] } }[] }).responses;
      responses.forEach((r, i) => {
        if (r.error) result.errors.push(`${i}: ${JSON.stringify(r.error).slice(0, 200)}`);
        else if ((r.hits?.hits.length ?? 0) === 0) result.empty.push(`search ${result.searches} leg ${i}`);
      });
    } catch (err) {
      result.errors.push((err as Error).message);
    }
    result.searches++;
  }
  return result;
}

describe('indexer: reindex by alias swap', function () {
  this.timeout(180_000);
  let client: Client;
  let prefix: string;

  beforeEach(async function () {
    client = testClient();
    prefix = privatePrefix('rdx');
    await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: SAMPLE_LIBRARY });
  });

  afterEach(async function () {
    await deleteIndices(client, prefix);
    await client.close();
  });

  it('moves every alias to new indices with the same documents while searches see no error and no empty answer', async function () {
    const before = await resolveAliases(client, prefix);
    const counts = await Promise.all((['episodes', 'passages', 'transcripts', 'chapters', 'users', 'channels', 'facets'] as const).map((n) => countDocs(client, prefix, n)));
    const embedder = createHashEmbedder();
    const run = reindex({
      client,
      prefix,
      modelId: embedder.modelId,
      embedder: () => Promise.reject(new Error('the model did not change: nothing may be re-embedded')),
      graceMs: 500,
    });
    const [summary, loop] = await Promise.all([run, searchLoop(client, prefix, run)]);

    expect(loop.errors).to.deep.equal([]);
    expect(loop.empty).to.deep.equal([]);
    expect(loop.searches).to.be.greaterThan(5);
    expect(summary.reembedded).to.equal(false);
    const after = await resolveAliases(client, prefix);
    for (const [name, index] of Object.entries(after)) expect(index, name).to.not.equal(before[name as keyof typeof before]);
    expect(summary.deleted.sort()).to.deep.equal(Object.values(before).sort());
    const remaining = await client.indices.get({ index: `${prefix}*` });
    expect(Object.keys(remaining.body).sort()).to.deep.equal(Object.values(after).sort());
    expect(await Promise.all((['episodes', 'passages', 'transcripts', 'chapters', 'users', 'channels', 'facets'] as const).map((n) => countDocs(client, prefix, n)))).to.deep.equal(
      counts,
    );
    // The copied vectors are the stored ones: the store keeps 32-bit floats (a real model's own
    // precision) and rebuilds `_source.embedding` from them, so the hash embedder's doubles come back rounded.
    const probe = (await client.get({ index: indexAliases(prefix).passages, id: 'ep_lf_002:t:3000' })).body._source as PassageDoc;
    expect(probe.embedding.map(Math.fround)).to.deep.equal((await embedder.embedPassages([probe.text]))[0]!.map(Math.fround));
  });

  it('re-embeds every passage when the configured model changed, and records the new model', async function () {
    const base = createHashEmbedder();
    const next = countingEmbedder(base, 'test/hash-384-v2');
    const passages = await countDocs(client, prefix, 'passages');
    const run = reindex({ client, prefix, modelId: next.modelId, embedder: async () => next, graceMs: 200 });
    const [summary, loop] = await Promise.all([run, searchLoop(client, prefix, run)]);
    expect(loop.errors).to.deep.equal([]);
    expect(loop.empty).to.deep.equal([]);
    expect(summary).to.include({ reembedded: true, previousModel: base.modelId, model: 'test/hash-384-v2' });
    expect(next.texts).to.equal(passages);
    expect(await passagesIndexModel(client, indexAliases(prefix))).to.equal('test/hash-384-v2');
    const probe = (await client.get({ index: indexAliases(prefix).passages, id: 'ep_lf_002:t:3000' })).body._source as PassageDoc;
    expect(probe.textHash).to.equal(textHash('test/hash-384-v2', probe.text));
    // Loading the library again with the new model finds everything unchanged.
    const again = countingEmbedder(base, 'test/hash-384-v2');
    const reload = await loadLibrary({ client, embedder: again, prefix, dir: SAMPLE_LIBRARY });
    expect(reload.episodes.unchanged).to.equal(11);
    expect(again.texts).to.equal(0);
  });

  it('refuses to load vectors of another model into the index, until a reindex', async function () {
    const other = countingEmbedder(createHashEmbedder(), 'test/other-model');
    let error: Error | undefined;
    await loadLibrary({ client, embedder: other, prefix, dir: SAMPLE_LIBRARY }).catch((err: Error) => (error = err));
    expect(error?.message).to.match(/holds vectors of model "test\/hash-384" but the embedder is "test\/other-model"; run `npm run reindex`/);
    expect(other.texts).to.equal(0);
  });
});
