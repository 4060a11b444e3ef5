// The relevance harness the eval CLI and the playground (and the workbench) share: search runners (in process or over a
// running API), judging, per-mode rows, search settings from a spec string, and the tables they print.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { loadConfig, type Config } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { createQueryVectorCache } from '../../core/embedding/query-cache.js';
import { judge, landing, meanLanding, meanScores, rankedSegments, type JudgedQuery, type Landing, type QueryScores } from './relevance.js';
import type { SearchDeps } from '../../core/search/search.js';
import { evalSearch, type Tuning } from './search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { SearchResult } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { createOpenSearchClient, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createEvalEmbedder } from './libraries.js';
import { useProvisionedModel } from '../ops/provision/model.js';

export const MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];
const MODE_LEGS: Record<Mode, Tuning['legs']> = {
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
  search(q: Pick<EvalQuery, 'channel' | 'query' | 'episodeIds'>, mode: Mode, tuning?: Tuning, limit?: number): ReturnType<typeof evalSearch>;
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
/** How long the harness trusts a channel it read. */
const CHANNEL_TTL_MS = 30_000;

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
    channelSites: config.channelSites,
    queryCache: createQueryVectorCache(Math.max(cacheSize ?? 0, config.search.queryCacheSize)),
  };
  // A channel is read once per CHANNEL_TTL_MS, and a failed read not kept: a library loaded while
  // a long-lived caller (the workbench) runs is searched without a restart.
  const channels = new LRUCache<string, ChannelDoc>({ max: 1000, ttl: CHANNEL_TTL_MS, fetchMethod: (slug) => loadedChannel(client, config.indexPrefix, slug) });
  const channel = async (slug: string): Promise<ChannelDoc> => (await channels.fetch(slug))!;
  return {
    config,
    client,
    embedder,
    deps,
    channel,
    async search(q, mode, tuning = {}, limit = 10) {
      const params: SearchParams = { query: q.query, fast: mode === 'keyword', limit, publishedOnly: false, ...(q.episodeIds ? { episodeIds: q.episodeIds } : {}) };
      return evalSearch(deps, await channel(q.channel), params, { ...tuning, legs: MODE_LEGS[mode] });
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
 * fields=text,chapterTitle^2 boost=generatedContext^0.3 efields=title^3,summary type=most_fields landing=off window=15000"`.
 */
export function parseSettings(spec: string): Tuning {
  const options: Tuning = {};
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
      case 'episodeW':
        options.episodeWeight = num();
        break;
      case 'episodeN':
        options.episodeCandidates = num();
        break;
      case 'episode':
        options.episodeFields = list();
        break;
      case 'episodeMinMs':
        options.episodeMinMs = num();
        break;
      case 'episodeTop':
        options.episodeTop = num();
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
      case 'boost':
        options.keyword = { ...options.keyword, passageBoostFields: list() };
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
      case 'fusion':
        if (value !== 'rrf' && value !== 'minmax') throw new Error('fusion: expected rrf or minmax');
        options.fusion = value;
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
          `unknown setting "${name}" (k, keyword, semantic, title, candidates, fields, boost, efields, titleN, episode, episodeN, episodeW, episodeN, episode, episodeMinMs, episodeTop, type, framing, chapterhits, longchapter, fusion, landing, lookahead, slack, window)`,
        );
    }
  }
  return options;
}

/** A Markdown table of rows; `overlap@1` and `landing@1` are shares of all queries, the offset a median over top citations in a relevant episode. */
export function formatTable(rows: readonly Row[]): string {
  const head = ['library', 'mode', 'queries', 'nDCG@10', 'Recall@10', 'MRR', 'P@10', 'episode MRR', 'overlap@1', 'landing@1', 'median offset s', 'seconds'];
  const body = rows.map((r) => [
    r.library,
    r.mode,
    String(r.queries),
    r.ndcg.toFixed(4),
    r.recall.toFixed(4),
    r.rr.toFixed(4),
    r.precision.toFixed(4),
    r.episodeRr.toFixed(4),
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
