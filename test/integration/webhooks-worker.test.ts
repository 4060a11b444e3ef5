// A webhook delivered by the production worker: `bin/worker.ts` as a child process (as `npm run worker` runs it), an
// endpoint registered with `npm run webhooks`, an episode written by the indexer, and a loopback receiver that verifies
// the delivery with the reference Standard Webhooks library. Catches a worker that no longer starts its webhook
// workers, or passes them the wrong outbound settings (loopback refused, another User-Agent).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { testClient } from '../support/indexer-env.js';
import { runEntry } from '../support/run-entry.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { dropWebhookQueues, startRecordingEndpoint, until, type Received } from '../support/webhooks-env.js';
import { dropFollowStore } from '../support/follow-env.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { testSecretsKey } from '../support/secrets-key.js';
import { runScript, type Child } from '../../scripts/lib/child.js';
import { indexEpisode } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import type { Client } from '../../core/store/opensearch.js';
import { changesAfter } from '../../core/changes/read.js';
import { memberView } from '../../core/changes/views.js';
import { webhookQueueNames } from '../../pipeline/webhooks/queues.js';
import { getEndpoint } from '../../pipeline/webhooks/store.js';

const USER_AGENT = 'WebhooksWorkerTest/1.0 (+http://receiver.test)';

describe('webhooks: a delivery by the production worker (bin/worker.ts)', function () {
  this.timeout(180_000);
  const config = loadConfig(process.env);
  const key = testSecretsKey();
  let client: Client;
  let store: ApiTestStore;
  let connection: Redis;
  let embeddings: HashEmbeddingsServer;
  let libraryDir: string;
  let endpoint: Awaited<ReturnType<typeof startRecordingEndpoint>> | undefined;
  let base: string;
  let worker: Child | undefined;
  let env: Record<string, string>;
  let received: Received[] = [];

  before(async function () {
    client = testClient();
    ({ store } = await createIndexedTestWorld(client));
    // The worker checks the passages index against its own embedder (the hash embeddings server): it makes its own.
    const passages = Object.keys((await client.indices.getAlias({ name: store.aliases.passages })).body as Record<string, unknown>);
    await client.indices.delete({ index: passages.join(',') });
    embeddings = await startHashEmbeddingsServer();
    libraryDir = await mkdtemp(join(tmpdir(), 'webhooks-worker-lib-'));
    connection = createRedisConnection(config.redisUrl);
    endpoint = await startRecordingEndpoint();
    ({ base, received } = endpoint);
    env = {
      INDEX_PREFIX: store.prefix,
      QUEUE_NAME: `${store.prefix}ingest`,
      FOLLOW_LIBRARY_DIR: libraryDir,
      FOLLOW_POLL_INTERVAL_SECONDS: '3600',
      ENRICH: 'off',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      FOLLOW_USER_AGENT: USER_AGENT,
      LOG_LEVEL: 'info',
      ...key.env,
      ...embeddings.env,
    };
  });

  after(async function () {
    if (worker?.alive()) {
      worker.process.kill('SIGKILL');
      await worker.exited;
    }
    await endpoint?.close();
    await embeddings?.close();
    if (connection) {
      await dropWebhookQueues(connection, store.prefix);
      const ingest = new Queue(`${store.prefix}ingest`, { connection });
      await ingest.obliterate({ force: true });
      await ingest.close();
      connection.disconnect();
    }
    if (libraryDir) await rm(libraryDir, { recursive: true, force: true });
    // The pipeline's queues of the prefix, then its indices; closes the client.
    if (client) await dropFollowStore({ client, prefix: store.prefix, redisUrl: config.redisUrl });
  });

  it('delivers one change once, verifiable with the reference library and with the configured User-Agent', async function () {
    const add = await runEntry('bin/webhooks.ts', ['add', '--channel', 'alpha', '--url', `${base}/hook`], env);
    expect(add.code, add.stderr).to.equal(0);
    const lines = add.stdout.trim().split('\n');
    const endpointId = /^(wh_[0-9a-f]{16}) /.exec(lines[0]!)![1]!;
    const secret = lines.at(-1)!;

    worker = runScript('bin/worker.ts', ['--lock-duration', '3000', '--stalled-interval', '1000'], { ...process.env, ...env });
    await until(() => worker!.stderr().includes('worker started') || !worker!.alive(), 'the worker to start', { limitMs: 120_000, everyMs: 200 });
    expect(worker.alive(), worker.stderr()).to.equal(true);

    // An episode written by the indexer (with the vectors the worker's embedder gives): one episode.created change.
    const ctx = { client, embedder: embeddings.embedder(), aliases: store.aliases };
    await indexEpisode(ctx, episodeRecord('ep_worker001', 'ch_alpha', { status: 'indexed' }));
    await client.indices.refresh({ index: store.aliases.changes });
    const rows = await changesAfter(client, store.aliases.changes, { channelId: 'ch_alpha', afterSeq: 0, size: 1000 });
    const change = rows.find((r) => r.episodeId === 'ep_worker001')!;
    expect(change, 'the change the indexer wrote').to.not.equal(undefined);

    await until(() => received.length >= 1, 'the delivery', { limitMs: 60_000, everyMs: 100 });
    // Settled: the endpoint's cursor is past the change, its delivery recorded, and no delivery job is left to run.
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, endpointId))?.cursorSeq === change.seq, "the endpoint's cursor past the change");
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, endpointId))?.lastDeliveryStatus === '204', 'the delivery to be recorded');
    const deliver = new Queue(webhookQueueNames(store.prefix).deliver, { connection });
    try {
      await until(async () => {
        const counts = await deliver.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      }, 'the delivery queue to drain');
    } finally {
      await deliver.close();
    }

    expect(received.map((r) => r.path)).to.deep.equal(['/hook']);
    const [got] = received;
    expect(new Webhook(secret).verify(got!.body, got!.headers)).to.deep.equal({ type: 'episode.created', timestamp: memberView(change).occurredAt, data: memberView(change) });
    expect(got!.headers['webhook-id']).to.equal(change.id);
    expect(got!.headers['user-agent']).to.equal(USER_AGENT);
    // The signature is real: a changed body is refused by the same library.
    expect(() => new Webhook(secret).verify(got!.body.replace('episode.created', 'episode.deleted'), got!.headers)).to.throw('No matching signature found');

    // The worker stops on SIGTERM as an operator stops it, and nothing more was sent.
    worker.process.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).to.equal(0);
    expect(received).to.have.length(1);
  });
});
