// Reciprocal rank fusion: merges ranked legs by rank alone, so BM25 and cosine scores never need calibrating.
import type { FusedHit, Leg, LegName } from './types.js';

export interface FusionOptions {
  /**
   * The RRF constant. Large k flattens the curve, so agreement between legs counts for
   * more than a top rank in one; 60 is the value of Cormack et al. (2009), robust
   * across collections.
   */
  k: number;
  /** Multiplier per leg; a missing leg weighs 1, a leg weighing 0 is left out. */
  weights?: Partial<Record<LegName, number>>;
}

/**
 * Fuses ranked legs: score(d) = Σ over legs that found d of weight / (k + rank), rank
 * from 1. A hit found by two legs therefore outranks one found at the same rank by a
 * single leg. Hits are keyed by type and id, so a passage and an episode never merge.
 * Ties break on the best single rank, then on type and id, so the order is stable.
 */
export function reciprocalRankFusion(legs: readonly Leg[], { k, weights = {} }: FusionOptions): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const leg of legs) {
    const weight = weights[leg.name] ?? 1;
    if (weight === 0) continue;
    for (const hit of leg.hits) {
      let entry = fused.get(key(hit));
      if (!entry) {
        entry = { ...hit, fusedScore: 0, legs: {} };
        fused.set(key(hit), entry);
      }
      // A leg that lists a hit twice counts its best rank once.
      if (entry.legs[leg.name]) continue;
      entry.fusedScore += weight / (k + hit.rank);
      entry.legs[leg.name] = { rank: hit.rank, score: hit.score };
    }
  }
  return [...fused.values()].sort(
    (a, b) => b.fusedScore - a.fusedScore || bestRank(a) - bestRank(b) || compare(key(a), key(b)),
  );
}

const key = (hit: { type: string; id: string }) => `${hit.type}:${hit.id}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bestRank(hit: FusedHit): number {
  return Math.min(...Object.values(hit.legs).map((l) => l.rank));
}
