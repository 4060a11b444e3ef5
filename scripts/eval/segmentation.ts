// Topic segmentation measures over transcript segments: Pk (Beeferman et al. 1999) and WindowDiff (Pevzner & Hearst 2002).

/**
 * A segmentation of `n` units as the indexes where a new part starts (0 excluded; sorted or not, duplicates ignored).
 * Returns the part number of every unit.
 */
export function partsOf(n: number, starts: readonly number[]): number[] {
  const cuts = [...new Set(starts.filter((s) => s > 0 && s < n))].sort((a, b) => a - b);
  const parts = new Array<number>(n);
  let part = 0;
  let next = 0;
  for (let i = 0; i < n; i++) {
    while (next < cuts.length && cuts[next] === i) {
      part++;
      next++;
    }
    parts[i] = part;
  }
  return parts;
}

/** Half the mean reference part length, rounded, at least 1 (the usual k of Pk and WindowDiff). */
export function defaultK(n: number, reference: readonly number[]): number {
  const parts = new Set(reference.filter((s) => s > 0 && s < n)).size + 1;
  return Math.max(1, Math.round(n / parts / 2));
}

/**
 * Pk: the share of unit pairs k apart that the hypothesis and the reference disagree on (same part or not). 0 is perfect;
 * an `n` of at most k gives 0 (no pair to judge).
 */
export function pk(n: number, reference: readonly number[], hypothesis: readonly number[], k = defaultK(n, reference)): number {
  if (n <= k) return 0;
  const ref = partsOf(n, reference);
  const hyp = partsOf(n, hypothesis);
  let wrong = 0;
  for (let i = 0; i + k < n; i++) if ((ref[i] === ref[i + k]) !== (hyp[i] === hyp[i + k])) wrong++;
  return wrong / (n - k);
}

/** WindowDiff: the share of windows of k units in which the two segmentations hold a different number of boundaries. */
export function windowDiff(n: number, reference: readonly number[], hypothesis: readonly number[], k = defaultK(n, reference)): number {
  if (n <= k) return 0;
  const ref = partsOf(n, reference);
  const hyp = partsOf(n, hypothesis);
  let wrong = 0;
  for (let i = 0; i + k < n; i++) if (ref[i + k]! - ref[i]! !== hyp[i + k]! - hyp[i]!) wrong++;
  return wrong / (n - k);
}

/** `count` parts of (nearly) equal length over n units: the starts. */
export function equalStarts(n: number, count: number): number[] {
  return Array.from({ length: Math.max(0, count - 1) }, (_, i) => Math.round(((i + 1) * n) / count));
}

/**
 * The reference starts of an episode from its chapters: the index of the first segment starting at or after each chapter's
 * start (chapters may overlap or leave gaps, as QMSum's do; only where each begins counts).
 */
export function referenceStarts(segmentStarts: readonly number[], chapterStarts: readonly number[]): number[] {
  const out = new Set<number>();
  for (const c of chapterStarts) {
    const i = segmentStarts.findIndex((s) => s >= c);
    if (i > 0) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}
