// Relevance measures of the search harness: time-range judgments, nDCG@k, Recall@k, P@k, segment and episode MRR, landing (pure).
import type { SearchResult } from '../../core/search/types.js';

/** A relevant moment: a time range of one episode. */
export interface RelevantRange {
  episodeId: string;
  startMs: number;
  endMs: number;
}

/** One line of a queries file (`queries-dev.jsonl`). */
export interface JudgedQuery {
  id: string;
  /** Channel slug. */
  channel: string;
  query: string;
  relevant: RelevantRange[];
}

/** Scores of one query; each in [0, 1]. */
export interface QueryScores {
  ndcg: number;
  recall: number;
  /** Reciprocal rank of the first relevant segment (segment MRR when averaged). */
  rr: number;
  /** Share of the top `k` segments that are relevant (P@k). */
  precision: number;
  /** Reciprocal rank of the first episode holding a relevant range, over the episodes in the order the list shows them. */
  episodeRr: number;
}

/** Parses a JSON-lines queries file; a bad line throws with its number. */
export function parseQueries(text: string): JudgedQuery[] {
  const out: JudgedQuery[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const q = JSON.parse(line) as Partial<JudgedQuery>;
    if (typeof q.id !== 'string' || typeof q.channel !== 'string' || typeof q.query !== 'string' || !Array.isArray(q.relevant)) {
      throw new Error(`line ${i + 1}: expected {id, channel, query, relevant[]}`);
    }
    out.push(q as JudgedQuery);
  });
  return out;
}

/** The ranked list a client reads: each episode's segments in order, episodes in order. */
export function rankedSegments(result: SearchResult): RelevantRange[] {
  return result.episodes.flatMap((e) => e.segments.map((s) => ({ episodeId: e.episodeId, startMs: s.startMs, endMs: s.endMs })));
}

/** Do the two ranges share time? A zero-length segment counts when its instant lies in the range. */
export function overlaps(segment: RelevantRange, range: RelevantRange): boolean {
  if (segment.episodeId !== range.episodeId) return false;
  const end = Math.max(segment.endMs, segment.startMs + 1);
  return Math.max(segment.startMs, range.startMs) < Math.min(end, range.endMs);
}

/**
 * Judges a ranked segment list against the relevant ranges, over the top `k`. A segment
 * is relevant when it overlaps a relevant range of the right episode. Each range is
 * credited once, at its first overlapping segment, so three slices of the same moment
 * do not count as three finds; the ideal list therefore has min(R, k) hits on top.
 * Recall is the share of ranges found; the reciprocal rank is that of the first
 * relevant segment (0 when none in the top `k`).
 */
export function judge(ranked: readonly RelevantRange[], relevant: readonly RelevantRange[], k = 10): QueryScores {
  const credited = new Set<number>();
  let dcg = 0;
  let rr = 0;
  ranked.slice(0, k).forEach((segment, i) => {
    const hits = relevant.map((r, j) => (overlaps(segment, r) ? j : -1)).filter((j) => j >= 0);
    if (hits.length > 0 && rr === 0) rr = 1 / (i + 1);
    const fresh = hits.filter((j) => !credited.has(j));
    if (fresh.length > 0) {
      // One gain per segment, even when it spans several ranges: its rank is one slot.
      dcg += 1 / Math.log2(i + 2);
      fresh.forEach((j) => credited.add(j));
    }
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(relevant.length, k); i++) idcg += 1 / Math.log2(i + 2);
  const top = ranked.slice(0, k);
  const precision = top.filter((segment) => relevant.some((r) => overlaps(segment, r))).length / k;
  const episodes = [...new Set(ranked.map((s) => s.episodeId))];
  const firstEpisode = episodes.findIndex((e) => relevant.some((r) => r.episodeId === e));
  return {
    ndcg: idcg === 0 ? 0 : Math.min(1, dcg / idcg),
    recall: relevant.length === 0 ? 0 : credited.size / relevant.length,
    rr,
    precision,
    episodeRr: firstEpisode < 0 || firstEpisode >= k ? 0 : 1 / (firstEpisode + 1),
  };
}

/** Mean of each score over queries. */
export function meanScores(scores: readonly QueryScores[]): QueryScores {
  const n = Math.max(1, scores.length);
  const sum = (f: (s: QueryScores) => number) => scores.reduce((a, s) => a + f(s), 0) / n;
  return { ndcg: sum((s) => s.ndcg), recall: sum((s) => s.recall), rr: sum((s) => s.rr), precision: sum((s) => s.precision), episodeRr: sum((s) => s.episodeRr) };
}

/** `n` queries spread evenly over the list (every episode's queries stay represented); all when n ≥ length. */
export function evenSubset<T>(items: readonly T[], n: number | undefined): T[] {
  if (n === undefined || n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** How far before an answer's start a citation may begin and still land on it (a listener hears one sentence of lead-in). */
export const LANDING_TOLERANCE_MS = 5_000;

/** Where the top citation sends a listener, judged against the relevant ranges. */
export interface Landing {
  /** The first segment of the first episode overlaps a relevant range. */
  overlap: boolean;
  /** It overlaps one and starts no earlier than {@link LANDING_TOLERANCE_MS} before it: following it lands on the answer. */
  landed: boolean;
  /**
   * Its start minus the start of the answer it is about, in ms (negative: before the answer):
   * the range it overlaps (the nearest start among several), else the nearest range of its
   * episode; null when its episode has no relevant range or there is no result.
   */
  offsetMs: number | null;
}

/** Judges the top citation (the first segment of `ranked`) against the relevant ranges. */
export function landing(ranked: readonly RelevantRange[], relevant: readonly RelevantRange[], toleranceMs = LANDING_TOLERANCE_MS): Landing {
  const top = ranked[0];
  if (!top) return { overlap: false, landed: false, offsetMs: null };
  const own = relevant.filter((r) => r.episodeId === top.episodeId);
  const hit = own.filter((r) => overlaps(top, r));
  const nearest = (rs: readonly RelevantRange[]) =>
    rs.reduce<RelevantRange | undefined>((best, r) => (!best || Math.abs(top.startMs - r.startMs) < Math.abs(top.startMs - best.startMs) ? r : best), undefined);
  const about = nearest(hit) ?? nearest(own);
  return {
    overlap: hit.length > 0,
    landed: hit.some((r) => top.startMs >= r.startMs - toleranceMs),
    offsetMs: about ? top.startMs - about.startMs : null,
  };
}

/** Landing figures over queries: shares of overlap@1 and landing@1, and the median |offset| in ms (null when none). */
export function meanLanding(all: readonly Landing[]): { overlap1: number; landing1: number; medianOffsetMs: number | null } {
  const n = Math.max(1, all.length);
  const offsets = all.flatMap((l) => (l.offsetMs === null ? [] : [Math.abs(l.offsetMs)])).sort((a, b) => a - b);
  const mid = offsets.length >> 1;
  const median = offsets.length === 0 ? null : offsets.length % 2 ? offsets[mid]! : (offsets[mid - 1]! + offsets[mid]!) / 2;
  return { overlap1: all.filter((l) => l.overlap).length / n, landing1: all.filter((l) => l.landed).length / n, medianOffsetMs: median };
}

/**
 * Where a judged query is searched: the whole `channel`, or only the `episode`s holding its
 * answers. QMSum's questions were written about one meeting each ("what did the group
 * discuss about the buttons?") and the product-meetings channel has ~140 meetings about
 * the same remote control, so channel-wide scores mostly measure guessing the meeting;
 * `episode` measures finding the moment, as a client that names the episode would search.
 */
export type Scope = 'channel' | 'episode';

/** The episodes a query is scoped to under `scope` (undefined: the whole channel). */
export function scopedEpisodes(q: JudgedQuery, scope: Scope): string[] | undefined {
  return scope === 'episode' ? [...new Set(q.relevant.map((r) => r.episodeId))] : undefined;
}
