import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, indexSettings, nodeUrls, readIndexDefinition } from '../../core/store/opensearch.js';

describe('index layout and node list', function () {
  it('creates indices with one shard and auto-expanding replicas (0 on one node, 1 on more) by default', async function () {
    const settings = indexSettings((await readIndexDefinition('passages')).settings);
    expect(settings).to.include({ number_of_shards: 1, auto_expand_replicas: '0-1', 'index.knn': true });
    expect(settings).not.to.have.property('number_of_replicas');
  });

  it('applies INDEX_SHARDS and a fixed INDEX_REPLICAS over whatever the mapping file says', function () {
    const { indexLayout } = loadConfig({ INDEX_SHARDS: '2', INDEX_REPLICAS: '1' });
    const settings = indexSettings({ number_of_shards: 5, 'index.number_of_replicas': 0, auto_expand_replicas: '0-all', refresh_interval: '1s' }, indexLayout);
    expect(settings).to.deep.equal({ number_of_shards: 2, number_of_replicas: 1, refresh_interval: '1s' });
  });

  it('keeps every other setting of the mapping file (analysis, k-NN)', async function () {
    const file = (await readIndexDefinition('episodes')).settings;
    expect(indexSettings(file, { shards: 1, replicas: 0 })).to.deep.equal({ number_of_shards: 1, number_of_replicas: 0, ...file });
  });

  it('keeps vectors out of the stored JSON of k-NN indices unless INDEX_VECTOR_SOURCE=stored', async function () {
    const passages = (await readIndexDefinition('passages')).settings;
    const episodes = (await readIndexDefinition('episodes')).settings;
    expect(indexSettings(passages)).to.include({ 'index.knn.derived_source.enabled': true });
    expect(indexSettings(episodes)).not.to.have.property('index.knn.derived_source.enabled');
    const { indexLayout } = loadConfig({ INDEX_VECTOR_SOURCE: 'stored' });
    expect(indexSettings(passages, indexLayout)).not.to.have.property('index.knn.derived_source.enabled');
    expect(() => loadConfig({ INDEX_VECTOR_SOURCE: 'inline' })).to.throw(/INDEX_VECTOR_SOURCE/);
  });

  it('reads several node URLs from one comma-separated value', function () {
    expect(nodeUrls('http://127.0.0.1:9201, http://127.0.0.1:9202,')).to.deep.equal(['http://127.0.0.1:9201', 'http://127.0.0.1:9202']);
    expect(nodeUrls(['http://a:9200'])).to.deep.equal(['http://a:9200']);
  });

  it('gives the client every node and one retry per other node, none for a single node', async function () {
    const three = createOpenSearchClient({ url: 'http://127.0.0.1:9201,http://127.0.0.1:9202,http://127.0.0.1:9203' });
    const one = createOpenSearchClient({ url: 'http://127.0.0.1:9200' });
    type Internals = { connectionPool: { connections: { url: URL }[] }; transport: { maxRetries: number } };
    const [a, b] = [three as unknown as Internals, one as unknown as Internals];
    expect(a.connectionPool.connections.map((c) => c.url.port)).to.deep.equal(['9201', '9202', '9203']);
    expect(a.transport.maxRetries).to.equal(2);
    expect(b.transport.maxRetries).to.equal(0);
    await Promise.all([three.close(), one.close()]);
  });
});
