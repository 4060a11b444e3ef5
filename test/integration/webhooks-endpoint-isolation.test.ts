// One receiver that never answers, against the real OpenSearch, Redis and the worker's webhook queues: it holds at
// most one of the shared delivery slots, so another endpoint's deliveries go on; once marked failing, an attempt to
// it gives up sooner (security review 2026-11-27, item 7).
import { createServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { testClient } from '../support/indexer-env.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { dropWebhookQueues, until } from '../support/webhooks-env.js';
import { indexEpisode, type IndexContext } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import type { Client } from '../../core/store/opensearch.js';
import { getEndpoint, listEndpoints, newEndpoint, recordAttempt, removeEndpoint, storeEndpoint } from '../../pipeline/webhooks/store.js';
import { startWebhookWorkers, type WebhookWorkers } from '../../pipeline/webhooks/worker.js';
import { testSecretsKey } from '../support/secrets-key.js';

/** A receiver that accepts connections and never answers: counts them, how many at once, and how long each stayed. */
async function startSilentReceiver(): Promise<{ url: string; opened: () => number; mostAtOnce: () => number; heldMs: number[]; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  let opened = 0;
  let most = 0;
  const heldMs: number[] = [];
  const server: Server = createTcpServer((socket) => {
    const at = Date.now();
    opened++;
    open.add(socket);
    most = Math.max(most, open.size);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      heldMs.push(Date.now() - at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    opened: () => opened,
    mostAtOnce: () => most,
    heldMs,
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver that answers 204 at once, recording when. */
async function startQuickReceiver(): Promise<{ url: string; times: number[]; close: () => Promise<void> }> {
  const times: number[] = [];
  const server: HttpServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      times.push(Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    times,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhooks: a receiver that never answers', function () {
  this.timeout(120_000);
  const TIMEOUT_MS = 2000;
  const FAILING_TIMEOUT_MS = 400;
  let client: Client;
  let store: ApiTestStore;
  let ctx: IndexContext;
  let connection: Redis;
  let workers: WebhookWorkers;
  let silent: Awaited<ReturnType<typeof startSilentReceiver>>;
  let quick: Awaited<ReturnType<typeof startQuickReceiver>>;
  let episodes = 0;
  const deps = () => ({ client, aliases: store.aliases });
  const key = testSecretsKey();

  async function writeEpisodes(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await indexEpisode(ctx, episodeRecord(`ep_iso${String(++episodes).padStart(3, '0')}`, 'ch_alpha', { status: 'indexed' }));
    await client.indices.refresh({ index: store.aliases.changes });
  }

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    silent = await startSilentReceiver();
    quick = await startQuickReceiver();
    connection = createRedisConnection(loadConfig(process.env).redisUrl);
    // Two shared slots, as `npm run worker` has eight: without isolation the silent receiver takes both.
    workers = await startWebhookWorkers({
      connection,
      indexPrefix: store.prefix,
      store: deps(),
      keyring: key.keyring,
      outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/test (+http://localhost)', timeoutMs: TIMEOUT_MS },
      failingTimeoutMs: FAILING_TIMEOUT_MS,
      retry: { schedule: [60_000], jitter: 0 },
      dispatchEveryMs: 100,
      concurrency: 2,
    });
  });

  afterEach(async function () {
    for (const e of await listEndpoints(deps())) await removeEndpoint(deps(), e.id);
  });

  after(async function () {
    await workers?.close();
    await dropWebhookQueues(connection, store.prefix);
    connection?.disconnect();
    await silent?.close();
    await quick?.close();
    await store?.drop();
    await client?.close();
  });

  it('holds one delivery slot at a time for a silent endpoint, so another endpoint gets every change meanwhile', async function () {
    // The silent endpoint first: its deliveries are enqueued ahead of the other's.
    await storeEndpoint(deps(), 'alpha', newEndpoint({ url: silent.url, keyring: key.keyring, allowPrivate: true }));
    await new Promise((r) => setTimeout(r, 5));
    await storeEndpoint(deps(), 'alpha', newEndpoint({ url: quick.url, keyring: key.keyring, allowPrivate: true }));
    await writeEpisodes(4);
    await until(() => quick.times.length === 4, 'the quick endpoint to get its four changes', { everyMs: 25 });
    // Four silent attempts in two slots would hold both for two deadlines before the quick endpoint's turn: here the
    // quick one has every change while the silent one's first attempt still hangs.
    expect(silent.opened(), 'attempts at the silent endpoint before the quick one had its changes').to.equal(1);
    await until(() => silent.opened() >= 2, 'a second attempt at the silent endpoint', { everyMs: 25 });
    expect(silent.mostAtOnce(), 'attempts in flight at once to the silent endpoint').to.equal(1);
  });

  it('gives up an attempt to an endpoint already marked failing after the shorter deadline', async function () {
    const created = newEndpoint({ url: silent.url, keyring: key.keyring, allowPrivate: true });
    await storeEndpoint(deps(), 'alpha', created);
    await recordAttempt(deps(), created.id, { at: new Date(), changeId: 'chg_earlier', status: 'timeout', ok: false, exhausted: true });
    expect((await getEndpoint(deps(), created.id))?.failingSince).to.be.a('string');
    const before = silent.heldMs.length;
    await writeEpisodes(1);
    await until(() => silent.heldMs.length > before, 'the attempt to end', { everyMs: 25 });
    const held = silent.heldMs[before]!;
    expect(held, 'how long the attempt held its connection').to.be.below(TIMEOUT_MS * 0.75);
    expect(held).to.be.at.least(FAILING_TIMEOUT_MS - 50);
  });
});
