// The webhook delivered checkpoint against the real OpenSearch and Redis (the suite's own prefix and queues): it stays
// before a delivery still retrying, reaches the cursor once everything is delivered, and a worker restarted on an
// intact Redis moves the cursor back to it without delivering anything twice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { testClient } from '../support/indexer-env.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { dropWebhookQueues, until } from '../support/webhooks-env.js';
import { testSecretsKey } from '../support/secrets-key.js';
import { indexEpisode, type IndexContext } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import type { Client } from '../../core/store/opensearch.js';
import { createDeliveryQueue, type DeliveryJob } from '../../pipeline/webhooks/queues.js';
import { checkpointDeliveries, rewindToDelivered, type CheckpointedEndpoint } from '../../pipeline/webhooks/recover.js';
import { getEndpoint, newEndpoint, storeEndpoint, type WebhookStoreDeps } from '../../pipeline/webhooks/store.js';
import { startWebhookWorkers, type WebhookWorkers } from '../../pipeline/webhooks/worker.js';

describe('webhooks: the delivered checkpoint', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let deps: WebhookStoreDeps;
  let ctx: IndexContext;
  let connection: Redis;
  let deliveryQueue: Queue<DeliveryJob>;
  let workers: WebhookWorkers | undefined;
  let server: Server;
  /** Each attempt: the change's id and the status answered (503 while `refusing`, 204 after). */
  const attempts: { id: string; status: number }[] = [];
  let refusing = true;
  let episodes = 0;
  const key = testSecretsKey();

  const start = () =>
    startWebhookWorkers({
      connection,
      indexPrefix: store.prefix,
      store: deps,
      keyring: key.keyring,
      outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/test (+http://localhost)', timeoutMs: 2000 },
      // The retry comes 3 s after a refusal: long enough to restart the worker while it waits.
      retry: { schedule: [3000, 3000], jitter: 0 },
      dispatchEveryMs: 150,
    });
  const endpoint = async (id: string) => (await getEndpoint(deps, id)) as CheckpointedEndpoint;
  const writeEpisode = () => indexEpisode(ctx, episodeRecord(`ep_cp${String(++episodes).padStart(3, '0')}`, 'ch_alpha', { status: 'indexed' }));

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    deps = { client, aliases: store.aliases };
    connection = createRedisConnection(loadConfig(process.env).redisUrl);
    deliveryQueue = createDeliveryQueue(connection, store.prefix);
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = refusing ? 503 : 204;
        attempts.push({ id: String(req.headers['webhook-id']), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  after(async function () {
    await workers?.close();
    await deliveryQueue?.close();
    if (store) await dropWebhookQueues(connection, store.prefix);
    connection?.disconnect();
    await new Promise((resolve) => server?.close(resolve));
    await store?.drop();
    await client?.close();
  });

  it('stays before deliveries still retrying, and a restart on an intact Redis delivers each of them once, then reaches the cursor', async function () {
    const created = newEndpoint({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, keyring: key.keyring, allowPrivate: true });
    const registered = (await storeEndpoint(deps, 'alpha', created)).cursorSeq;
    workers = await start();
    await writeEpisode();
    await writeEpisode();
    await until(() => new Set(attempts.map((a) => a.id)).size === 2, 'both changes attempted');

    await workers.close(); // writes a last checkpoint
    workers = undefined;
    const stopped = await endpoint(created.id);
    expect(stopped.cursorSeq).to.equal(registered + 2);
    expect(stopped.deliveredSeq, 'the checkpoint stays before the two refused changes').to.equal(registered);

    refusing = false;
    workers = await start(); // moves the cursor back to the checkpoint; the dispatcher finds both jobs still in Redis
    await until(() => attempts.filter((a) => a.status === 204).length === 2, 'both changes delivered');
    await new Promise((r) => setTimeout(r, 1500)); // dispatch runs every 150 ms: a second enqueue would show by now
    const delivered = attempts.filter((a) => a.status === 204).map((a) => a.id);
    expect(new Set(delivered).size, 'both changes delivered').to.equal(2);
    expect(delivered, 'neither delivered twice').to.have.length(2);
    // Refused attempts before the restart: at least the first of each (a slow close may let a retry in, refused too).
    expect(attempts.filter((a) => a.status === 503).length).to.be.at.least(2);

    await checkpointDeliveries({ store: deps, deliveryQueue });
    const done = await endpoint(created.id);
    expect([done.cursorSeq, done.deliveredSeq]).to.deep.equal([registered + 2, registered + 2]);
    expect(await rewindToDelivered(deps)).to.include({ endpoints: 1, rewound: 0, changes: 0 });
  });
});
