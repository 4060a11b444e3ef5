// bench:scale, the store side: the source library read, the synthetic store created, loaded and settled, its size and the heap.
import cliProgress from 'cli-progress';
import { bulkWrite, type BulkOp } from '../../indexer/bulk.js';
import { scrollHits } from '../../indexer/scroll.js';
import { type Logger } from '../../core/ground/logger.js';
import { createVersionedIndices, indexAliases, indexSettings, readIndexDefinition, swapAliases, type Client } from '../../core/store/opensearch.js';
import { noisyUnitVector, type ChannelPlan } from './scale-synthesize.js';

/**
 * Set by Ctrl-C while bulk requests are in flight: the load stops sending and waits for them,
 * then the indices are deleted. Deleting first would let a late bulk item auto-create the index again.
 */
export const interruption = { requested: false, loading: false };

export class Interrupted extends Error {}

export interface Options {
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

export interface SourcePassage {
  doc: Record<string, unknown>;
  vector: Float32Array;
}

/** A real episode with its passages in order. */
export interface SourceEpisode {
  doc: Record<string, unknown>;
  passages: SourcePassage[];
}

export async function getJson<T>(node: string, path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${node}${path}`, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

export async function heapMb(node: string): Promise<{ used: number; max: number }> {
  const body = await getJson<{ nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }> }>(
    node,
    '/_nodes/_local/stats/jvm?filter_path=nodes.*.jvm.mem',
  );
  const mem = Object.values(body.nodes)[0]!.jvm.mem;
  return { used: Math.round(mem.heap_used_in_bytes / 2 ** 20), max: Math.round(mem.heap_max_in_bytes / 2 ** 20) };
}

/** Reads every passage (vector included) and episode of the source prefix. */
export async function readSource(client: Client, prefix: string, log: Logger): Promise<SourceEpisode[]> {
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
export async function createStore(client: Client, prefix: string, opts: Options, modelId: string): Promise<{ passages: string; episodes: string }> {
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
export function* channelOps(
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
export async function load(
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
export async function settle(client: Client, node: string, index: string, log: Logger, maxSeconds = 600): Promise<number> {
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

export async function storeFigures(node: string, index: string): Promise<{ storeBytes: number; segments: number }> {
  const stats = await getJson<{ _all: { primaries: { store: { size_in_bytes: number }; segments: { count: number } } } }>(node, `/${index}/_stats/store,segments`);
  return { storeBytes: stats._all.primaries.store.size_in_bytes, segments: stats._all.primaries.segments.count };
}

// ---------------------------------------------------------------------------------------------
// Measurements
