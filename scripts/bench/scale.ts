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
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder } from '../../core/embedding/embedder.js';
import { createLogger } from '../../core/ground/logger.js';
import { createQueryVectorCache } from '../../core/embedding/query-cache.js';
import { evenSubset, parseQueries } from '../eval/relevance.js';
import { type SearchDeps } from '../../core/search/search.js';
import { createOpenSearchClient, deleteIndices, indexAliases } from '../../core/store/opensearch.js';
import { positive } from '../../bin/lib/cli-args.js';
import { planChannels, seededRandom, type ChannelPlan } from './scale-synthesize.js';
import { useProvisionedModel } from '../ops/provision/model.js';
import { Interrupted, channelOps, createStore, heapMb, interruption, load, readSource, settle, storeFigures, type Options } from './scale-store.js';
import { measureRecall, measureSearch, probes, type Latency, type StageResult } from './scale-measure.js';

await useProvisionedModel('bench:scale');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A real passage: everything stored but the vector, which is kept as float32. */

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
    .option(
      '--passes <n>',
      'timed passes over the same sample per mode and size; the table shows the last (the first reads freshly merged segments cold), the log every pass',
      positive,
      1,
    )
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
    const deps: SearchDeps = { client: searchClient, embedder, aliases, settings: config.search, channelSites: config.channelSites, queryCache };
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
          if (opts.passes > 1)
            log.info(
              {
                passages: loaded,
                mode,
                pass,
                p50: last.p50,
                p95: last.p95,
                p99: last.p99,
                legsP50: last.legsP50,
                legsP95: last.legsP95,
                restP50: last.restP50,
                restP95: last.restP95,
                embedMaxMs: last.embedMaxMs,
              },
              'timed pass',
            );
        }
        return last!;
      };
      const hybrid = await timed(false);
      const fast = await timed(true);
      let concurrent: StageResult['concurrent'];
      if (opts.concurrentSegments) {
        const mode = (value: string | null) => client.indices.putSettings({ index: index.passages, body: { 'index.search.concurrent_segment_search.mode': value } } as never);
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
      lines.push(
        '',
        `hybrid p95 at ${last.passages} ÷ p95 at ${first.passages}: ${(last.hybrid.p95 / first.hybrid.p95).toFixed(2)}×; fast: ${(last.fast.p95 / first.fast.p95).toFixed(2)}×`,
      );
    }
    for (const r of results) {
      const c = r.concurrent;
      if (c)
        lines.push(
          `concurrent segment search at ${r.passages}: hybrid p50/p95/p99 ${f(c.hybrid.p50)}/${f(c.hybrid.p95)}/${f(c.hybrid.p99)} (legs ${f(c.hybrid.legsP50)}/${f(c.hybrid.legsP95)}), fast ${f(c.fast.p50)}/${f(c.fast.p95)}/${f(c.fast.p99)}`,
        );
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
