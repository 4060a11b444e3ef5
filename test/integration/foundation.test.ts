// The real parts: OpenSearch with k-NN and English analysis, and the real embedding model.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { INDEX_NAMES, createOpenSearchClient, deleteIndices, ensureIndices, resolveAliases, type Client, type IndexAliases } from '../../core/store/opensearch.js';

const PASSAGES = [
  { id: 'p-stemming', text: 'She runs the whole studio from a tiny flat in Leeds.' },
  { id: 'p-semantic', text: 'The physician prescribed antibiotics for the infection.' },
  { id: 'p-other', text: 'Quarterly revenue grew by ten percent after the product launch.' },
];

describe('foundation: OpenSearch, English analysis, k-NN and the real model', function () {
  this.timeout(180_000);
  const config = loadConfig(process.env);
  const prefix = `test-foundation-${randomBytes(4).toString('hex')}-`;
  let client: Client;
  let embedder: Embedder;
  let aliases: IndexAliases;

  before(async function () {
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize });
    aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId });
    const vectors = await embedder.embedPassages(PASSAGES.map((p) => p.text));
    const body = PASSAGES.flatMap((p, i) => [
      { index: { _index: aliases.passages, _id: p.id } },
      { id: p.id, episodeId: 'ep-1', channelId: 'ch-1', kind: 'transcript', text: p.text, startMs: i * 1000, endMs: i * 1000 + 900, archived: false, embedding: vectors[i] },
    ]);
    const res = await client.bulk({ body: body as never, refresh: 'true' });
    expect(res.body.errors, JSON.stringify(res.body.items)).to.equal(false);
  });

  after(async function () {
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });

  it('runs a node whose plugins include k-NN and English analysis', async function () {
    const res = await client.nodes.info({ metric: 'plugins' } as never);
    const nodes = Object.values(res.body.nodes as Record<string, { plugins: { name: string }[]; modules: { name: string }[] }>);
    const names = nodes.flatMap((n) => [...n.plugins, ...n.modules].map((p) => p.name));
    expect(names).to.include('opensearch-knn');
    expect(names).to.include('analysis-common');
  });

  it('creates every index from mappings/ behind an alias of its prefix', async function () {
    const resolved = await resolveAliases(client, prefix);
    for (const name of INDEX_NAMES) {
      expect(resolved[name], name).to.match(new RegExp(`^${prefix}${name}-v\\d+-\\d+$`));
    }
    const mapping = await client.indices.getMapping({ index: aliases.passages });
    const props = Object.values(mapping.body as Record<string, { mappings: { properties: Record<string, { method?: unknown }>; _meta: { model?: string } } }>)[0]!.mappings;
    expect(props.properties.embedding).to.deep.include({ type: 'knn_vector', dimension: 384 });
    expect(props.properties.embedding!.method).to.deep.include({ engine: 'lucene', name: 'hnsw', space_type: 'cosinesimil' });
    expect(props._meta.model).to.equal(embedder.modelId);
  });

  it('finds "runs" for the query word "running" through English stemming', async function () {
    const res = await client.search({
      index: aliases.passages,
      body: { query: { match: { text: 'running' } } },
    });
    const ids = res.body.hits.hits.map((h) => h._id);
    expect(ids).to.deep.equal(['p-stemming']);
  });

  it('finds a passage by k-NN from a paraphrase that shares no word with it', async function () {
    const query = 'doctor gave medicine to treat a bacterial illness';
    const words = new Set(query.toLowerCase().split(/\W+/));
    expect(
      PASSAGES[1]!.text
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => words.has(w)),
    ).to.deep.equal([]);
    const keyword = await client.search({ index: aliases.passages, body: { query: { match: { text: query } } } });
    expect(keyword.body.hits.hits).to.have.length(0);

    const vector = await embedder.embedQuery(query);
    const res = await client.search({
      index: aliases.passages,
      body: { size: 3, query: { knn: { embedding: { vector, k: 3, filter: { term: { archived: false } } } } } },
    });
    expect(res.body.hits.hits[0]?._id).to.equal('p-semantic');
  });
});
