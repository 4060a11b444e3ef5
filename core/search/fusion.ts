// Fusing the legs, pure: a weighted sum of min-max normalized scores (the default), or reciprocal rank fusion (ranks alone).
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
  return combine(legs, weights, (leg, weight) => leg.hits.map((hit) => weight / (k + hit.rank)));
}

/** A fused hit with what its ordering needs, computed once rather than in every comparison. */
interface Entry {
  hit: FusedHit;
  key: string;
  bestRank: number;
}

/**
 * Sums the weighted contributions of every leg over hits keyed by type and id (a leg that
 * lists a hit twice counts its first listing once), then orders by fused score, best
 * single rank, key.
 */
function combine(legs: readonly Leg[], weights: Partial<Record<LegName, number>>, contributions: (leg: Leg, weight: number) => number[]): FusedHit[] {
  const fused = new Map<string, Entry>();
  for (const leg of legs) {
    const weight = weights[leg.name] ?? 1;
    if (weight === 0) continue;
    const values = contributions(leg, weight);
    leg.hits.forEach((hit, i) => {
      const id = `${hit.type}:${hit.id}`;
      let entry = fused.get(id);
      if (!entry) {
        // Object.assign, not `{ ...hit, fusedScore, legs }`: a spread followed by more properties
        // leaves V8's fast clone path (docs/performance.md, "Choices in the search code").
        entry = { hit: Object.assign({}, hit, { fusedScore: 0, legs: {} }), key: id, bestRank: hit.rank };
        fused.set(id, entry);
      }
      if (entry.hit.legs[leg.name]) return;
      entry.hit.fusedScore += values[i]!;
      entry.hit.legs[leg.name] = { rank: hit.rank, score: hit.score };
      entry.bestRank = Math.min(entry.bestRank, hit.rank);
    });
  }
  return [...fused.values()].sort((a, b) => b.hit.fusedScore - a.hit.fusedScore || a.bestRank - b.bestRank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((e) => e.hit);
}

export interface ConvexFusionOptions {
  /** Multiplier per leg; a missing leg weighs 1, a leg weighing 0 is left out. */
  weights?: Partial<Record<LegName, number>>;
}

/** A leg's scores mapped onto [0, 1], in its order: its best hit 1, its last 0 (one hit, or equal scores: 1). */
export function minMaxScores(scores: readonly number[]): number[] {
  if (scores.length === 0) return [];
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  return scores.map((s) => (max > min ? (s - min) / (max - min) : 1));
}

/**
 * Convex combination of min-max normalized leg scores: score(d) = Σ over legs that found d
 * of weight × normalized score. Unlike RRF it keeps how far ahead a leg's top hit is
 * (a BM25 score twice the next one counts), at the price of trusting each leg's scale
 * after normalization. Same hit keys and tie-breaks as {@link reciprocalRankFusion}.
 */
export function convexFusion(legs: readonly Leg[], { weights = {} }: ConvexFusionOptions = {}): FusedHit[] {
  return combine(legs, weights, (leg, weight) => minMaxScores(leg.hits.map((h) => h.score)).map((n) => weight * n));
}
