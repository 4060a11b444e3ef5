// An item with no audio whose transcript file cannot be read fails with a fixed sentence: no URL, no token from its
// query, nothing of what the fetcher found there (a private address or not), through the real worker, Redis and
// OpenSearch (security review 2026-11-27, item 14).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { ensureIndices, type Client, type IndexAliases } from '../../src/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { startPipelineWorkers, type PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../support/hash-embeddings-server.js';
import { startCountingRelay, startFeedServer, type FeedServer } from '../support/feed-server.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';
import { dropFollowStore, followEnv, runFollow } from '../support/follow-env.js';

describe("follow: an episode's error sentence", function () {
  this.timeout(120_000);
  const config = loadConfig(process.env);
  let client: Client;
  let prefix: string;
  let aliases: IndexAliases;
  let libraryDir: string;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let embeddings: HashEmbeddingsServer;
  let feed: FeedServer;
  let env: Record<string, string>;
  let workers: PipelineWorkers | undefined;
  let connection: ReturnType<typeof createRedisConnection> | undefined;

  before(async function () {
    client = testClient();
    prefix = privatePrefix('follow-error-sentence');
    libraryDir = await mkdtemp(join(tmpdir(), 'follow-error-sentence-lib-'));
    relay = await startCountingRelay('http://127.0.0.1:9');
    embeddings = await startHashEmbeddingsServer();
    env = followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env });
    aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: 'u_creator', body: userDocument({ id: 'u_creator', name: 'Creator', plan: 'paid' }), refresh: true } as never);
    feed = await startFeedServer({
      title: 'Missing files',
      items: [{ guid: 'gone', title: 'Gone', pubDate: new Date(Date.UTC(2026, 1, 1)), transcript: { path: '/private/t.vtt?token=s3cr3t-t0ken', type: 'text/vtt' } }],
    });
    const cfg = loadConfig({ ...process.env, ...env });
    connection = createRedisConnection(cfg.redisUrl);
    workers = await startPipelineWorkers({
      connection,
      indexPrefix: prefix,
      pipeline: cfg.pipeline,
      ctx: { client, embedder: embeddings.embedder(), aliases },
      lockDurationMs: 3000,
      stalledIntervalMs: 1000,
    });
  });

  after(async function () {
    await workers?.close();
    connection?.disconnect();
    await embeddings?.close();
    await feed?.close();
    await relay?.close();
    if (client) await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    await rm(libraryDir, { recursive: true, force: true });
  });

  it('fails an item whose only transcript file answers 404 with a sentence naming no URL', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'missing', '--owner', 'u_creator'], env);
    expect(run.code, run.stderr).to.equal(0);
    let row: { status: string; error: string | null } | undefined;
    const deadline = Date.now() + 60_000;
    while (row?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error(`the episode did not fail: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 200));
      await client.indices.refresh({ index: aliases.episodes });
      const res = await client.search({ index: aliases.episodes, body: { size: 1, query: { term: { channelId: 'ch_missing' } } } } as never);
      row = (res.body as { hits: { hits: { _source: { status: string; error: string | null } }[] } }).hits.hits[0]?._source;
    }
    expect(row.error).to.equal('the transcript file could not be read, and the item has no audio');
    expect(
      feed.requests.some((r) => r.path === '/private/t.vtt' && r.status === 404),
      'the transcript file was asked for',
    ).to.equal(true);
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
  });
});
