// What the workbench runs, all through the eval harness and the search pipeline (no second implementation): one query
// under a configuration with each hit's leg ranks, fused score and where its citation lands; a whole query set as an
// experiment with the eval's own measures; and the version of the library it ran on.
import type { Tuning } from '../search.js';
import type { FusedHit } from '../../../core/search/types.js';
import { indexAliases } from '../../../core/store/opensearch.js';
import { evaluate, parseSettings, summarize, MODES, type Judged, type LocalSearch, type Mode, type Row } from '../harness.js';
import { judge, overlaps, rankedSegments, type JudgedQuery, type QueryScores, type RelevantRange } from '../relevance.js';
import { jaccard, movements, rbo, type Movement } from './compare.js';

/** A named configuration: the legs (mode) and the search settings, in the eval's `--set` syntax. */
export interface WorkbenchConfig {
  mode: Mode;
  /** e.g. `fusion=rrf k=60 candidates=100 chapterhits=lend landing=on`; empty: the configured defaults. */
  settings: string;
}

/** Refuses an unknown mode or setting with the harness's own message. */
export function checkConfig(value: unknown): WorkbenchConfig {
  const c = value as Partial<WorkbenchConfig> | undefined;
  if (!c || typeof c !== 'object') throw new Error('a configuration is {mode, settings}');
  if (!MODES.includes(c.mode as Mode)) throw new Error(`mode: one of ${MODES.join(', ')}`);
  if (typeof c.settings !== 'string') throw new Error('settings: a string such as "fusion=rrf k=60"');
  parseSettings(c.settings);
  return { mode: c.mode as Mode, settings: c.settings.trim() };
}

export interface RankedHit {
  rank: number;
  episodeId: string;
  title: string;
  segmentId: string;
  startMs: number;
  endMs: number;
  text: string;
  url: string;
  fusedScore: number | null;
  keywordRank: number | null;
  knnRank: number | null;
  /** Against the judged ranges of the query, when it has them. */
  judged: 'relevant' | 'not relevant' | 'unjudged';
  /** The citation's start minus the start of the judged range it overlaps (ms; negative: before the answer). */
  offsetMs: number | null;
}

export interface Ranking {
  hits: RankedHit[];
  scores: QueryScores | null;
  tookMs: number;
  degraded?: string;
}

/** One query under one configuration, every shown segment with its legs and its judgment. */
export async function rankQuery(local: LocalSearch, config: WorkbenchConfig, q: Pick<JudgedQuery, 'channel' | 'query'> & { relevant?: RelevantRange[] }): Promise<Ranking> {
  const started = performance.now();
  const options: Tuning = parseSettings(config.settings);
  const { result, trace } = await local.search(q, config.mode, options, 10);
  const fused = new Map<string, FusedHit>(trace.fused.map((h) => [h.id, h]));
  const relevant = q.relevant ?? [];
  const hits: RankedHit[] = [];
  for (const episode of result.episodes) {
    for (const s of episode.segments) {
      const f = fused.get(s.segmentId);
      const range = { episodeId: episode.episodeId, startMs: s.startMs, endMs: s.endMs };
      const about = relevant.find((r) => overlaps(range, r));
      hits.push({
        rank: hits.length + 1,
        episodeId: episode.episodeId,
        title: episode.title,
        segmentId: s.segmentId,
        startMs: s.startMs,
        endMs: s.endMs,
        text: s.text,
        url: s.url,
        fusedScore: f?.fusedScore ?? null,
        keywordRank: f?.legs.keyword?.rank ?? null,
        knnRank: f?.legs.semantic?.rank ?? null,
        judged: relevant.length === 0 ? 'unjudged' : about ? 'relevant' : 'not relevant',
        offsetMs: about ? s.startMs - about.startMs : null,
      });
    }
  }
  const scores = relevant.length > 0 ? judge(rankedSegments(result), relevant, 10) : null;
  return { hits, scores, tookMs: performance.now() - started, ...(result.degraded ? { degraded: String(result.degraded) } : {}) };
}

/** Two rankings of one query: each hit of B against A, what A had that B lost, and how alike they are. */
export function compareRankings(a: Ranking, b: Ranking): { jaccard: number; rbo: number; moves: Movement[]; gone: string[] } {
  const ids = (r: Ranking) => r.hits.map((h) => h.segmentId);
  const { b: moves, gone } = movements(ids(a), ids(b));
  return { jaccard: jaccard(ids(a), ids(b)), rbo: rbo(ids(a), ids(b)), moves, gone };
}

export interface PerQuery extends QueryScores {
  id: string;
  query: string;
  overlap: boolean;
  landed: boolean;
  offsetMs: number | null;
}

export interface Experiment {
  set: string;
  configName: string;
  config: WorkbenchConfig;
  library: LibraryVersion;
  summary: Row;
  perQuery: PerQuery[];
}

/** A whole set under one configuration: the eval's `evaluate` and `summarize`, so the numbers are the CLI's. */
export async function runExperiment(
  local: LocalSearch,
  set: { name: string; queries: JudgedQuery[] },
  configName: string,
  config: WorkbenchConfig,
  onDone?: () => void,
): Promise<Experiment> {
  const options = parseSettings(config.settings);
  const started = performance.now();
  const judged: Judged[] = await evaluate(set.queries, config.mode, async (q, mode) => (await local.search(q, mode, options)).result, { ...(onDone ? { onDone } : {}) });
  const summary = summarize(set.name, config.mode, judged, (performance.now() - started) / 1000);
  return {
    set: set.name,
    configName,
    config,
    library: await libraryVersion(local),
    summary,
    perQuery: judged.map((j, i) => ({
      id: set.queries[i]!.id,
      query: set.queries[i]!.query,
      ndcg: j.ndcg,
      recall: j.recall,
      rr: j.rr,
      precision: j.precision,
      episodeRr: j.episodeRr,
      overlap: j.landing.overlap,
      landed: j.landing.landed,
      offsetMs: j.landing.offsetMs,
    })),
  };
}

export interface LibraryVersion {
  prefix: string;
  /** The concrete index behind the passages alias (its name carries the mapping version and creation time). */
  passagesIndex: string;
  passages: number;
  episodes: number;
  /** The latest `indexedAt` of an episode: changes whenever a load changes anything. */
  lastIndexedAt: string | null;
}

/** What the store holds under the prefix, as a snapshot records it. */
export async function libraryVersion(local: LocalSearch): Promise<LibraryVersion> {
  const aliases = indexAliases(local.config.indexPrefix);
  const [alias, passages, episodes, latest] = await Promise.all([
    local.client.indices.getAlias({ name: aliases.passages }),
    local.client.count({ index: aliases.passages }),
    local.client.count({ index: aliases.episodes }),
    local.client.search({ index: aliases.episodes, body: { size: 0, aggs: { last: { max: { field: 'indexedAt' } } } } as never }),
  ]);
  const last = (latest.body.aggregations as { last?: { value_as_string?: string } } | undefined)?.last?.value_as_string ?? null;
  return {
    prefix: local.config.indexPrefix,
    passagesIndex: Object.keys(alias.body as object)[0] ?? aliases.passages,
    passages: passages.body.count,
    episodes: episodes.body.count,
    lastIndexedAt: last,
  };
}
