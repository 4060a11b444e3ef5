// /metrics of the API and of the worker, scraped on their own listener after real requests and real jobs.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { createApiMetrics } from '../../src/metrics/api-metrics.js';
import { createWorkerMetrics } from '../../pipeline/metrics/ingest.js';
import { startMetricsListener, type MetricsListener } from '../../core/ground/metrics-listener.js';
import { createSearchCaches } from '../../src/app.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type Client } from '../../core/store/opensearch.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { jobIdOf, libraryJobs, type IngestJob } from '../../indexer/jobs.js';
import { createIngestQueue, createIngestWorker, createRedisConnection, enqueue } from '../../indexer/queue.js';
import { waitForJobs } from '../../indexer/job-wait.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { WORLD_CHANNELS, createApiTestStore, seedWorld, type ApiTestStore } from '../support/api-fixture.js';
import { connectMcp } from '../support/mcp-client.js';
import { scrape, sample } from '../support/prometheus.js';
import { SAMPLE_LIBRARY, privatePrefix } from '../support/indexer-env.js';
import { userDocument } from '../../indexer/documents.js';
import { followSource } from '../../pipeline/follow/commands.js';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { freePort, runScript, waitFor, type Child } from '../../scripts/lib/child.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { feedXml, startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { speak } from '../../scripts/lib/fakes/speech.js';
import { startTranscribeRelay, type TranscribeRelay } from '../support/transcribe-relay.js';
import { dropFollowStore, followEnv } from '../support/follow-env.js';
import { skipUnprovisioned } from '../support/skip.js';

const config = loadConfig(process.env);
const log = createLogger({ level: 'silent' });

describe('metrics: the API’s /metrics after real requests', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let embedder: Embedder;
  let api: ApiHarness;
  let listener: MetricsListener;

  before(async function () {
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    store = await createApiTestStore(client);
    await seedWorld(store);
    embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir });
    const caches = createSearchCaches(config);
    const metrics = createApiMetrics({ queryCache: caches.query });
    // Counters of this prefix are shared with earlier runs: start from empty ones.
    const redis = new Redis(config.redisUrl);
    const counters = await redis.keys(`rl:${store.prefix}*`);
    if (counters.length > 0) await redis.del(...counters);
    redis.disconnect();
    api = await startApi({
      env: { INDEX_PREFIX: store.prefix, ANONYMOUS_READ: 'published', TRUST_PROXY: 'loopback', RATE_LIMIT_MAX: '40' },
      client,
      embedder,
      metrics,
      caches,
    });
    listener = (await startMetricsListener({ registry: metrics.registry, host: '127.0.0.1', port: 0, log }))!;
  });

  after(async function () {
    await listener?.close();
    await api?.close();
    await store?.drop();
    await client?.close();
  });

  it('moves the request, search-phase and cache histograms and counters with real REST and MCP calls', async function () {
    const before = await scrape(listener.url);
    const query = `tomatoes in the garden ${randomBytes(3).toString('hex')}`;
    const path = `/api/v1/channels/alpha/search?q=${encodeURIComponent(query)}`;
    expect((await api.request(path)).status).to.equal(200); // embeds the query: a cache miss
    expect((await api.request(path)).status).to.equal(200); // the same vector: a hit
    expect((await api.request('/api/channels/alpha/search?q=soil&fast=true')).status).to.equal(200);
    expect((await api.request('/api/v1/channels/no-such-channel/search?q=soil')).status).to.equal(404);
    const mcp = await connectMcp(`${api.baseUrl}/channels/alpha/mcp`);
    const result = await mcp.callTool({ name: 'search', arguments: { query: 'tomatoes', fast: true } });
    expect(result.isError).to.not.equal(true);
    await mcp.close();
    const after = await scrape(listener.url);

    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    const searchRoute = { method: 'GET', route: '/api/v1/channels/:slug/search' };
    expect(delta('cca_http_request_duration_seconds_count', { ...searchRoute, status_class: '2xx' })).to.equal(3);
    expect(delta('cca_http_request_duration_seconds_count', { ...searchRoute, status_class: '4xx' })).to.equal(1);
    expect(delta('cca_http_request_duration_seconds_sum', searchRoute)).to.be.greaterThan(0);
    // Buckets move too: every search answered within 10 s.
    expect(delta('cca_http_request_duration_seconds_bucket', { ...searchRoute, le: '10' })).to.equal(4);
    expect(delta('cca_http_request_duration_seconds_count', { method: 'POST', route: '/channels/:slug/mcp', status_class: '2xx' })).to.be.at.least(3);
    expect(delta('cca_search_phase_duration_seconds_count', { phase: 'embed' })).to.equal(2);
    expect(delta('cca_search_phase_duration_seconds_count', { phase: 'engine' })).to.equal(4);
    expect(delta('cca_search_phase_duration_seconds_count', { phase: 'hydrate' })).to.equal(4);
    expect(delta('cca_search_phase_duration_seconds_sum', { phase: 'engine' })).to.be.greaterThan(0);
    expect(delta('cca_query_vector_cache_misses_total')).to.equal(1);
    expect(delta('cca_query_vector_cache_hits_total')).to.equal(1);
    expect(delta('cca_mcp_tool_calls_total', { tool: 'search', outcome: 'ok' })).to.equal(1);
    // Node's process metrics come with them.
    expect(after).to.match(/^process_cpu_user_seconds_total /m);
    expect(after).to.match(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts searches sent beside their channel check: used, and thrown away when the member was removed', async function () {
    const { key } = await store.key('u_member');
    const headers = { 'x-api-key': key };
    const before = await scrape(listener.url);
    for (let i = 0; i < 3; i++) expect((await api.request('/api/v1/channels/alpha/search?q=soil&fast=true', { headers })).status).to.equal(200);
    const alpha = WORLD_CHANNELS[0]!;
    await store.channels([{ ...alpha, memberIds: [] }]);
    try {
      expect((await api.request('/api/v1/channels/alpha/search?q=soil&fast=true', { headers, unchecked: true })).status).to.equal(404);
    } finally {
      await store.channels([alpha]);
    }
    const after = await scrape(listener.url);
    const delta = (outcome: string) => sample(after, 'cca_early_searches_total', { outcome }) - sample(before, 'cca_early_searches_total', { outcome });
    // The first search lets the key in; the next two go out beside the channel check; the removed member's is thrown away.
    expect(delta('used')).to.equal(2);
    expect(delta('refused')).to.equal(1);
    expect(delta('searched_again')).to.equal(0);
  });

  it('counts rate-limit rejections and store errors by kind', async function () {
    const before = await scrape(listener.url);
    // A caller of its own (X-Forwarded-For, trusted from loopback) spends its quota of 40.
    let refused = 0;
    for (let i = 0; i < 42; i++) {
      const res = await api.request('/api/v1/channels/alpha/episodes?limit=1', { headers: { 'x-forwarded-for': '198.51.100.23' } });
      if (res.status === 429) refused++;
    }
    expect(refused).to.equal(2);
    // The passages index goes away: searches fail as a store not set up.
    const res = await client.indices.getAlias({ name: store.aliases.passages });
    await client.indices.delete({ index: Object.keys(res.body) });
    expect((await api.request('/api/v1/channels/alpha/search?q=soil&fast=true')).status).to.equal(503);
    const after = await scrape(listener.url);
    expect(sample(after, 'cca_rate_limit_rejections_total') - sample(before, 'cca_rate_limit_rejections_total')).to.equal(2);
    expect(sample(after, 'cca_store_errors_total', { kind: 'missing_index' }) - sample(before, 'cca_store_errors_total', { kind: 'missing_index' })).to.equal(1);
  });

  it('is served on its own listener only: the API port has no /metrics', async function () {
    expect((await api.request('/metrics', { unchecked: true })).status).to.equal(404);
    expect((await fetch(listener.url.replace('/metrics', '/other'))).status).to.equal(404);
  });
});

describe('metrics: the worker’s /metrics after real jobs', function () {
  this.timeout(240_000);

  it('counts completed, retried and failed jobs, their durations, embedded passages and the queue by state', async function () {
    const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
    const connection = createRedisConnection(config.redisUrl);
    const prefix = privatePrefix('metrics');
    const queueName = `test-metrics-${randomBytes(4).toString('hex')}`;
    const queue = createIngestQueue({ connection, name: queueName });
    const model = await createIndexerEmbedder(config, { log });
    // The first model call fails once: that job is retried (2 s later) and then completes.
    let failedOnce = false;
    const embedder = {
      ...model,
      modelId: model.modelId,
      dimension: model.dimension,
      embedPassages: async (texts: string[]) => {
        if (!failedOnce) {
          failedOnce = true;
          throw new Error('model hiccup (test)');
        }
        return model.embedPassages(texts);
      },
    };
    const aliases = await ensureIndices(client, { prefix, modelId: model.modelId });
    const worker = createIngestWorker({ connection, name: queueName, ctx: { client, embedder, aliases, log } });
    const { registry } = createWorkerMetrics({ worker, queue });
    const listener = (await startMetricsListener({ registry, host: '127.0.0.1', port: 0, log }))!;
    try {
      const ids: string[] = [];
      for await (const job of libraryJobs(SAMPLE_LIBRARY, { onIssue: () => undefined })) ids.push((await enqueue(queue, job)).id);
      // A record the worker refuses: failed at once, never retried.
      const bad = { kind: 'episode', record: { id: 'ep_bad', channelId: 'ch_nowhere' } } as unknown as IngestJob;
      ids.push((await enqueue(queue, bad)).id);
      const outcomes = await waitForJobs(queue, ids, { pollMs: 250 });
      expect(outcomes.filter((o) => o.state === 'failed').map((o) => o.id)).to.deep.equal([jobIdOf(bad)]);

      const text = await scrape(listener.url);
      expect(sample(text, 'cca_worker_jobs_completed_total', { kind: 'episode' })).to.equal(11);
      expect(sample(text, 'cca_worker_jobs_completed_total', { kind: 'meta' })).to.equal(1);
      expect(sample(text, 'cca_worker_jobs_completed_total', { kind: 'sync' })).to.equal(1);
      expect(sample(text, 'cca_worker_jobs_retried_total', { kind: 'episode' })).to.equal(1);
      expect(sample(text, 'cca_worker_jobs_failed_total', { kind: 'episode' })).to.equal(1);
      expect(sample(text, 'cca_worker_job_duration_seconds_count', { outcome: 'completed' })).to.equal(13);
      expect(sample(text, 'cca_worker_job_duration_seconds_count', { outcome: 'retried' })).to.equal(1);
      expect(sample(text, 'cca_worker_job_duration_seconds_sum', { kind: 'episode', outcome: 'completed' })).to.be.greaterThan(0);
      // Every passage of the sample library got a vector (78 passages), counted once.
      expect(sample(text, 'cca_worker_passages_embedded_total')).to.equal(78);
      expect(sample(text, 'cca_worker_queue_jobs', { state: 'completed' })).to.equal(13);
      expect(sample(text, 'cca_worker_queue_jobs', { state: 'failed' })).to.equal(1);
      expect(sample(text, 'cca_worker_queue_jobs', { state: 'waiting' })).to.equal(0);
      expect(text).to.match(/^process_resident_memory_bytes /m);
    } finally {
      await listener.close();
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
      await deleteIndices(client, prefix);
      await client.close();
    }
  });
});

describe('metrics: the pipeline in the worker’s /metrics after a real feed', function () {
  this.timeout(300_000);
  const TRANSCRIBE_URL = process.env.TRANSCRIBE_URL;
  const OWNER = 'u_metrics_owner';
  const prefix = privatePrefix('metricsfeed');
  let client: Client;
  let libraryDir: string;
  let feed: FeedServer;
  let relay: TranscribeRelay;
  let worker: Child | undefined;
  /** The worker's embedder (EMBEDDER=openai): the hash embedder served over the embeddings protocol. */
  let embeddings: HashEmbeddingsServer;

  before(async function () {
    if (!TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
    embeddings = await startHashEmbeddingsServer();
    libraryDir = await mkdtemp(join(tmpdir(), 'metrics-follow-'));
    relay = await startTranscribeRelay(TRANSCRIBE_URL!);
    // The first transcription request answers 503 (a service restarting); enrichment's NER calls pass.
    relay.refuseNext(1);
    feed = await startFeedServer({ title: 'Metrics Radio' });
  });

  after(async function () {
    if (worker?.alive()) worker.process.kill('SIGKILL');
    await embeddings?.close();
    if (!client) return;
    await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    await feed?.close();
    await relay?.close();
    await rm(libraryDir, { recursive: true, force: true });
  });

  it('counts jobs by kind and outcome, polls by outcome, audio and transcription seconds, and discovery-to-searchable times', async function () {
    const env = followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env });
    const pipeline = loadConfig({ ...process.env, ...env }).pipeline;
    const aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: OWNER, body: userDocument({ id: OWNER, name: 'Owner', plan: 'paid' }), refresh: true } as never);

    // Channel "metrics-radio": an audio item (its first transcription answers 503, then it is retried), an item whose
    // audio answers 404, an item with its own SRT. Channel "metrics-other": a feed without validators (no 304 possible).
    const audioDir = await mkdtemp(join(tmpdir(), 'metrics-audio-'));
    await speak(['The lighthouse keeper climbs the stairs at dusk.'], join(audioDir, 'lighthouse.mp3'));
    feed.setFile('/audio/lighthouse.mp3', await readFile(join(audioDir, 'lighthouse.mp3')), 'audio/mpeg');
    await rm(audioDir, { recursive: true, force: true });
    const srt = (text: string) => `1\n00:00:00,000 --> 00:00:03,000\n${text}\n`;
    feed.setFile('/srt/bread.srt', srt('Bread wants time.'), 'application/srt');
    feed.setFile('/srt/tea.srt', srt('Tea wants hot water.'), 'application/srt');
    feed.setFile('/srt/coffee.srt', srt('Coffee wants a grinder.'), 'application/srt');
    const day = (n: number) => new Date(Date.UTC(2026, 1, n));
    feed.addItem({ guid: 'lighthouse', title: 'Lighthouse', pubDate: day(1), enclosure: '/audio/lighthouse.mp3' });
    feed.addItem({ guid: 'missing', title: 'Missing', pubDate: day(2), enclosure: '/audio/missing.mp3' });
    feed.addItem({ guid: 'bread', title: 'Bread', pubDate: day(3), transcript: { path: '/srt/bread.srt', type: 'application/srt' } });
    const other = feedXml({
      title: 'Metrics Other',
      language: 'en',
      base: feed.url,
      items: [{ guid: 'tea', title: 'Tea', pubDate: day(4), transcript: { path: '/srt/tea.srt', type: 'application/srt' } }],
    });
    feed.setFile('/other.xml', other, 'application/rss+xml');

    const connection = createRedisConnection(config.redisUrl);
    const pollQueue = createPollQueue(connection, prefix);
    const processQueue = createProcessQueue(connection, prefix);
    try {
      const deps = { pipeline, ctx: { client, embedder: embeddings.embedder(), aliases, log }, processQueue, pollQueue, log };
      // The first polls are the CLI's (`npm run follow`), not the worker's: they are not in its metrics.
      await followSource(deps, { source: feed.feedUrl, slug: 'metrics-radio', ownerId: OWNER });
      await followSource(deps, { source: `${feed.url}/other.xml`, slug: 'metrics-other', ownerId: OWNER });

      const port = await freePort();
      worker = runScript('bin/worker.ts', ['--metrics-port', String(port)], { ...process.env, ...env });
      const url = `http://127.0.0.1:${port}/metrics`;
      const up = await waitFor(
        () =>
          scrape(url).then(
            (text) => /^cca_pipeline_jobs_total/m.test(text),
            () => false,
          ),
        60_000,
      );
      expect(up, worker.stderr()).to.equal(true);

      const statuses = async () => {
        await client.indices.refresh({ index: aliases.episodes });
        const res = await client.search({ index: aliases.episodes, body: { size: 50, query: { match_all: {} } } } as never);
        const hits = (res.body as { hits: { hits: { _source: { title: string; status: string } }[] } }).hits.hits;
        return new Map(hits.map((h) => [h._source.title, h._source.status]));
      };
      const settled = (titles: string[]) => async () => {
        const now = await statuses();
        return titles.every((t) => now.get(t) === 'published' || now.get(t) === 'failed');
      };
      // Lighthouse waits out its retry (15 s backoff).
      expect(await waitFor(settled(['Lighthouse', 'Missing', 'Bread', 'Tea']), 180_000), worker.stderr()).to.equal(true);

      // Polls through the worker's queue, as the schedulers run them: 304, then 200 with a new item, unchanged, error.
      const poll = async (slug: string) => {
        const job = await pollQueue.add('poll', { slug, force: true });
        expect(await waitFor(async () => ['completed', 'failed'].includes(await job.getState()), 60_000)).to.equal(true);
      };
      await poll('metrics-radio');
      feed.addItem({ guid: 'coffee', title: 'Coffee', pubDate: day(5), transcript: { path: '/srt/coffee.srt', type: 'application/srt' } });
      await poll('metrics-radio');
      await poll('metrics-other');
      feed.setFile('/other.xml', 'this is not a feed', 'text/plain');
      await poll('metrics-other');
      expect(await waitFor(settled(['Coffee']), 60_000)).to.equal(true);
      const now = await statuses();
      expect(Object.fromEntries(now)).to.deep.equal({ Lighthouse: 'published', Missing: 'failed', Bread: 'published', Tea: 'published', Coffee: 'published' });

      const text = await scrape(url);
      for (const outcome of ['200', '304', 'unchanged', 'error']) expect(sample(text, 'cca_pipeline_polls_total', { outcome }), `polls ${outcome}`).to.equal(1);
      // The schedulers may add polls of their own when the worker starts (skipped: before their time).
      expect(sample(text, 'cca_pipeline_jobs_total', { kind: 'poll', outcome: 'completed' })).to.be.at.least(4);
      expect(sample(text, 'cca_pipeline_jobs_total', { kind: 'poll', outcome: 'failed' })).to.equal(0);
      expect(sample(text, 'cca_pipeline_jobs_total', { kind: 'process', outcome: 'completed' })).to.equal(4);
      expect(sample(text, 'cca_pipeline_jobs_total', { kind: 'process', outcome: 'failed' })).to.equal(1);
      expect(sample(text, 'cca_pipeline_jobs_total', { kind: 'process', outcome: 'retried' })).to.equal(1);
      expect(sample(text, 'cca_pipeline_episodes_published_total', { transcript: 'audio' })).to.equal(1);
      expect(sample(text, 'cca_pipeline_episodes_published_total', { transcript: 'feed' })).to.equal(3);
      // One spoken sentence of about 3 s (with espeak's lead silence).
      expect(sample(text, 'cca_pipeline_audio_seconds_total')).to.be.within(1, 10);
      expect(sample(text, 'cca_pipeline_transcription_seconds_total')).to.be.greaterThan(0);
      expect(sample(text, 'cca_pipeline_discovery_to_searchable_seconds_count')).to.equal(4);
      // Lighthouse's time includes its retry's 15 s backoff.
      expect(sample(text, 'cca_pipeline_discovery_to_searchable_seconds_sum')).to.be.at.least(15);
      expect(sample(text, 'cca_pipeline_discovery_to_searchable_seconds_bucket', { le: '+Inf' })).to.equal(4);
      // The ingest worker's series are still there beside them.
      expect(text).to.match(/^cca_worker_queue_jobs\{state="waiting"\} /m);
    } finally {
      await Promise.all([pollQueue.close(), processQueue.close()]);
      connection.disconnect();
    }
  });
});
