// Two rankings side by side: what moved, what is new, what is gone, and how alike the lists are (Jaccard, RBO).

/** |A ∩ B| / |A ∪ B| of two lists' items (1 for two empty lists). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  const union = new Set([...sa, ...sb]);
  if (union.size === 0) return 1;
  let both = 0;
  for (const x of sa) if (sb.has(x)) both++;
  return both / union.size;
}

/**
 * Rank-biased overlap (Webber, Moffat and Zobel 2010) of two rankings, extrapolated to full length (RBO_ext, their
 * equation 32): agreement at each depth, weighted by p^(d-1), so the top counts most. 1 for identical lists, 0 for
 * disjoint ones; `p` 0.9 puts about 86 % of the weight on the top 10.
 */
export function rbo(a: readonly string[], b: readonly string[], p = 0.9): number {
  const k = Math.max(a.length, b.length);
  if (k === 0) return 1;
  const seenA = new Set<string>();
  const seenB = new Set<string>();
  let overlap = 0;
  let sum = 0;
  let agreement = 0;
  for (let d = 1; d <= k; d++) {
    const x = a[d - 1];
    const y = b[d - 1];
    if (x !== undefined && x === y) overlap++;
    else {
      if (x !== undefined) {
        if (seenB.has(x)) overlap++;
        seenA.add(x);
      }
      if (y !== undefined) {
        if (seenA.has(y)) overlap++;
        seenB.add(y);
      }
    }
    if (x !== undefined && x === y) {
      seenA.add(x);
      seenB.add(y);
    }
    agreement = overlap / d;
    sum += agreement * Math.pow(p, d);
  }
  // RBO_ext: the sum over the seen depths plus the last agreement carried to infinite depth.
  return ((1 - p) / p) * sum + agreement * Math.pow(p, k);
}

export type Movement = { kind: 'same' } | { kind: 'moved'; by: number } | { kind: 'new' } | { kind: 'gone' };

/** For each item of `b`, where it was in `a` (moved by how many places, or new); and the items of `a` gone from `b`. */
export function movements(a: readonly string[], b: readonly string[]): { b: Movement[]; gone: string[] } {
  const inA = new Map(a.map((x, i) => [x, i]));
  const inB = new Set(b);
  return {
    b: b.map((x, i) => {
      const was = inA.get(x);
      if (was === undefined) return { kind: 'new' };
      return was === i ? { kind: 'same' } : { kind: 'moved', by: was - i };
    }),
    gone: a.filter((x) => !inB.has(x)),
  };
}
