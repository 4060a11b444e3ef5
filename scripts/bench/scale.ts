// Scale benchmark: channel-scoped search latency, k-NN recall, load rate, index size and heap at 100k, 300k and 1M passages.
//
//   npm run bench:scale -- [--sizes 100000,300000,1000000] [--source test-qmsum-] [--requests 300] [--passes 1]
//                          [--recall-queries 50] [--m 16] [--ef-construction 128] [--shards 1] [--noise 0.3] [--concurrent-segments]
//
// Passages are synthesized, not embedded: each synthetic episode copies a real episode of the
// source prefix (an already loaded library, qmsum by default: its passage texts, speakers and
// chapter titles), each passage's vector is that real passage's vector moved by a little noise
// and normalised again. Channels have sizes drawn log-uniformly (200 to 20,000 passages by
// default), so the store grows by adding channels. The store grows in place from one size to
// the next in a throw-away prefix (`bench-scale-<pid>-`), deleted at the end, on failure and on
// Ctrl-C. At each size: searches of random channels through the real pipeline (`runSearch`,
// in-process: both round trips, fusion, grouping, citations), hybrid and `fast`; k-NN recall@10
// of the pipeline's k-NN query against exact search (script_score), channel-scoped and over the
// whole store; index size, segments and the node's heap. Loopback nodes only.
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { bulkWrite, type BulkOp } from '../../indexer/bulk.js';
import { scrollHits } from '../../indexer/scroll.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createEmbedder } from '../../src/embedder.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { buildFilters } from '../../src/store/filters.js';
import { buildKnnQuery } from '../../src/search/knn-query.js';
import { createQueryVectorCache } from '../../src/search/query-cache.js';
import { evenSubset, parseQueries } from '../eval/relevance.js';
import { runSearch, type SearchDeps } from '../../src/search/search.js';
import type { SearchParams } from '../../src/search/types.js';
import type { ChannelDoc } from '../../src/store/documents.js';
import {
  createOpenSearchClient,
  createVersionedIndices,
  deleteIndices,
  indexAliases,
  indexSettings,
  readIndexDefinition,
  swapAliases,
  type Client,
} from '../../src/store/opensearch.js';
import { positive } from '../lib/cli-args.js';
import { noisyUnitVector, percentile, planChannels, recallAt, seededRandom, type ChannelPlan } from './scale-synthesize.js';
import { useProvisionedModel } from '../ops/provision/model.js';

await useProvisionedModel('bench:scale');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Set by Ctrl-C while bulk requests are in flight: the load stops sending and waits for them,
 * then the indices are deleted. Deleting first would let a late bulk item auto-create the index again.
 */
const interruption = { requested: false, loading: false };

class Interrupted extends Error {}

interface Options {
  sizes: number[];
  source: string;
  queries: string;
  distinct: number;
  requests: number;
  passes: number;
  recallQueries: number;
  efSearch: number[];
  m: number;
  efConstruction: number;
  shards: number;
  noise: number;
  minChannel: number;
  maxChannel: number;
  seed: number;
  bulkMb: number;
  concurrentSegments: boolean;
}

/** A real passage: everything stored but the vector, which is kept as float32. */
interface SourcePassage {
  doc: Record<string, unknown>;
  vector: Float32Array;
}

/** A real episode with its passages in order. */
interface SourceEpisode {
  doc: Record<string, unknown>;
  passages: SourcePassage[];
}

interface Latency {
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  /** The legs' round trip alone (first `_msearch`). */
  legsP50: number;
  legsP95: number;
  /** p95 of searches of channels of at least 5,000 passages. */
  bigChannelsP95: number;
  /** Slowest query embedding inside a timed search: about 0 when every probe's vector came from the cache, as intended. */
  embedMaxMs: number;
  /** What a search spends outside the legs' round trip and the embedding (hydration, fusion, grouping), p50 and p95. */
  restP50: number;
  restP95: number;
}

interface StageResult {
  passages: number;
  channels: number;
  episodes: number;
  loadSeconds: number;
  passagesPerSecond: number;
  mergeWaitSeconds: number;
  storeBytes: number;
  bytesPerPassage: number;
  segments: number;
  heapUsedMb: number;
  heapPeakDuringLoadMb: number;
  heapMaxMb: number;
  hybrid: Latency;
  fast: Latency;
  recall: { channel: number; global: number; queries: number };
  /** Recall with a larger HNSW candidate list (`method_parameters.ef_search`), by ef_search. */
  recallByEfSearch: Record<string, { channel: number; global: number }>;
  /** The same searches again with the index's segments searched concurrently (`--concurrent-segments`). */
  concurrent?: { hybrid: Latency; fast: Latency };
}

const list = (value: string): number[] => value.split(',').map((s) => positive(s.trim()));
const fraction = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
};

function parseOptions(): Options {
  return new Command()
    .name('bench:scale')
    .description('Synthesizes passages at growing sizes in a throw-away prefix and measures search latency, k-NN recall, load rate, size and heap.')
    .option('--sizes <list>', 'store sizes in passages, ascending', list, [100_000, 300_000, 1_000_000])
    .option('--source <prefix>', 'prefix of a loaded library whose passages and vectors are copied', 'test-qmsum-')
    .option('--queries <file>', 'query texts (JSON lines with a query field)', '../shared/data/qmsum/queries-dev.jsonl')
    .option('--distinct <n>', 'distinct queries cycled through', positive, 200)
    .option('--requests <n>', 'searches per mode and size', positive, 300)
    .option('--passes <n>', 'timed passes over the same sample per mode and size; the table shows the last (the first reads freshly merged segments cold), the log every pass', positive, 1)
    .option('--recall-queries <n>', 'queries of the recall sample (each: channel-scoped and whole store)', positive, 50)
    .option('--ef-search <list>', 'also measure recall with these HNSW candidate lists (method_parameters.ef_search)', list, [])
    .option('--m <n>', 'HNSW m (links per node)', positive, 16)
    .option('--ef-construction <n>', 'HNSW ef_construction', positive, 128)
    .option('--shards <n>', 'primary shards of the passages index', positive, 1)
    .option('--noise <x>', 'relative length of the noise added to each copied vector', fraction, 0.3)
    .option('--min-channel <n>', 'smallest channel, in passages', positive, 200)
    .option('--max-channel <n>', 'largest channel, in passages', positive, 20_000)
    .option('--seed <n>', 'seed of the synthetic library and of the query sample', positive, 1)
    .option('--bulk-mb <n>', 'size of one _bulk request', positive, 4)
    .option('--concurrent-segments', 'also time every mode with concurrent segment search on the passages index', false)
    .parse()
    .opts<Options>();
}

// ---------------------------------------------------------------------------------------------
// Store I/O

async function getJson<T>(node: string, path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${node}${path}`, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

async function heapMb(node: string): Promise<{ used: number; max: number }> {
  const body = await getJson<{ nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }> }>(
    node,
    '/_nodes/_local/stats/jvm?filter_path=nodes.*.jvm.mem',
  );
  const mem = Object.values(body.nodes)[0]!.jvm.mem;
  return { used: Math.round(mem.heap_used_in_bytes / 2 ** 20), max: Math.round(mem.heap_max_in_bytes / 2 ** 20) };
}

/** Reads every passage (vector included) and episode of the source prefix. */
async function readSource(client: Client, prefix: string, log: Logger): Promise<SourceEpisode[]> {
  const source = indexAliases(prefix);
  const episodes = new Map<string, SourceEpisode>();
  for await (const page of scrollHits<Record<string, unknown>>(client, { index: source.episodes, size: 500 })) {
    for (const h of page) episodes.set(h._id, { doc: h._source!, passages: [] });
  }
  let read = 0;
  for await (const page of scrollHits<Record<string, unknown>>(client, { index: source.passages, size: 1000 })) {
    for (const h of page) {
      const { embedding, ...doc } = h._source!;
      episodes.get(String(doc.episodeId))?.passages.push({ doc, vector: Float32Array.from(embedding as number[]) });
    }
    read += page.length;
  }
  const usable = [...episodes.values()].filter((e) => e.passages.length > 0);
  for (const e of usable) e.passages.sort((a, b) => Number(a.doc.startMs) - Number(b.doc.startMs) || String(a.doc.kind).localeCompare(String(b.doc.kind)));
  if (usable.length === 0) throw new Error(`no passages under prefix "${prefix}": load a library there first (npm test loads qmsum into test-qmsum-)`);
  log.info({ source: prefix, episodes: usable.length, passages: read }, 'read the source library');
  return usable;
}

/** The passages index with the HNSW and shard settings under test; the episodes index as mapped. */
async function createStore(client: Client, prefix: string, opts: Options, modelId: string): Promise<{ passages: string; episodes: string }> {
  const layout = { shards: opts.shards, replicas: 0 } as const;
  const def = await readIndexDefinition('passages');
  const embedding = def.mappings.properties.embedding as { method: { parameters: Record<string, number> } };
  embedding.method.parameters = { ...embedding.method.parameters, m: opts.m, ef_construction: opts.efConstruction };
  const passages = `${prefix}passages-v${Number(def.mappings._meta?.version ?? 1)}-${Date.now()}`;
  await client.indices.create({
    index: passages,
    body: {
      // No refresh while loading: a refresh every second makes a tiny segment (and graph) to merge each time.
      settings: { ...indexSettings(def.settings, layout), refresh_interval: '-1' },
      mappings: { ...def.mappings, _meta: { ...def.mappings._meta, model: modelId } },
    } as never,
  });
  const { episodes } = await createVersionedIndices(client, { prefix, modelId, names: ['episodes'], layout });
  await swapAliases(client, prefix, { passages, episodes });
  return { passages, episodes };
}

/** The bulk operations of one synthetic channel: its episodes (copies of random real ones) and their passages. */
function* channelOps(
  plan: ChannelPlan,
  source: SourceEpisode[],
  index: { passages: string; episodes: string },
  random: () => number,
  noise: number,
): Generator<BulkOp & { op: 'index' }> {
  const channelId = `sc${plan.n}`;
  let left = plan.size;
  for (let e = 0; left > 0; e++) {
    const real = source[Math.floor(random() * source.length)]!;
    const count = Math.min(left, real.passages.length);
    const episodeId = `${channelId}-e${e}`;
    const publishedAt = new Date(Date.UTC(2015, 0, 1) + Math.floor(random() * 3650) * 86_400_000).toISOString();
    const visible = { channelId, status: 'published', archived: false, publishedAt, year: Number(publishedAt.slice(0, 4)) };
    yield { op: 'index', index: index.episodes, id: episodeId, doc: { ...real.doc, id: episodeId, ...visible } };
    for (let i = 0; i < count; i++) {
      const p = real.passages[i]!;
      const id = `${episodeId}-p${i}`;
      yield { op: 'index', index: index.passages, id, doc: { ...p.doc, id, episodeId, ...visible, embedding: noisyUnitVector(p.vector, noise, random) } };
    }
    left -= count;
  }
}

/** Shows progress: a bar on a terminal, a log line every 10 s otherwise. */
function progress(label: string, total: number, log: Logger): { update(done: number, fields: Record<string, number>): void; stop(): void } {
  const started = Date.now();
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% | {value}/{total} passages | {rate}/s | heap {heapMb} MB | eta {eta_formatted}`, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0, heapMb: 0 });
    return { update: (done, fields) => bar.update(done, fields), stop: () => bar.stop() };
  }
  let last = 0;
  return {
    update(done, fields) {
      if (Date.now() - last < 10_000) return;
      last = Date.now();
      log.info({ label, done, total, seconds: Math.round((Date.now() - started) / 1000), ...fields }, 'loading');
    },
    stop() {},
  };
}

/**
 * Writes the channels in `_bulk` requests of about `bulkMb`, two in flight (one per core of
 * the node's write pool), with every item checked (`bulkWrite`). Samples the heap as it goes.
 */
async function load(
  client: Client,
  node: string,
  plans: ChannelPlan[],
  makeOps: (plan: ChannelPlan) => Iterable<BulkOp & { op: 'index' }>,
  { label, bulkMb, passagesIndex, log }: { label: string; bulkMb: number; passagesIndex: string; log: Logger },
): Promise<{ passages: number; episodes: number; seconds: number; heapPeakMb: number }> {
  const total = plans.reduce((s, p) => s + p.size, 0);
  const bar = progress(label, total, log);
  const started = performance.now();
  let passages = 0;
  let episodes = 0;
  let heapPeakMb = 0;
  let heapNow = 0;
  const sampler = setInterval(() => {
    heapMb(node)
      .then((h) => {
        heapNow = h.used;
        heapPeakMb = Math.max(heapPeakMb, h.used);
      })
      .catch(() => undefined);
  }, 2_000);
  const inFlight = new Set<Promise<void>>();
  const send = async (ops: BulkOp[]): Promise<void> => {
    await bulkWrite(client, ops, { maxBytes: Infinity, attempts: 5 });
    for (const op of ops) {
      if (op.index === passagesIndex) passages++;
      else episodes++;
    }
    const seconds = (performance.now() - started) / 1000;
    bar.update(passages, { rate: Math.round(passages / seconds), heapMb: heapNow });
  };
  try {
    let batch: BulkOp[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const p = send(batch).finally(() => inFlight.delete(p));
      inFlight.add(p);
      batch = [];
      bytes = 0;
      if (inFlight.size >= 2) await Promise.race(inFlight);
    };
    for (const plan of plans) {
      if (interruption.requested) throw new Interrupted('interrupted while loading');
      for (const op of makeOps(plan)) {
        batch.push(op);
        bytes += 9_000; // about a passage: 384 numbers of ~20 characters, text and marks
        if (bytes >= bulkMb * 2 ** 20) await flush();
      }
    }
    await flush();
    await Promise.all(inFlight);
  } finally {
    await Promise.allSettled(inFlight);
    clearInterval(sampler);
    bar.stop();
  }
  return { passages, episodes, seconds: (performance.now() - started) / 1000, heapPeakMb };
}

/** Refreshes, turns the normal refresh back on, and waits (up to `maxSeconds`) for merges to finish. */
async function settle(client: Client, node: string, index: string, log: Logger, maxSeconds = 600): Promise<number> {
  const started = performance.now();
  await client.indices.refresh({ index });
  for (;;) {
    const stats = await getJson<{ _all: { total: { merges: { current: number } } } }>(node, `/${index}/_stats/merge`);
    const current = stats._all.total.merges.current;
    const seconds = (performance.now() - started) / 1000;
    if (current === 0 || seconds > maxSeconds) {
      if (current > 0) log.warn({ index, merging: current, seconds }, 'merges still running; measuring anyway');
      return seconds;
    }
    log.info({ index, merging: current, seconds: Math.round(seconds) }, 'waiting for merges');
    await new Promise((r) => setTimeout(r, 5_000));
  }
}

async function storeFigures(node: string, index: string): Promise<{ storeBytes: number; segments: number }> {
  const stats = await getJson<{ _all: { primaries: { store: { size_in_bytes: number }; segments: { count: number } } } }>(node, `/${index}/_stats/store,segments`);
  return { storeBytes: stats._all.primaries.store.size_in_bytes, segments: stats._all.primaries.segments.count };
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface Probe {
  query: string;
  channel: ChannelDoc;
  size: number;
}

const channelDoc = (plan: ChannelPlan): ChannelDoc => ({
  id: `sc${plan.n}`,
  slug: `scale-${plan.n}`,
  title: `Scale channel ${plan.n}`,
  providerType: 'rss',
  ownerId: 'u_bench',
  memberIds: ['u_bench'],
  customDomain: null,
});

/** Queries paired with channels drawn uniformly, so the mix of channel sizes is the same at every store size. */
function probes(queries: string[], channels: ChannelPlan[], n: number, random: () => number): Probe[] {
  return Array.from({ length: n }, (_, i) => {
    const plan = channels[Math.floor(random() * channels.length)]!;
    return { query: queries[i % queries.length]!, channel: channelDoc(plan), size: plan.size };
  });
}

async function measureSearch(deps: SearchDeps, sample: Probe[], fast: boolean, label: string): Promise<Latency> {
  const params = (q: Probe): SearchParams => ({ query: q.query, fast, limit: 10, publishedOnly: false });
  for (const q of sample.slice(0, 50)) await runSearch(deps, q.channel, params(q)); // warm-up: JIT, caches
  const totals: number[] = [];
  const legs: number[] = [];
  const big: number[] = [];
  let embedMaxMs = 0;
  const rest: number[] = [];
  const tick = setInterval(() => process.stderr.write(`\r  ${label}: ${totals.length}/${sample.length}`), 1000);
  try {
    for (const q of sample) {
      const { trace } = await runSearch(deps, q.channel, params(q));
      totals.push(trace.timings.totalMs);
      legs.push(trace.timings.msearchMs);
      embedMaxMs = Math.max(embedMaxMs, trace.timings.embedMs);
      rest.push(trace.timings.totalMs - trace.timings.msearchMs - trace.timings.embedMs);
      if (q.size >= 5_000) big.push(trace.timings.totalMs);
    }
  } finally {
    clearInterval(tick);
    process.stderr.write(`\r  ${label}: ${totals.length} searches\n`);
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const t = sorted(totals);
  const l = sorted(legs);
  return {
    requests: t.length,
    p50: percentile(t, 50),
    p95: percentile(t, 95),
    p99: percentile(t, 99),
    legsP50: percentile(l, 50),
    legsP95: percentile(l, 95),
    bigChannelsP95: percentile(sorted(big), 95),
    embedMaxMs,
    restP50: percentile(sorted(rest), 50),
    restP95: percentile(sorted(rest), 95),
  };
}

/** The ids of a search's top 10. */
async function topIds(node: string, index: string, body: object): Promise<string[]> {
  const res = await getJson<{ hits: { hits: { _id: string }[] } }>(node, `/${index}/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ size: 10, _source: false, ...body }),
  });
  return res.hits.hits.map((h) => h._id);
}

/** Exact cosine top 10 among the documents `filter` lets through (the k-NN plugin's scoring script). */
const exactQuery = (vector: number[], filter: object) => ({
  query: {
    script_score: {
      query: { bool: { filter: [filter] } },
      script: { source: 'knn_score', lang: 'knn', params: { field: 'embedding', query_value: vector, space_type: 'cosinesimil' } },
    },
  },
});

/**
 * Recall@10 of the pipeline's own k-NN query (k = SEARCH_CANDIDATES, the Lucene engine's
 * candidate list) against exact search: scoped to a channel as every search is, and over the
 * whole store, where the HNSW graph alone decides (a narrow channel filter makes Lucene
 * search the channel exactly, which says nothing of the graph).
 */
async function measureRecall(
  node: string,
  index: string,
  sample: Probe[],
  vectors: Map<string, number[]>,
  settings: Config['search'],
  efSearch: number[],
  label: string,
): Promise<Pick<StageResult, 'recall' | 'recallByEfSearch'>> {
  // undefined: the pipeline's query as it is (the Lucene engine's candidate list is k).
  const variants = [undefined, ...efSearch];
  const channel = variants.map(() => [] as number[]);
  const global = variants.map(() => [] as number[]);
  const withEf = (body: Record<string, unknown>, ef: number | undefined) => {
    if (ef === undefined) return body;
    const knn = (body.query as { knn: { embedding: Record<string, unknown> } }).knn.embedding;
    return { ...body, query: { knn: { embedding: { ...knn, method_parameters: { ef_search: ef } } } } };
  };
  for (const [i, q] of sample.entries()) {
    process.stderr.write(`\r  ${label}: ${i}/${sample.length}`);
    const vector = vectors.get(q.query)!;
    const params: SearchParams = { query: q.query, fast: false, limit: 10, publishedOnly: false };
    const exact = await topIds(node, index, exactQuery(vector, buildFilters(params, q.channel)));
    const exactAll = await topIds(node, index, exactQuery(vector, { match_all: {} }));
    for (const [v, ef] of variants.entries()) {
      const scoped = withEf(buildKnnQuery(vector, params, q.channel, settings.candidates), ef);
      channel[v]!.push(recallAt(await topIds(node, index, scoped), exact));
      const whole = withEf({ query: { knn: { embedding: { vector, k: settings.candidates } } } }, ef);
      global[v]!.push(recallAt(await topIds(node, index, whole), exactAll));
    }
  }
  process.stderr.write(`\r  ${label}: ${sample.length} queries\n`);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  return {
    recall: { channel: mean(channel[0]!), global: mean(global[0]!), queries: sample.length },
    recallByEfSearch: Object.fromEntries(efSearch.map((ef, j) => [String(ef), { channel: mean(channel[j + 1]!), global: mean(global[j + 1]!) }])),
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = parseOptions();
  if (opts.sizes.some((s, i) => i > 0 && s <= opts.sizes[i - 1]!)) throw new InvalidArgumentError('--sizes must be ascending');
  const log = createLogger({ name: 'bench:scale', fd: 2 });
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const node = config.opensearchNodes[0]!;
  for (const n of config.opensearchNodes) {
    if (!LOOPBACK.has(new URL(n).hostname)) throw new Error(`refusing to benchmark a non-loopback OpenSearch (${new URL(n).host})`);
  }
  const prefix = `bench-scale-${process.pid}-`;
  const client = createOpenSearchClient({ url: config.opensearchNodes, timeoutMs: 300_000 });
  // Searches get the budget of a busy machine, not the API's (a timeout would count as nothing).
  const searchClient = createOpenSearchClient({ url: config.opensearchNodes, timeoutMs: 30_000 });

  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    await deleteIndices(client, prefix).catch((err: unknown) => log.error({ err, prefix }, 'could not delete the benchmark indices'));
    log.info({ prefix }, 'benchmark indices deleted');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log.warn({ signal }, 'interrupted: deleting the benchmark indices');
      process.exitCode = 130;
      interruption.requested = true;
      if (!interruption.loading) void cleanUp().finally(() => process.exit(130));
    });
  }

  try {
    const source = await readSource(client, opts.source, log);
    const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: 1 });
    // Query vectors are cached per channel (the API's rule), and a bigger store has more channels:
    // with the API's default of 64 cached channels, most searches at 1M (258 channels) embedded their
    // query again, and that model time (about 8 ms) was counted as the store's. Here every channel
    // keeps its entries, and each probe's vector is embedded before the probes are timed.
    const queryCache = createQueryVectorCache(Math.max(config.search.queryCacheSize, opts.distinct), { maxScopes: Number.MAX_SAFE_INTEGER });
    const queries = evenSubset(parseQueries(await readFile(opts.queries, 'utf8')), opts.distinct).map((q) => q.query);
    const vectors = new Map<string, number[]>();
    for (const q of queries) vectors.set(q, await queryCache.embed(embedder, q));
    log.info({ queries: queries.length }, 'query vectors ready');

    const index = await createStore(client, prefix, opts, config.modelId);
    const aliases = indexAliases(prefix);
    const deps: SearchDeps = { client: searchClient, embedder, aliases, settings: config.search, channelBaseDomain: config.channelBaseDomain, queryCache };
    const random = seededRandom(opts.seed);
    const sampleRandom = seededRandom(opts.seed + 1);
    const channels: ChannelPlan[] = [];
    let episodes = 0;
    let loaded = 0;
    const results: StageResult[] = [];
    log.info(
      { prefix, sizes: opts.sizes, m: opts.m, efConstruction: opts.efConstruction, efSearch: config.search.candidates, shards: opts.shards, noise: opts.noise },
      'bench:scale starting',
    );

    for (const target of opts.sizes) {
      const plans = planChannels(loaded, target, random, { min: opts.minChannel, max: opts.maxChannel, firstN: channels.length });
      await client.indices.putSettings({ index: index.passages, body: { refresh_interval: '-1' } } as never);
      interruption.loading = true;
      const done = await load(client, node, plans, (plan) => channelOps(plan, source, index, random, opts.noise), {
        label: `load to ${target}`,
        bulkMb: opts.bulkMb,
        passagesIndex: index.passages,
        log,
      });
      interruption.loading = false;
      channels.push(...plans);
      loaded += done.passages;
      episodes += done.episodes;
      log.info({ passages: loaded, added: done.passages, seconds: Math.round(done.seconds), perSecond: Math.round(done.passages / done.seconds) }, 'loaded');
      await client.indices.putSettings({ index: index.passages, body: { refresh_interval: '1s' } } as never);
      await client.indices.refresh({ index: index.episodes });
      const mergeWaitSeconds = await settle(client, node, index.passages, log);
      const store = await storeFigures(node, index.passages);
      const sample = probes(queries, channels, opts.requests, sampleRandom);
      for (const q of sample) await queryCache.embed(embedder, q.query, q.channel.id);
      const timed = async (fast: boolean): Promise<Latency> => {
        const mode = fast ? 'fast' : 'hybrid';
        let last: Latency | undefined;
        for (let pass = 1; pass <= opts.passes; pass++) {
          last = await measureSearch(deps, sample, fast, `${mode} at ${loaded}${opts.passes > 1 ? `, pass ${pass}` : ''}`);
          if (opts.passes > 1) log.info({ passages: loaded, mode, pass, p50: last.p50, p95: last.p95, p99: last.p99, legsP50: last.legsP50, legsP95: last.legsP95, restP50: last.restP50, restP95: last.restP95, embedMaxMs: last.embedMaxMs }, 'timed pass');
        }
        return last!;
      };
      const hybrid = await timed(false);
      const fast = await timed(true);
      let concurrent: StageResult['concurrent'];
      if (opts.concurrentSegments) {
        const mode = (value: string | null) =>
          client.indices.putSettings({ index: index.passages, body: { 'index.search.concurrent_segment_search.mode': value } } as never);
        await mode('all');
        try {
          concurrent = { hybrid: await timed(false), fast: await timed(true) };
        } finally {
          await mode(null);
        }
      }
      const recall = await measureRecall(node, index.passages, sample.slice(0, opts.recallQueries), vectors, config.search, opts.efSearch, `recall at ${loaded}`);
      const heap = await heapMb(node);
      const result: StageResult = {
        passages: loaded,
        channels: channels.length,
        episodes,
        loadSeconds: Math.round(done.seconds),
        passagesPerSecond: Math.round(done.passages / done.seconds),
        mergeWaitSeconds: Math.round(mergeWaitSeconds),
        storeBytes: store.storeBytes,
        bytesPerPassage: Math.round(store.storeBytes / loaded),
        segments: store.segments,
        heapUsedMb: heap.used,
        heapPeakDuringLoadMb: done.heapPeakMb,
        heapMaxMb: heap.max,
        hybrid,
        fast,
        ...recall,
        ...(concurrent ? { concurrent } : {}),
      };
      results.push(result);
      log.info({ result }, 'measured');
    }

    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');
    const lines = [
      `m ${opts.m}, ef_construction ${opts.efConstruction}, ef_search ${config.search.candidates} (k of the k-NN leg), ${opts.shards} shard(s), noise ${opts.noise}, channels ${opts.minChannel}–${opts.maxChannel} passages`,
      '',
      '| passages | channels | load /s | store | per passage | segments | heap (peak in load) / max MB | hybrid p50/p95/p99 ms | hybrid legs p50/p95 | hybrid p95, channels ≥ 5k | fast p50/p95/p99 ms | recall@10 channel / store |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.passages} | ${r.channels} | ${r.passagesPerSecond} | ${(r.storeBytes / 2 ** 30).toFixed(2)} GB | ${(r.bytesPerPassage / 1024).toFixed(1)} KB | ${r.segments} | ${r.heapUsedMb} (${r.heapPeakDuringLoadMb}) / ${r.heapMaxMb} | ${f(r.hybrid.p50)}/${f(r.hybrid.p95)}/${f(r.hybrid.p99)} | ${f(r.hybrid.legsP50)}/${f(r.hybrid.legsP95)} | ${f(r.hybrid.bigChannelsP95)} | ${f(r.fast.p50)}/${f(r.fast.p95)}/${f(r.fast.p99)} | ${r.recall.channel.toFixed(3)} / ${r.recall.global.toFixed(3)} |`,
      ),
    ];
    if (results.length > 1) {
      const first = results[0]!;
      const last = results.at(-1)!;
      lines.push('', `hybrid p95 at ${last.passages} ÷ p95 at ${first.passages}: ${(last.hybrid.p95 / first.hybrid.p95).toFixed(2)}×; fast: ${(last.fast.p95 / first.fast.p95).toFixed(2)}×`);
    }
    for (const r of results) {
      const c = r.concurrent;
      if (c) lines.push(`concurrent segment search at ${r.passages}: hybrid p50/p95/p99 ${f(c.hybrid.p50)}/${f(c.hybrid.p95)}/${f(c.hybrid.p99)} (legs ${f(c.hybrid.legsP50)}/${f(c.hybrid.legsP95)}), fast ${f(c.fast.p50)}/${f(c.fast.p95)}/${f(c.fast.p99)}`);
      for (const [ef, rec] of Object.entries(r.recallByEfSearch)) {
        lines.push(`recall@10 at ${r.passages} with ef_search ${ef}: channel ${rec.channel.toFixed(3)}, store ${rec.global.toFixed(3)}`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
    process.stdout.write(
      `${JSON.stringify({ settings: { m: opts.m, efConstruction: opts.efConstruction, efSearch: config.search.candidates, shards: opts.shards, noise: opts.noise, channelSizes: [opts.minChannel, opts.maxChannel], source: opts.source }, results }, null, 2)}\n`,
    );
  } finally {
    await cleanUp();
    await Promise.allSettled([client.close(), searchClient.close()]);
  }
}

main().catch((err: unknown) => {
  if (err instanceof Interrupted) process.exit(130);
  process.stderr.write(`bench:scale: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
