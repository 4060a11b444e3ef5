// Search latency and throughput through the API and straight to OpenSearch, in the same run: the API's overhead.
//
//   npm run bench:search -- [--prefix test-qmsum-] [--queries ../shared/data/qmsum/queries-dev.jsonl] [--steps]
//     [--concurrency 1,4,16] [--requests 300] [--seconds 15] [--turn 20] [--no-native] [--baseline <dir>] [--compare <prefix>] [--cpu-prof <dir>]
//
// The API runs as `npm start` runs it, in a process of its own on a loopback port, with a throw-away API key; `pipeline`
// is runSearch called in this process (the API minus HTTP, auth and rate limiting); the engine side sends the same
// keyword and k-NN legs, prebuilt, as one `_msearch` over HTTP. `native` (hybrid only) sends the same passage keyword
// and k-NN queries as OpenSearch's own `hybrid` query, fused engine-side by a score-ranker RRF search pipeline (the
// neural-search plugin, which `npm run services -- up` installs): the anchor our own fusion is measured against.
// `relay` (`--relay`), the floor under any API: a node:http process forwarding the engine's `_msearch` unread. Loopback.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder } from '../../core/embedding/embedder.js';
import { createLogger } from '../../core/ground/logger.js';
import { buildKeywordQuery } from '../../core/search/keyword-query.js';
import { buildKnnQuery } from '../../core/search/knn-query.js';
import { buildMsearchBody, MSEARCH_FILTER_PATH, readMsearchResponse } from '../../core/search/msearch.js';
import { defaultQueryCache } from '../../core/embedding/query-cache.js';
import { parseQueries, evenSubset } from '../eval/relevance.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';
import { createRedisClient } from '../../core/store/redis.js';
import { positive } from '../../bin/lib/cli-args.js';
import { loadedChannel } from '../eval/harness.js';
import { useProvisionedModel } from '../ops/provision/model.js';
import { serveInChildProcess, type Served } from '../lib/child.js';

import {
  type Stats,
  type Target,
  type Measured,
  ensureNativePipeline,
  hasNeuralSearch,
  measureInTurns,
  profileSteps,
  apiProcess,
  hydrationStats,
  RELAY_ENTRY,
  LOOPBACK,
  NATIVE_PIPELINE,
  AS_OUR_CLIENT,
} from './search-targets.js';

/** Preloaded into a profiled API process: NODE_OPTIONS refuses `--cpu-prof`, but not `--import`. */
const CPU_PROFILE_ENTRY = fileURLToPath(new URL('./cpu-profile.mjs', import.meta.url));

// The real model, local files only (as `npm test` uses it).
await useProvisionedModel('bench:search');

async function main(): Promise<void> {
  const opts = new Command()
    .name('bench:search')
    .description('p50/p95/p99 and throughput of fast and hybrid search, through the API and straight to OpenSearch.')
    .option('--prefix <prefix>', 'index prefix holding a loaded library (default: INDEX_PREFIX)')
    .option('--queries <file>', 'query texts (JSON lines with channel and query)', '../shared/data/qmsum/queries-dev.jsonl')
    .option('--distinct <n>', 'distinct queries cycled through', positive, 200)
    .option('--concurrency <list>', 'comma-separated levels', '1,4,16')
    .option('--requests <n>', 'requests per scenario', positive, 300)
    .option('--seconds <n>', 'time cap per scenario and target', positive, 15)
    .option('--turn <n>', 'requests a target runs before the next takes its turn', positive, 20)
    .option('--user <id>', 'user the throw-away API key belongs to (a member of the channels)', 'u_member')
    .option('--no-native', "skip the engine's own hybrid query (neural-search plugin)")
    .option('--steps', 'first time each step of an API search alone (store reads, Redis, HTTP, pipeline phases)')
    .option('--relay', "one more target: a bare HTTP process forwarding the engine target's `_msearch` (the least any API process adds)")
    .option('--uncached', 'one more target: this API with the hydration cache off (SEARCH_HYDRATION_CACHE_MB=0), in turns')
    .option('--baseline <dir>', "another checkout's API (a worktree of main, say, with its node_modules) as one more target, over the same store, in turns with this one")
    .option('--cpu-prof <dir>', "a V8 CPU profile of this checkout's API process, written into <dir> when it stops (scripts/bench/cpu-profile.mjs)")
    .option('--compare <prefix>', 'the same library loaded under another prefix (another index layout, say): its API and engine legs as two more targets, in turns')
    .parse()
    .opts<{
      prefix?: string;
      queries: string;
      distinct: number;
      concurrency: string;
      requests: number;
      seconds: number;
      turn: number;
      user: string;
      native: boolean;
      baseline?: string;
      steps?: boolean;
      compare?: string;
      uncached?: boolean;
      relay?: boolean;
      cpuProf?: string;
    }>();
  const levels = opts.concurrency.split(',').map((s) => positive(s.trim()));

  // The rate limit stays on (it is part of the API's cost) but high enough never to answer 429 here;
  // the store budget is the client's 10 s, so a busy machine slows answers down instead of failing them.
  const apiEnv = {
    ...process.env,
    ...(opts.prefix ? { INDEX_PREFIX: opts.prefix } : {}),
    RATE_LIMIT_MAX: '10000000',
    OPENSEARCH_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'silent',
  };
  const config = loadConfig(apiEnv);
  // What the API processes get on top of this process's environment.
  const apiProcessEnv: Record<string, string> = {
    INDEX_PREFIX: config.indexPrefix,
    RATE_LIMIT_MAX: apiEnv.RATE_LIMIT_MAX,
    OPENSEARCH_TIMEOUT_MS: apiEnv.OPENSEARCH_TIMEOUT_MS,
    LOG_LEVEL: 'warn',
    // The warm-up must leave every query's vector cached, however busy the machine: a query
    // whose embedding outlasts the API's usual 500 ms would be searched keyword-only and not cached.
    EMBED_QUERY_TIMEOUT_MS: '10000',
  };
  const servers: Served[] = [];
  let relayDir: string | undefined;
  for (const node of config.opensearchNodes) {
    const engineUrl = new URL(node);
    if (!LOOPBACK.has(engineUrl.hostname)) throw new Error(`refusing to benchmark a non-loopback OpenSearch (${engineUrl.host})`);
  }

  const log = createLogger({ level: 'silent' });
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 10_000 });
  const redis = createRedisClient(config.redisUrl, { log });
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize });
  const aliases = indexAliases(config.indexPrefix);

  const all = parseQueries(await readFile(opts.queries, 'utf8'));
  const queries = evenSubset(all, opts.distinct);
  const readChannels = async (prefix: string): Promise<Map<string, ChannelDoc>> => {
    const found = new Map<string, ChannelDoc>();
    for (const slug of new Set(queries.map((q) => q.channel))) found.set(slug, await loadedChannel(client, prefix, slug));
    return found;
  };
  const channels = await readChannels(config.indexPrefix);
  const compareConfig = opts.compare ? loadConfig({ ...apiEnv, INDEX_PREFIX: opts.compare }) : undefined;
  const compareAliases = opts.compare ? indexAliases(opts.compare) : undefined;
  const compareChannels = opts.compare ? await readChannels(opts.compare) : undefined;

  await Promise.race([once(redis, 'ready'), new Promise((r) => setTimeout(r, 5000))]);
  const { key, record } = await createApiKey({ client, aliases }, { userId: opts.user, name: 'bench:search (deleted after the run)' });
  const compareKey = compareAliases ? await createApiKey({ client, aliases: compareAliases }, { userId: opts.user, name: 'bench:search (deleted after the run)' }) : undefined;
  // The cache the API's search uses too (one per embedder), so each query is embedded once.
  const queryCache = defaultQueryCache(embedder, config.search.queryCacheSize);
  try {
    process.stderr.write('starting the API processes\n');
    const profiled: Record<string, string> = opts.cpuProf
      ? { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${CPU_PROFILE_ENTRY}`].filter(Boolean).join(' '), CPU_PROF_DIR: resolve(opts.cpuProf) }
      : {};
    const api = await apiProcess({ ...apiProcessEnv, ...profiled }, servers);
    const apiBase = api.base;
    const uncachedBase = opts.uncached ? (await apiProcess({ ...apiProcessEnv, SEARCH_HYDRATION_CACHE_MB: '0' }, servers)).base : undefined;
    const baselineBase = opts.baseline ? (await apiProcess(apiProcessEnv, servers, opts.baseline)).base : undefined;
    const compareBase = compareConfig ? (await apiProcess({ ...apiProcessEnv, INDEX_PREFIX: compareConfig.indexPrefix }, servers)).base : undefined;

    // Engine side: the same two legs the API builds, prebuilt as NDJSON so only the engine is timed.
    process.stderr.write(`embedding ${queries.length} queries for the engine side and the pipeline\n`);
    const t0 = performance.now();
    const vectors: number[][] = [];
    // Under the channel's scope, as the pipeline target's searches look them up.
    for (const q of queries) vectors.push(await queryCache.embed(embedder, q.query, channels.get(q.channel)!.id));
    const embedMs = (performance.now() - t0) / queries.length;
    const engineBodies = (mode: 'fast' | 'hybrid', on = { aliases, channels }) =>
      queries.map((q, i) => {
        const { aliases, channels } = on;
        const channel = channels.get(q.channel)!;
        const params: SearchParams = { query: q.query, fast: mode === 'fast', limit: 10, publishedOnly: false };
        const kw = buildKeywordQuery(params, channel, config.search);
        const searches = [
          { index: aliases.passages, body: kw.passages },
          { index: aliases.episodes, body: kw.episodes },
          ...(mode === 'hybrid' ? [{ index: aliases.passages, body: buildKnnQuery(vectors[i]!, params, channel, config.search.candidates) }] : []),
        ];
        return {
          n: searches.length,
          ndjson:
            buildMsearchBody(searches)
              .map((l) => JSON.stringify(l))
              .join('\n') + '\n',
        };
      });
    // Native: the passage keyword query and the k-NN query as the two sub-queries of one `hybrid`
    // query, each with its own filter (2.19 has no hybrid-level filter), fused by the pipeline.
    // Each sub-query contributes `size` candidates, as each of our legs does.
    const native = opts.native && (await hasNeuralSearch(config.opensearchNodes[0]!));
    if (opts.native && !native) process.stderr.write('native: skipped, the node has no neural-search plugin (`npm run services -- down` then `up` adds it)\n');
    if (native) await ensureNativePipeline(config.opensearchNodes[0]!, config.search.rrfK);
    const nativeBodies = queries.map((q, i) => {
      const channel = channels.get(q.channel)!;
      const params: SearchParams = { query: q.query, fast: false, limit: 10, publishedOnly: false };
      const kw = buildKeywordQuery(params, channel, config.search).passages;
      const knn = buildKnnQuery(vectors[i]!, params, channel, config.search.candidates);
      const { query: _kwQuery, ...common } = kw;
      return JSON.stringify({ ...common, query: { hybrid: { queries: [kw.query, knn.query] } } });
    });
    const nativeUrl = `${config.opensearchNodes[0]}/${aliases.passages}/_search?search_pipeline=${NATIVE_PIPELINE}`;
    // Two sub-queries fused by RRF: no score can exceed 2 / (k + 1); anything else means the pipeline did not run.
    const rrfCeiling = 2 / (config.search.rrfK + 1) + 1e-6;
    const nativeCall = async (i: number) => {
      const res = await fetch(nativeUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...AS_OUR_CLIENT }, body: nativeBodies[i % nativeBodies.length] });
      if (!res.ok) throw new Error(`hybrid _search HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as { hits?: { hits?: { _score: number | null }[] } };
      const top = body.hits?.hits?.[0]?._score;
      if (typeof top === 'number' && top > rrfCeiling) throw new Error(`hybrid score ${top} above the RRF ceiling: the search pipeline was not applied`);
    };
    // With the API's filter_path: the engine answers (and the client parses) what the API asks for.
    const msearchUrl = `${config.opensearchNodes[0]}/_msearch?filter_path=${MSEARCH_FILTER_PATH}`;
    const engineCall = (bodies: ReturnType<typeof engineBodies>) => async (i: number) => {
      const b = bodies[i % bodies.length]!;
      const res = await fetch(msearchUrl, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...AS_OUR_CLIENT }, body: b.ndjson });
      if (!res.ok) throw new Error(`_msearch HTTP ${res.status}`);
      readMsearchResponse(await res.json(), b.n);
    };
    // The search pipeline alone, in-process: the API minus HTTP, auth, rate limit and JSON.
    const deps: SearchDeps = { client, embedder, aliases, settings: config.search, channelSites: config.channelSites, queryCache };
    const pipelineCall = (mode: 'fast' | 'hybrid') => async (i: number) => {
      const q = queries[i % queries.length]!;
      await runSearch(deps, channels.get(q.channel)!, { query: q.query, fast: mode === 'fast', limit: 10, publishedOnly: false });
    };
    const apiCall =
      (mode: 'fast' | 'hybrid', base = apiBase, apiKey = key) =>
      async (i: number) => {
        const q = queries[i % queries.length]!;
        const url = `${base}/api/v1/channels/${q.channel}/search?query=${encodeURIComponent(q.query)}${mode === 'fast' ? '&fast=true' : ''}`;
        const res = await fetch(url, { headers: { 'x-api-key': apiKey } });
        if (res.status !== 200) throw new Error(`API HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
        await res.json();
      };

    // Warm-up: every query once through each path (JIT, OpenSearch caches, each process's vector and hydration caches).
    process.stderr.write('warming up\n');
    for (let i = 0; i < queries.length; i++) {
      await apiCall('hybrid')(i);
      await pipelineCall('hybrid')(i);
      await pipelineCall('fast')(i);
      await apiCall('fast')(i);
      if (uncachedBase) await apiCall('hybrid', uncachedBase)(i);
      if (uncachedBase) await apiCall('fast', uncachedBase)(i);
      if (baselineBase) await apiCall('hybrid', baselineBase)(i);
      if (baselineBase) await apiCall('fast', baselineBase)(i);
      if (compareBase) await apiCall('hybrid', compareBase, compareKey!.key)(i);
      if (compareBase) await apiCall('fast', compareBase, compareKey!.key)(i);
    }
    const bodies = { fast: engineBodies('fast'), hybrid: engineBodies('hybrid') };
    let relayBase: string | undefined;
    if (opts.relay) {
      relayDir = await mkdtemp(join(tmpdir(), 'bench-relay-'));
      const file = join(relayDir, 'bodies.json');
      await writeFile(file, JSON.stringify({ fast: bodies.fast.map((b) => b.ndjson), hybrid: bodies.hybrid.map((b) => b.ndjson) }));
      const relay = await serveInChildProcess({ RELAY_MSEARCH_URL: msearchUrl, RELAY_BODIES: file }, { script: RELAY_ENTRY });
      servers.push(relay);
      relayBase = relay.baseUrl;
    }
    const relayCall = (mode: 'fast' | 'hybrid') => async (i: number) => {
      const res = await fetch(`${relayBase}/${mode}/${i}`);
      if (!res.ok) throw new Error(`relay HTTP ${res.status}`);
      readMsearchResponse(await res.json(), bodies[mode][i % bodies[mode].length]!.n);
    };
    const compareOn = compareAliases ? { aliases: compareAliases, channels: compareChannels! } : undefined;
    const compareBodies = compareOn ? { fast: engineBodies('fast', compareOn), hybrid: engineBodies('hybrid', compareOn) } : undefined;
    for (let i = 0; i < queries.length; i++) await engineCall(bodies.hybrid)(i);
    if (relayBase) for (let i = 0; i < queries.length; i++) for (const mode of ['fast', 'hybrid'] as const) await relayCall(mode)(i);
    if (compareBodies) for (let i = 0; i < queries.length; i++) await engineCall(compareBodies.hybrid)(i);
    if (native) for (let i = 0; i < queries.length; i++) await nativeCall(i);

    if (opts.steps) {
      const firstChannel = [...channels.values()][0]!;
      const steps = await profileSteps({ client, redis, aliases, keyHash: record.hash, channel: firstChannel, apiBase, requests: opts.requests }, (mode, i) => {
        const q = queries[i % queries.length]!;
        return runSearch(deps, channels.get(q.channel)!, { query: q.query, fast: mode === 'fast', limit: 10, publishedOnly: false });
      });
      process.stdout.write(
        `| step (concurrency 1, in turns) | p50 ms | p95 ms |\n|---|---|---|\n${steps.map((r) => `| ${r.step} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} |`).join('\n')}\n\n`,
      );
    }

    const rows: Stats[] = [];
    for (const mode of ['fast', 'hybrid'] as const) {
      for (const concurrency of levels) {
        const calls = {
          api: apiCall(mode),
          ...(uncachedBase ? { uncached: apiCall(mode, uncachedBase) } : {}),
          ...(baselineBase ? { baseline: apiCall(mode, baselineBase) } : {}),
          ...(relayBase ? { relay: relayCall(mode) } : {}),
          pipeline: pipelineCall(mode),
          engine: engineCall(bodies[mode]),
          ...(native && mode === 'hybrid' ? { native: nativeCall } : {}),
          ...(compareBase ? { compare: apiCall(mode, compareBase, compareKey!.key), 'compare-engine': engineCall(compareBodies![mode]) } : {}),
        };
        const measured = await measureInTurns(calls, {
          concurrency,
          requests: opts.requests,
          seconds: opts.seconds * Object.keys(calls).length,
          turn: opts.turn,
          label: `${mode} c=${concurrency}`,
        });
        for (const [target, m] of Object.entries(measured) as [Target, Measured][]) rows.push({ target, mode, concurrency, ...m });
      }
    }

    const f = (x: number) => x.toFixed(1);
    const lines = [
      '| mode | c | target | requests | p50 ms | p95 ms | p99 ms | req/s | p50 ÷ engine p50 | p50 ÷ native p50 | engine req/s ÷ req/s |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    ];
    for (const r of rows) {
      const peer = (target: Stats['target']) => rows.find((o) => o.mode === r.mode && o.concurrency === r.concurrency && o.target === target);
      // The compare targets are set against the engine legs of their own store.
      const ownEngine = r.target === 'compare' || r.target === 'compare-engine' ? 'compare-engine' : 'engine';
      const engine = peer(ownEngine)!;
      const nativePeer = peer('native');
      const ratio = r.target !== ownEngine ? `${(r.p50 / engine.p50).toFixed(2)}×` : '';
      const nativeRatio = nativePeer && r.target !== 'native' ? `${(r.p50 / nativePeer.p50).toFixed(2)}×` : '';
      const tput = r.target !== ownEngine ? `${(engine.rps / r.rps).toFixed(2)}×` : '';
      lines.push(
        `| ${r.mode} | ${r.concurrency} | ${r.target} | ${r.requests}${r.errors ? ` (+${r.errors} errors)` : ''} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${f(r.rps)} | ${ratio} | ${nativeRatio} | ${tput} |`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
    process.stdout.write(
      `${JSON.stringify({ prefix: config.indexPrefix, distinctQueries: queries.length, queryEmbedMsCold: Number(embedMs.toFixed(1)), vectorCache: 'warm', hydrationCache: { mb: config.search.hydrationCacheMb, ...(await hydrationStats(api.metricsPort)) }, native: native ? { pipeline: NATIVE_PIPELINE, rankConstant: config.search.rrfK } : 'skipped', compare: opts.compare ?? null, results: rows }, null, 2)}\n`,
    );
    if (rows.some((r) => r.errors > 0)) process.exitCode = 1;
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    if (relayDir) await rm(relayDir, { recursive: true, force: true });
    await client.delete({ index: aliases['api-keys'], id: record.hash, refresh: 'true' } as never).catch(() => undefined);
    if (compareKey) await client.delete({ index: compareAliases!['api-keys'], id: compareKey.record.hash, refresh: 'true' } as never).catch(() => undefined);
    await Promise.allSettled([client.close(), redis.quit()]);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:search: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
