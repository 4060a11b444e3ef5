// The sentence-window leg ("small to big", off by default): k-NN over windows of ~10–20 s, each hit standing for its passage (pure).
import type { ChannelDoc, PassageKind } from '../store/documents.js';
import { buildFilters, type QueryClause } from './filters.js';
import type { CitationStart } from './landing.js';
import type { RawHit } from './msearch.js';
import type { LegHit, SearchParams } from './types.js';

/** How a search uses a windows index (built by scripts/eval-windows.ts). */
export interface WindowSearchOptions {
  /** The windows index, `win-<prefix>windows` (see {@link windowsIndexName}). */
  index: string;
  /** `replace`: the semantic leg runs over windows instead of passages; `add`: a `window` leg beside it. */
  use: 'replace' | 'add';
  /** Windows asked for per passage candidate (k of the k-NN = this × candidates): several windows of one passage take one slot. Default 3. */
  kFactor?: number;
  /**
   * Where a passage the window leg found is cited from: `off` as usual (the sentence of the
   * query's rarest terms, else the passage start), `fallback` the best window's start when no
   * query term matched the passage, `prefer` the best window's start in any case.
   */
  land?: 'off' | 'fallback' | 'prefer';
}

export const DEFAULT_WINDOW_K_FACTOR = 3;

/** The windows index of an index prefix: outside the prefix's own names, so no alias or reindex of the prefix touches it. */
export function windowsIndexName(prefix: string): string {
  return `win-${prefix}windows`;
}

const WINDOW_FIELDS = ['passageId', 'episodeId', 'kind', 'passageStartMs', 'passageEndMs', 'startMs', 'offset'];

/** The k-NN search over windows, filtered inside the knn clause like the passage leg (see `buildKnnQuery`). */
export function buildWindowKnnQuery(vector: number[], params: SearchParams, channel: ChannelDoc, k: number): QueryClause {
  return {
    size: k,
    track_total_hits: false,
    _source: false,
    docvalue_fields: WINDOW_FIELDS,
    query: { knn: { embedding: { vector, k, filter: buildFilters(params, channel) } } },
  };
}

/**
 * Window hits (best first) as passage hits: each passage scored by its best window, ranked
 * from 1, at most `candidates`. `anchors` holds, per passage, where its best window begins
 * (a citation start).
 */
export function toWindowPassageHits(hits: readonly RawHit[], candidates: number): { hits: LegHit[]; anchors: Map<string, CitationStart> } {
  const out: LegHit[] = [];
  const anchors = new Map<string, CitationStart>();
  for (const h of hits) {
    if (out.length >= candidates) break;
    const f = h.fields ?? {};
    const id = String(f.passageId?.[0]);
    if (anchors.has(id)) continue;
    anchors.set(id, { offset: Number(f.offset?.[0] ?? 0), ms: Number(f.startMs?.[0]) });
    out.push({
      type: 'passage',
      id,
      episodeId: String(f.episodeId?.[0]),
      startMs: Number(f.passageStartMs?.[0]),
      // A windows index built before titles were windows holds transcript windows only.
      kind: (f.kind?.[0] as PassageKind | undefined) ?? 'transcript',
      endMs: Number(f.passageEndMs?.[0]),
      rank: out.length + 1,
      score: h._score ?? 0,
    });
  }
  return { hits: out, anchors };
}
