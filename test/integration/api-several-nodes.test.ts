// OPENSEARCH_URL naming several nodes: a node that is dead, or dies between requests, costs no answer.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, type Client } from '../../core/store/opensearch.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { createApiTestStore, seedWorld, type ApiTestStore } from '../support/api-fixture.js';
import { closedPort, relay } from '../support/api-net.js';

const DATA_PATHS = [
  '/api/v1/channels',
  '/api/v1/channels/alpha/episodes',
  '/api/v1/channels/alpha/search?q=tomatoes&fast=true',
  '/api/v1/episodes/ep_a01/transcript',
  '/api/v1/episodes/ep_a01/chapters',
  '/api/v1/episodes/ep_a01/related',
];

describe('API over several OpenSearch node URLs: a dead node is routed around', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let key: string;

  before(async function () {
    client = createOpenSearchClient({ url: loadConfig(process.env).opensearchUrl, timeoutMs: 30_000 });
    store = await createApiTestStore(client);
    await seedWorld(store);
    key = (await store.key('u_member')).key;
  });

  after(async function () {
    await store?.drop();
    await client?.close();
  });

  async function expectEveryPathAnswers(api: ApiHarness, rounds: number): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      for (const path of DATA_PATHS) {
        const res = await api.request(path, { headers: { 'x-api-key': key } });
        expect(res.status, `round ${round} ${path}: ${res.text.slice(0, 200)}`).to.equal(200);
      }
    }
  }

  it('answers every request when the first listed node refuses connections', async function () {
    const real = loadConfig(process.env).opensearchNodes[0]!;
    const api = await startApi({ env: { INDEX_PREFIX: store.prefix, OPENSEARCH_URL: `http://127.0.0.1:${await closedPort()},${real}` } });
    try {
      await expectEveryPathAnswers(api, 3); // round-robin lands on the dead node again and again
      expect((await api.request('/readyz')).status).to.equal(200);
    } finally {
      await api.close();
    }
  });

  it('keeps answering when one of two nodes dies between requests, with its connections dropped', async function () {
    const target = new URL(loadConfig(process.env).opensearchNodes[0]!);
    const [first, second] = [await relay(target), await relay(target)];
    const api = await startApi({ env: { INDEX_PREFIX: store.prefix, OPENSEARCH_URL: `${first.url()},${second.url()}` } });
    try {
      await expectEveryPathAnswers(api, 1); // both nodes in use, keep-alive connections open
      await first.stop();
      await expectEveryPathAnswers(api, 3);
    } finally {
      await api.close();
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
