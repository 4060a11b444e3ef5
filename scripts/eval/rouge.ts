// ROUGE-1 as both title measures count it: the unigram F1 of two word lists, counts clipped (a word the reference
// holds once matches once).

/** Unigram F1 of `candidate` against `reference` (already tokenised and filtered); 0 when either is empty or none match. */
export function unigramF1(candidate: readonly string[], reference: readonly string[]): number {
  if (candidate.length === 0 || reference.length === 0) return 0;
  const left = new Map<string, number>();
  for (const w of reference) left.set(w, (left.get(w) ?? 0) + 1);
  let hits = 0;
  for (const w of candidate) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      hits++;
      left.set(w, n - 1);
    }
  }
  if (hits === 0) return 0;
  const p = hits / candidate.length;
  const r = hits / reference.length;
  return (2 * p * r) / (p + r);
}
