// Relevance harness: runs judged queries through search and prints nDCG@10, Recall@10, MRR and where the top citation lands.
//
//   npm run eval -- --matrix                                  # qmsum and tutorialvqa, with chapters and on speech alone, every mode
//   npm run eval -- --library ../shared/data/tutorialvqa --chapters speech [--mode hybrid] [--set "k=30"]
//   npm run eval -- --queries ../shared/data/qmsum/queries-dev.jsonl --prefix test-qmsum- [--limit 300]
//   npm run eval -- --queries q.jsonl --mode hybrid --api http://127.0.0.1:8080 --key svc_...
//
// With --library / --matrix it loads each library first (idempotent: unchanged episodes are
// skipped, known passage texts re-use their cached vectors) under `eval-<name>-` or, without
// chapters, `eval-<name>-speech-` (a copy of the library with `chapters: []`). Otherwise it
// searches what is loaded under INDEX_PREFIX (or --prefix); with --api it calls a running API
// (no semantic-only mode there: the API has no such switch).
import { readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { loadConfig, type Config } from '../../src/config.js';
import type { Embedder } from '../../src/embedder.js';
import { createLogger } from '../../src/logger.js';
import { createQueryVectorCache } from '../../src/search/query-cache.js';
import {
  evenSubset,
  judge,
  landing,
  meanLanding,
  meanScores,
  parseQueries,
  rankedSegments,
  scopedEpisodes,
  type JudgedQuery,
  type Landing,
  type QueryScores,
  type Scope,
} from './relevance.js';
import { runSearch, type SearchDeps, type SearchOptions } from '../../src/search/search.js';
import type { SearchParams } from '../../src/search/types.js';
import type { SearchResult } from '../../src/search/types.js';
import type { ChannelDoc } from '../../src/store/documents.js';
import { createOpenSearchClient, indexAliases, type Client } from '../../src/store/opensearch.js';
import { positive } from '../lib/cli-args.js';
import { createEvalEmbedder, loadEvalLibrary, prepareLibrary, type ChapterCondition, type EvalLibrary } from './libraries.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { useProvisionedModel } from '../ops/provision/model.js';

export const MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];
const MODE_LEGS: Record<Mode, SearchOptions['legs']> = {
  keyword: ['keyword'],
  semantic: ['semantic'],
  hybrid: ['keyword', 'semantic'],
};

/** A judged query as searched: `episodeIds` scopes it to those episodes (the API's `episodeIds` filter). */
export type EvalQuery = JudgedQuery & { episodeIds?: string[] | undefined };

/** Searches one judged query and returns the API-shaped result. */
export type Runner = (q: EvalQuery, mode: Mode) => Promise<SearchResult>;

/** Everything an in-process search needs, made once. */
export interface LocalSearch {
  config: Readonly<Config>;
  client: Client;
  embedder: Embedder | undefined;
  deps: SearchDeps;
  channel(slug: string): Promise<ChannelDoc>;
  search(q: Pick<EvalQuery, 'channel' | 'query' | 'episodeIds'>, mode: Mode, options?: SearchOptions, limit?: number): ReturnType<typeof runSearch>;
  close(): Promise<void>;
}

/** The configuration of in-process runs: as `npm test` has it, passage and query vectors cached per machine unless EMBED_CACHE_DIR says otherwise. */
export function evalConfig(prefix?: string): Readonly<Config> {
  const env = { ...process.env };
  if (prefix) env.INDEX_PREFIX = prefix;
  env.EMBED_CACHE_DIR ||= join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'creator-content-api', 'embeddings');
  return loadConfig(env);
}

/** The channel of `slug` in the library loaded under `prefix`; throws, saying to load it, when there is none. */
export async function loadedChannel(client: Client, prefix: string, slug: string): Promise<ChannelDoc> {
  const res = await client.search({ index: indexAliases(prefix).channels, body: { size: 1, query: { term: { slug } } } as never });
  const hit = res.body.hits.hits[0]?._source as ChannelDoc | undefined;
  if (!hit) throw new Error(`no channel "${slug}" under prefix "${prefix}"; load the library first`);
  return hit;
}

/** Opens OpenSearch (and the model, unless keyword-only) for in-process searches. */
export async function openLocalSearch({
  prefix,
  withEmbedder = true,
  cacheSize,
  log = (m: string) => process.stderr.write(`${m}\n`),
}: { prefix?: string; withEmbedder?: boolean; cacheSize?: number; log?: (m: string) => void } = {}): Promise<LocalSearch> {
  await useProvisionedModel('eval'); // the real model, local files only (as `npm test` uses it)
  const config = evalConfig(prefix);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  let embedder: Embedder | undefined;
  if (withEmbedder) {
    const t = Date.now();
    embedder = await createEvalEmbedder(config);
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
      c = loadedChannel(client, config.indexPrefix, slug);
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
      const params: SearchParams = { query: q.query, fast: mode === 'keyword', limit, publishedOnly: false, ...(q.episodeIds ? { episodeIds: q.episodeIds } : {}) };
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
    if (q.episodeIds) url.searchParams.set('episodeIds', q.episodeIds.join(','));
    if (mode === 'keyword') url.searchParams.set('fast', 'true');
    const res = await fetch(url, { headers: key ? { 'x-api-key': key } : {} });
    if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as SearchResult;
  };
}

/** Scores of one query: the ranked-list measures and where its top citation lands. */
export type Judged = QueryScores & { landing: Landing };

/** Runs every query (a few at a time) and judges each; `onDone` reports progress. */
export async function evaluate(
  queries: readonly JudgedQuery[],
  mode: Mode,
  run: Runner,
  { concurrency = 4, onDone }: { concurrency?: number; onDone?: () => void } = {},
): Promise<Judged[]> {
  const scores: Judged[] = new Array(queries.length);
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const i = next++;
      const q = queries[i]!;
      const ranked = rankedSegments(await run(q, mode));
      scores[i] = { ...judge(ranked, q.relevant, 10), landing: landing(ranked, q.relevant) };
      onDone?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queries.length) }, worker));
  return scores;
}

/** One row of the table: a mode on one library. */
export interface Row extends QueryScores {
  library: string;
  mode: Mode;
  queries: number;
  seconds: number;
  overlap1: number;
  landing1: number;
  medianOffsetMs: number | null;
}

export function summarize(library: string, mode: Mode, judged: readonly Judged[], seconds: number): Row {
  return { library, mode, queries: judged.length, seconds, ...meanScores(judged), ...meanLanding(judged.map((j) => j.landing)) };
}

/**
 * Parses a settings spec, `"k=30 keyword=1.5 semantic=1 title=0.5 candidates=200
 * fields=text,chapterTitle^2 efields=title^3,summary type=most_fields agg=sum landing=off window=15000"`.
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
    const list = () =>
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
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
      case 'landing':
        if (value !== 'off' && value !== 'on') throw new Error('landing: expected on or off');
        options.landing = { ...options.landing, off: value === 'off' };
        break;
      case 'chapterhits':
        if (value !== 'absorb' && value !== 'lend' && value !== 'keep') throw new Error('chapterhits: expected absorb, lend or keep');
        options.chapterHits = value;
        break;
      case 'framing':
        if (value !== 'drop' && value !== 'keep') throw new Error('framing: expected drop or keep');
        options.keyword = { ...options.keyword, dropFraming: value === 'drop' };
        break;
      case 'longchapter':
        options.longChapterMs = num();
        break;
      case 'support':
        options.support = num();
        break;
      case 'fusion':
        if (!['rrf', 'minmax', 'zscore'].includes(value)) throw new Error('fusion: expected rrf, minmax or zscore');
        options.fusion = value as 'rrf';
        break;
      case 'slack':
        options.landing = { ...options.landing, slack: num() };
        break;
      case 'lookahead':
        options.landing = { ...options.landing, lookahead: num() };
        break;
      case 'window':
        options.landing = { ...options.landing, windowMs: num() };
        break;
      default:
        throw new Error(
          `unknown setting "${name}" (k, keyword, semantic, title, candidates, fields, efields, titleN, type, agg, framing, chapterhits, longchapter, support, fusion, landing, lookahead, slack, window)`,
        );
    }
  }
  return options;
}

/** A Markdown table of rows; `overlap@1` and `landing@1` are shares of all queries, the offset a median over top citations in a relevant episode. */
export function formatTable(rows: readonly Row[]): string {
  const head = ['library', 'mode', 'queries', 'nDCG@10', 'Recall@10', 'MRR', 'overlap@1', 'landing@1', 'median offset s', 'seconds'];
  const body = rows.map((r) => [
    r.library,
    r.mode,
    String(r.queries),
    r.ndcg.toFixed(4),
    r.recall.toFixed(4),
    r.rr.toFixed(4),
    r.overlap1.toFixed(4),
    r.landing1.toFixed(4),
    r.medianOffsetMs === null ? '-' : (r.medianOffsetMs / 1000).toFixed(1),
    r.seconds.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** The two targets of the relevance work per library: hybrid ÷ keyword on MRR, and landing@1 ÷ overlap@1 of hybrid. */
export function formatRatios(rows: readonly Row[]): string {
  const out: string[] = [];
  for (const library of [...new Set(rows.map((r) => r.library))]) {
    const of = (m: Mode) => rows.find((r) => r.library === library && r.mode === m);
    const kw = of('keyword');
    const hy = of('hybrid');
    const parts = [library];
    if (kw && hy) parts.push(`hybrid/keyword MRR ${(hy.rr / kw.rr).toFixed(3)}`);
    for (const r of [kw, hy]) if (r) parts.push(`${r.mode} landing/overlap ${(r.landing1 / Math.max(r.overlap1, 1e-9)).toFixed(3)}`);
    out.push(parts.join('  '));
  }
  return out.join('\n');
}

const DATASETS_DIR = join(PROJECT_ROOT, '..', 'shared', 'data');
const MATRIX_SETS = ['qmsum', 'tutorialvqa'];

async function main(): Promise<void> {
  const opts = new Command()
    .name('eval')
    .description('nDCG@10, Recall@10, MRR and landing@1 of search over judged queries (a segment is relevant when it overlaps a relevant time range).')
    .option('--queries <file>', 'JSON lines: {id, channel, query, relevant: [{episodeId, startMs, endMs}]} (default with --library: its queries-dev.jsonl)')
    .option('--library <dir>', 'load this library (idempotently) and evaluate its dev queries')
    .addOption(
      new Option('--chapters <which>', 'with --library/--matrix: as given, on speech alone (a copy with chapters: []), or both (default: chapters; with --matrix both)').choices([
        'chapters',
        'speech',
        'both',
      ]),
    )
    .option('--matrix', `every data set of ${MATRIX_SETS.join(' and ')} (from --datasets) in both chapter conditions`)
    .option('--datasets <dir>', 'where --matrix finds the data sets', DATASETS_DIR)
    .option('--mode <modes>', `which legs: ${MODES.join(', ')}, a comma-separated list of them, or all`, 'all')
    .option('--api <baseUrl>', 'evaluate a running API instead of searching in-process')
    .option('--key <key>', 'API key for --api')
    .option('--limit <n>', 'evaluate n queries spread evenly over the file', positive)
    .option('--prefix <prefix>', 'index prefix for in-process runs without --library (default: INDEX_PREFIX)')
    .option('--set <settings>', 'tuning for in-process runs, e.g. "k=30 keyword=1.5 fields=text,chapterTitle^2"', '')
    .addOption(
      new Option('--scope <scope>', 'search the whole channel, or only the episodes holding each answer (moment finding alone)').choices(['channel', 'episode']).default('channel'),
    )
    .option('--concurrency <n>', 'queries in flight', positive, 4)
    .option('--out <file>', 'also write per-query scores as JSON lines')
    .option('--json <file>', 'also write the rows as JSON')
    .parse()
    .opts<{
      queries?: string;
      library?: string;
      chapters?: ChapterCondition | 'both';
      matrix?: boolean;
      datasets: string;
      mode: string;
      api?: string;
      key?: string;
      limit?: number;
      prefix?: string;
      set: string;
      scope: Scope;
      concurrency: number;
      out?: string;
      json?: string;
    }>();

  const log = createLogger({ name: 'eval', level: 'info', fd: 2 });
  const asked = opts.mode === 'all' ? [...MODES] : opts.mode.split(',').map((m) => m.trim());
  const unknown = asked.filter((m) => !(MODES as readonly string[]).includes(m));
  if (unknown.length > 0) throw new Error(`--mode: unknown ${unknown.join(', ')} (${MODES.join(', ')} or all)`);
  let modes = asked as Mode[];
  if (opts.api && modes.includes('semantic')) {
    process.stderr.write('note: semantic-only is in-process only; skipped against --api\n');
    modes = modes.filter((m) => m !== 'semantic');
  }
  const settings = parseSettings(opts.set);

  // What to evaluate: loaded libraries, or a queries file against what is already loaded.
  const chapters = opts.chapters ?? (opts.matrix ? 'both' : 'chapters');
  const conditions: ChapterCondition[] = chapters === 'both' ? ['chapters', 'speech'] : [chapters];
  const sources = opts.matrix ? MATRIX_SETS.map((n) => join(opts.datasets, n)) : opts.library ? [opts.library] : [];
  const targets: Array<{ label: string; queries: string; prefix?: string; lib?: EvalLibrary }> = [];
  if (sources.length > 0) {
    if (opts.api) throw new Error('--library and --matrix load libraries in-process; use --queries with --api');
    for (const source of sources) {
      for (const condition of conditions) {
        const lib = await prepareLibrary(source, condition, { log });
        targets.push({ label: `${lib.name} ${condition}`, queries: opts.queries ?? lib.queries, prefix: lib.prefix, lib });
      }
    }
  } else {
    if (!opts.queries) throw new Error('give --queries, --library or --matrix');
    targets.push({ label: opts.queries, queries: opts.queries, prefix: opts.prefix });
  }

  const rows: Row[] = [];
  const perQuery: string[] = [];
  if (opts.scope === 'episode') for (const target of targets) target.label += ', in its episode';
  for (const target of targets) {
    if (target.lib) {
      await useProvisionedModel('eval');
      await loadEvalLibrary(target.lib, evalConfig(target.lib.prefix), log);
    }
    const queries: EvalQuery[] = evenSubset(parseQueries(await readFile(target.queries, 'utf8')), opts.limit).map((q) => ({
      ...q,
      episodeIds: scopedEpisodes(q, opts.scope),
    }));
    let local: LocalSearch | undefined;
    let run: Runner;
    if (opts.api) {
      run = apiRunner(opts.api, opts.key);
    } else {
      local = await openLocalSearch({ prefix: target.prefix, withEmbedder: modes.some((m) => m !== 'keyword'), cacheSize: queries.length });
      const targetSettings = settings;
      run = async (q, mode) => (await local!.search(q, mode, targetSettings)).result;
    }
    try {
      for (const mode of modes) {
        const bar = new SingleBar({ format: `${target.label} ${mode.padEnd(8)} [{bar}] {value}/{total} queries | {duration}s`, stream: process.stderr });
        bar.start(queries.length, 0);
        const t = Date.now();
        const judged = await evaluate(queries, mode, run, { concurrency: opts.concurrency, onDone: () => bar.increment() });
        bar.stop();
        rows.push(summarize(target.label, mode, judged, (Date.now() - t) / 1000));
        log.info({ row: rows[rows.length - 1] }, 'evaluated');
        judged.forEach((j, i) => perQuery.push(JSON.stringify({ library: target.label, mode, id: queries[i]!.id, ...j })));
      }
    } finally {
      await local?.close();
    }
  }
  process.stdout.write(`${formatTable(rows)}\n\n${formatRatios(rows)}\nsettings: ${opts.set || 'configured defaults'}\n`);
  if (opts.out) await writeFile(opts.out, perQuery.join('\n') + '\n');
  if (opts.json) await writeFile(opts.json, JSON.stringify({ settings: opts.set || 'configured defaults', rows }, null, 2) + '\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
