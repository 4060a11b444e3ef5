// An item with no audio whose transcript file cannot be read fails with a fixed sentence: no URL, no token from its
// query, nothing of what the fetcher found there (a private address or not), through the real worker, Redis and
// OpenSearch (security review 2026-11-27, item 14).
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { startPipelineWorkers, type PipelineWorkers } from '../../pipeline/follow/worker.js';
import { type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { type startCountingRelay, startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow } from '../support/follow-env.js';

describe("follow: an episode's error sentence", function () {
  this.timeout(120_000);
  let client: Client;
  let prefix: string;
  let aliases: IndexAliases;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let embeddings: HashEmbeddingsServer;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;
  let workers: PipelineWorkers | undefined;
  let connection: ReturnType<typeof createRedisConnection> | undefined;

  before(async function () {
    ({ client, prefix, relay, embeddings, env, aliases, drop } = await openFollowStore('follow-error-sentence'));
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
    await feed?.close();
    await drop?.();
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
