// Relevance harness: runs judged queries through search and prints nDCG@10, Recall@10 and MRR per mode.
//
//   npm run eval -- --queries ../shared/data/qmsum/queries-dev.jsonl --mode all [--limit 300]
//   npm run eval -- --queries q.jsonl --mode hybrid --api http://127.0.0.1:8080 --key svc_...
//
// In-process it searches OpenSearch directly under the configured INDEX_PREFIX (or --prefix);
// with --api it calls a running API (no semantic-only mode there: the API has no such switch).
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { loadConfig, type Config } from '../src/config.js';
import { createEmbedder, type Embedder } from '../src/embedder.js';
import { createQueryVectorCache } from '../src/search/query-cache.js';
import { evenSubset, judge, meanScores, parseQueries, rankedSegments, type JudgedQuery, type QueryScores } from '../src/search/relevance.js';
import { runSearch, type SearchDeps, type SearchOptions, type SearchParams } from '../src/search/search.js';
import type { SearchResult } from '../src/search/types.js';
import type { ChannelDoc } from '../src/store/documents.js';
import { createOpenSearchClient, indexAliases, type Client } from '../src/store/opensearch.js';
import { positive } from './cli-args.js';
import { useProvisionedModel } from './provision/model.js';

export const MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];
const MODE_LEGS: Record<Mode, SearchOptions['legs']> = {
  keyword: ['keyword'],
  semantic: ['semantic'],
  hybrid: ['keyword', 'semantic'],
};

/** Searches one judged query and returns the API-shaped result. */
export type Runner = (q: JudgedQuery, mode: Mode) => Promise<SearchResult>;

/** Everything an in-process search needs, made once. */
export interface LocalSearch {
  config: Readonly<Config>;
  client: Client;
  embedder: Embedder | undefined;
  deps: SearchDeps;
  channel(slug: string): Promise<ChannelDoc>;
  search(q: { channel: string; query: string }, mode: Mode, options?: SearchOptions, limit?: number): ReturnType<typeof runSearch>;
  close(): Promise<void>;
}

/** Opens OpenSearch (and the model, unless keyword-only) for in-process searches. */
export async function openLocalSearch({
  prefix,
  withEmbedder = true,
  cacheSize,
  log = (m: string) => process.stderr.write(`${m}\n`),
}: { prefix?: string; withEmbedder?: boolean; cacheSize?: number; log?: (m: string) => void } = {}): Promise<LocalSearch> {
  await useProvisionedModel('eval'); // the real model, local files only (as `npm test` uses it)
  const config = loadConfig(prefix ? { ...process.env, INDEX_PREFIX: prefix } : process.env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  let embedder: Embedder | undefined;
  if (withEmbedder) {
    const t = Date.now();
    embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize });
    log(`model ${embedder.modelId} loaded in ${Date.now() - t} ms`);
  }
  const aliases = indexAliases(config.indexPrefix);
  const deps: SearchDeps = {
    client,
    embedder,
    aliases,
    settings: config.search,
    channelBaseDomain: config.channelBaseDomain,
    queryCache: createQueryVectorCache(Math.max(cacheSize ?? 0, config.search.queryCacheSize)),
  };
  const channels = new Map<string, Promise<ChannelDoc>>();
  const channel = (slug: string) => {
    let c = channels.get(slug);
    if (!c) {
      c = client
        .search({ index: aliases.channels, body: { size: 1, query: { term: { slug } } } as never })
        .then((res) => {
          const hit = res.body.hits.hits[0]?._source as ChannelDoc | undefined;
          if (!hit) throw new Error(`no channel "${slug}" under prefix "${config.indexPrefix}"; load the library first`);
          return hit;
        });
      channels.set(slug, c);
    }
    return c;
  };
  return {
    config,
    client,
    embedder,
    deps,
    channel,
    async search(q, mode, options = {}, limit = 10) {
      const params: SearchParams = { query: q.query, fast: mode === 'keyword', limit, publishedOnly: false };
      return runSearch(deps, await channel(q.channel), params, { ...options, legs: MODE_LEGS[mode] });
    },
    close: () => client.close(),
  };
}

/** A runner that calls a running API; `semantic` is not reachable through it. */
export function apiRunner(baseUrl: string, key: string | undefined): Runner {
  return async (q, mode) => {
    if (mode === 'semantic') throw new Error('the API has no semantic-only mode; run in-process for it');
    const url = new URL(`/api/v1/channels/${encodeURIComponent(q.channel)}/search`, baseUrl);
    url.searchParams.set('query', q.query);
    url.searchParams.set('limit', '10');
    if (mode === 'keyword') url.searchParams.set('fast', 'true');
    const res = await fetch(url, { headers: key ? { 'x-api-key': key } : {} });
    if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as SearchResult;
  };
}

/** Runs every query (a few at a time) and judges each; `onDone` reports progress. */
export async function evaluate(
  queries: readonly JudgedQuery[],
  mode: Mode,
  run: Runner,
  { concurrency = 4, onDone }: { concurrency?: number; onDone?: () => void } = {},
): Promise<QueryScores[]> {
  const scores: QueryScores[] = new Array(queries.length);
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const i = next++;
      const q = queries[i]!;
      scores[i] = judge(rankedSegments(await run(q, mode)), q.relevant, 10);
      onDone?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queries.length) }, worker));
  return scores;
}

/**
 * Parses a settings spec, `"k=30 keyword=1.5 semantic=1 title=0.5 candidates=200
 * fields=text,chapterTitle^2 efields=title^3,summary type=most_fields agg=sum"`.
 */
export function parseSettings(spec: string): SearchOptions {
  const options: SearchOptions = {};
  for (const part of spec.split(/\s+/).filter(Boolean)) {
    const [name, value = ''] = part.split('=', 2) as [string, string?];
    const num = () => {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a number, got "${value}"`);
      return n;
    };
    const list = () => value.split(',').map((s) => s.trim()).filter(Boolean);
    switch (name) {
      case 'k':
        options.rrfK = num();
        break;
      case 'keyword':
      case 'semantic':
      case 'title':
        options.weights = { ...options.weights, [name]: num() };
        break;
      case 'candidates':
        options.candidates = num();
        break;
      case 'fields':
        options.keyword = { ...options.keyword, passageFields: list() };
        break;
      case 'efields':
        options.keyword = { ...options.keyword, episodeFields: list() };
        break;
      case 'titleN':
        options.keyword = { ...options.keyword, episodeCandidates: num() };
        break;
      case 'type':
        if (!['best_fields', 'most_fields', 'cross_fields'].includes(value)) throw new Error(`type: unknown "${value}"`);
        options.keyword = { ...options.keyword, type: value as 'best_fields' };
        break;
      case 'agg':
        if (value !== 'max' && value !== 'sum') throw new Error(`agg: expected max or sum`);
        options.episodeScore = value;
        break;
      default:
        throw new Error(`unknown setting "${name}" (k, keyword, semantic, title, candidates, fields, efields, titleN, type, agg)`);
    }
  }
  return options;
}

export function formatTable(rows: Array<{ mode: string; queries: number; seconds: number } & QueryScores>): string {
  const head = ['mode', 'queries', 'nDCG@10', 'Recall@10', 'MRR', 'seconds'];
  const body = rows.map((r) => [r.mode, String(r.queries), r.ndcg.toFixed(4), r.recall.toFixed(4), r.rr.toFixed(4), r.seconds.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const opts = new Command()
    .name('eval')
    .description('nDCG@10, Recall@10 and MRR of search over judged queries (a segment is relevant when it overlaps a relevant time range).')
    .requiredOption('--queries <file>', 'JSON lines: {id, channel, query, relevant: [{episodeId, startMs, endMs}]}')
    .addOption(new Option('--mode <mode>', 'which legs').choices([...MODES, 'all']).default('all'))
    .option('--api <baseUrl>', 'evaluate a running API instead of searching in-process')
    .option('--key <key>', 'API key for --api')
    .option('--limit <n>', 'evaluate n queries spread evenly over the file', positive)
    .option('--prefix <prefix>', 'index prefix for in-process runs (default: INDEX_PREFIX)')
    .option('--set <settings>', 'tuning for in-process runs, e.g. "k=30 keyword=1.5 fields=text,chapterTitle^2"', '')
    .option('--concurrency <n>', 'queries in flight', positive, 4)
    .option('--out <file>', 'also write per-query scores as JSON lines')
    .parse()
    .opts<{ queries: string; mode: Mode | 'all'; api?: string; key?: string; limit?: number; prefix?: string; set: string; concurrency: number; out?: string }>();

  const queries = evenSubset(parseQueries(await readFile(opts.queries, 'utf8')), opts.limit);
  let modes: Mode[] = opts.mode === 'all' ? [...MODES] : [opts.mode];
  if (opts.api && modes.includes('semantic')) {
    process.stderr.write('note: semantic-only is in-process only; skipped against --api\n');
    modes = modes.filter((m) => m !== 'semantic');
  }
  const settings = parseSettings(opts.set);
  let local: LocalSearch | undefined;
  let run: Runner;
  if (opts.api) {
    run = apiRunner(opts.api, opts.key);
  } else {
    local = await openLocalSearch({ prefix: opts.prefix, withEmbedder: modes.some((m) => m !== 'keyword'), cacheSize: queries.length });
    run = async (q, mode) => (await local!.search(q, mode, settings)).result;
  }

  const rows: Array<{ mode: Mode; queries: number; seconds: number } & QueryScores> = [];
  const perQuery: Record<string, Partial<Record<Mode, QueryScores>>> = {};
  try {
    for (const mode of modes) {
      const bar = new SingleBar({ format: `${mode.padEnd(8)} [{bar}] {value}/{total} queries | {duration}s`, stream: process.stderr });
      bar.start(queries.length, 0);
      const t = Date.now();
      const scores = await evaluate(queries, mode, run, { concurrency: opts.concurrency, onDone: () => bar.increment() });
      bar.stop();
      rows.push({ mode, queries: queries.length, seconds: (Date.now() - t) / 1000, ...meanScores(scores) });
      scores.forEach((s, i) => ((perQuery[queries[i]!.id] ??= {})[mode] = s));
    }
  } finally {
    await local?.close();
  }
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  const summary = {
    queries: opts.queries,
    count: queries.length,
    target: opts.api ?? `in-process, prefix ${local?.config.indexPrefix}`,
    settings: opts.set || 'configured defaults',
    modes: Object.fromEntries(rows.map((r) => [r.mode, { ndcg10: round(r.ndcg), recall10: round(r.recall), mrr: round(r.rr), seconds: round(r.seconds) }])),
  };
  process.stdout.write(`${formatTable(rows)}\n\n${JSON.stringify(summary, null, 2)}\n`);
  if (opts.out) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(opts.out, Object.entries(perQuery).map(([id, s]) => JSON.stringify({ id, ...s })).join('\n') + '\n');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
