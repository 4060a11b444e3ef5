// bench:search, its parts: the targets (API process, engine, native pipeline), timing in turns, step profiles and the figures they print.
import type { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { type SearchTimings } from '../../core/search/search.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { freePort, serveInChildProcess, type Served } from '../lib/child.js';

export interface Stats {
  target: 'api' | 'uncached' | 'baseline' | 'relay' | 'pipeline' | 'engine' | 'native' | 'compare' | 'compare-engine';
  mode: 'fast' | 'hybrid';
  concurrency: number;
  requests: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
}

export const RELAY_ENTRY = fileURLToPath(new URL('../drills/relay.ts', import.meta.url));

export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The search pipeline of the `native` target; a `hybrid` query without one returns unfused, meaningless scores. */
export const NATIVE_PIPELINE = 'bench-search-rrf';

/** RRF in the engine with our constant (`RRF_K`); 2.19 takes no per-query weights for RRF. */
export function nativePipelineBody(rankConstant: number): Record<string, unknown> {
  return {
    description: 'bench:search: reciprocal rank fusion of hybrid sub-queries, the engine-side anchor',
    phase_results_processors: [{ 'score-ranker-processor': { combination: { technique: 'rrf', rank_constant: rankConstant } } }],
  };
}

/** Creates (or corrects) the search pipeline of the `native` target; leaves an identical one alone. */
export async function ensureNativePipeline(node: string, rankConstant: number): Promise<void> {
  const wanted = nativePipelineBody(rankConstant);
  const current = await fetch(`${node}/_search/pipeline/${NATIVE_PIPELINE}`);
  if (current.ok) {
    const stored = ((await current.json()) as Record<string, unknown>)[NATIVE_PIPELINE];
    if (JSON.stringify(stored) === JSON.stringify(wanted)) return;
  }
  const res = await fetch(`${node}/_search/pipeline/${NATIVE_PIPELINE}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(wanted) });
  if (!res.ok) throw new Error(`creating search pipeline ${NATIVE_PIPELINE}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
}

export async function hasNeuralSearch(node: string): Promise<boolean> {
  const res = await fetch(`${node}/_cat/plugins?format=json`);
  const plugins = res.ok ? ((await res.json()) as { component: string }[]) : [];
  return plugins.some((p) => p.component === 'opensearch-neural-search');
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export type Target = Stats['target'];
export type Measured = Pick<Stats, 'requests' | 'errors' | 'p50' | 'p95' | 'p99' | 'rps'>;

/**
 * Runs each target's `call` for `requests` calls (or `seconds` in all, whichever first) with
 * `concurrency` in flight, the targets taking turns of `turn` requests each: on a machine
 * whose load drifts, every target then sees the same load, and their ratio means
 * something. Throughput is each target's requests over its own turns' time.
 */
export async function measureInTurns<T extends string = Target>(
  calls: Partial<Record<T, (i: number) => Promise<void>>>,
  { concurrency, requests, seconds, turn, label }: { concurrency: number; requests: number; seconds: number; turn: number; label: string },
): Promise<Partial<Record<T, Measured>>> {
  const targets = Object.entries(calls) as [T, (i: number) => Promise<void>][];
  const tallies = new Map(targets.map(([t]) => [t, { latencies: [] as number[], errors: 0, firstError: undefined as unknown, ms: 0, next: 0 }]));
  const deadline = performance.now() + seconds * 1000;
  const tick = setInterval(() => process.stderr.write(`\r  ${label}: ${[...tallies.values()].reduce((n, t) => n + t.next, 0)}/${requests * targets.length}`), 500);
  while (performance.now() < deadline && [...tallies.values()].some((t) => t.next < requests)) {
    for (const [target, call] of targets) {
      const tally = tallies.get(target)!;
      const end = Math.min(requests, tally.next + turn);
      const started = performance.now();
      const worker = async () => {
        while (tally.next < end && performance.now() < deadline) {
          const i = tally.next++;
          const t = performance.now();
          try {
            await call(i);
            tally.latencies.push(performance.now() - t);
          } catch (err) {
            tally.errors++;
            tally.firstError ??= err;
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      tally.ms += performance.now() - started;
    }
  }
  clearInterval(tick);
  const out: Partial<Record<T, Measured>> = {};
  for (const [target, t] of tallies) {
    if (t.errors) process.stderr.write(`\n  ${label} ${target}: ${t.errors} errors (${String(t.firstError)})`);
    t.latencies.sort((a, b) => a - b);
    out[target] = {
      requests: t.latencies.length,
      errors: t.errors,
      p50: percentile(t.latencies, 50),
      p95: percentile(t.latencies, 95),
      p99: percentile(t.latencies, 99),
      rps: t.latencies.length / (t.ms / 1000),
    };
  }
  process.stderr.write(`\r  ${label}: ${targets.map(([t]) => `${t} ${out[t]!.requests}`).join(', ')} requests\n`);
  return out;
}

/**
 * Where an API search's time goes, each step timed alone at concurrency 1, the steps taking
 * turns (one of each per round): the store reads of the credential and channel check, one
 * at a time and as the API now sends them, the rate limiter's Redis round trip, an HTTP hop
 * to the API that does nothing, and the pipeline's own phases from its timings.
 */
export async function profileSteps(
  {
    client,
    redis,
    aliases,
    keyHash,
    channel,
    apiBase,
    requests,
  }: { client: Client; redis: Redis; aliases: IndexAliases; keyHash: string; channel: ChannelDoc; apiBase: string; requests: number },
  search: (mode: 'fast' | 'hybrid', i: number) => Promise<{ result: unknown; timings: SearchTimings }>,
): Promise<{ step: string; p50: number; p95: number }[]> {
  const times = new Map<string, number[]>();
  const record = (step: string, ms: number) => times.set(step, [...(times.get(step) ?? []), ms]);
  const timed = async (step: string, call: () => Promise<unknown>) => {
    const t = performance.now();
    await call();
    record(step, performance.now() - t);
  };
  const userDoc = (id: string) => ({ _index: aliases.users, _id: id });
  for (let i = 0; i < requests; i++) {
    await timed('API key GET', () => client.get({ index: aliases['api-keys'], id: keyHash }));
    await timed('channel search by slug', () => client.search({ index: aliases.channels, body: { size: 1, query: { term: { slug: channel.slug } } } as never }));
    await timed('owner GET', () => client.get({ index: aliases.users, id: channel.ownerId }));
    await timed('the three, as sent now: _mget (key + owner) beside the channel search', () =>
      Promise.all([
        client.mget({ body: { docs: [{ _index: aliases['api-keys'], _id: keyHash }, userDoc(channel.ownerId)] } } as never),
        client.search({ index: aliases.channels, body: { size: 1, query: { term: { slug: channel.slug } } } as never }),
      ]),
    );
    await timed('rate limiter: one Redis round trip', () => redis.multi().incr('bench-search:steps').pexpire('bench-search:steps', 60_000).exec());
    await timed('HTTP hop to the API (GET /healthz)', async () => (await fetch(`${apiBase}/healthz`)).text());
    for (const mode of ['fast', 'hybrid'] as const) {
      const t = performance.now();
      const { result, timings } = await search(mode, i);
      const { msearchMs, hydrateMs } = timings;
      record(`${mode}: whole pipeline`, performance.now() - t);
      record(`${mode}: legs _msearch`, msearchMs);
      record(`${mode}: hydration _msearch`, hydrateMs);
      record(`${mode}: in-process (build, fuse, group, cite${mode === 'hybrid' ? ', cached vector' : ''})`, timings.totalMs - msearchMs - hydrateMs);
      await timed(`${mode}: JSON of the answer`, async () => JSON.stringify(result));
    }
  }
  await redis.del('bench-search:steps');
  return [...times].map(([step, xs]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { step, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
  });
}

/**
 * An API target: `src/server.ts` of this checkout (or of `root`) in a process of its own, as
 * `npm start` runs it (query embedding in its worker, metrics on their own port), so the load
 * generator's work never runs on the API's event loop. Until this was so, the API shared its
 * event loop with the benchmark's own HTTP client, which the engine targets never had to.
 */
export async function apiProcess(env: Record<string, string>, servers: Served[], root?: string): Promise<{ base: string; metricsPort: number }> {
  const metricsPort = await freePort();
  const served = await serveInChildProcess({ ...env, METRICS_PORT: String(metricsPort) }, root ? { root } : {});
  servers.push(served);
  return { base: served.baseUrl, metricsPort };
}

/** The hydration cache's counters, as an API process exports them. */
export async function hydrationStats(metricsPort: number): Promise<{ hits: number; misses: number; bytes: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { hits: value('cca_hydration_cache_hits_total'), misses: value('cca_hydration_cache_misses_total'), bytes: value('cca_hydration_cache_bytes') };
}

/**
 * Headers of the engine-side targets: uncompressed answers, as the API's OpenSearch client
 * asks for them. `fetch` offers gzip by default, and the node compresses: the engine and
 * native targets paid about 1.2 ms per `_msearch` for it (qmsum, p50 7.2 against 6.0 ms)
 * that the API never pays, which flattered every API ÷ engine ratio before.
 */
export const AS_OUR_CLIENT = { 'accept-encoding': 'identity' } as const;
