// bench:scale, the measuring side: searches of random channels through the real pipeline, and k-NN recall against exact search.
import { type Config } from '../../core/config/load.js';
import { buildFilters } from '../../core/store/filters.js';
import { buildKnnQuery } from '../../core/search/knn-query.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { percentile, recallAt, type ChannelPlan } from './scale-synthesize.js';
import { getJson } from './scale-store.js';

export interface StageResult {
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

export interface Latency {
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
export function probes(queries: string[], channels: ChannelPlan[], n: number, random: () => number): Probe[] {
  return Array.from({ length: n }, (_, i) => {
    const plan = channels[Math.floor(random() * channels.length)]!;
    return { query: queries[i % queries.length]!, channel: channelDoc(plan), size: plan.size };
  });
}

export async function measureSearch(deps: SearchDeps, sample: Probe[], fast: boolean, label: string): Promise<Latency> {
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
      const { timings } = await runSearch(deps, q.channel, params(q));
      totals.push(timings.totalMs);
      legs.push(timings.msearchMs);
      embedMaxMs = Math.max(embedMaxMs, timings.embedMs);
      rest.push(timings.totalMs - timings.msearchMs - timings.embedMs);
      if (q.size >= 5_000) big.push(timings.totalMs);
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
export async function topIds(node: string, index: string, body: object): Promise<string[]> {
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
export async function measureRecall(
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
