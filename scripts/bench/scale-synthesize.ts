// Synthetic libraries for bench:scale, pure: channels of mixed sizes whose episodes copy real ones, with noisy real vectors.

/** A seeded uniform generator on [0, 1) (mulberry32): the same seed gives the same library. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller). */
export function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * A real vector moved by noise of relative length `noise` in a random direction, normalised
 * again, at float32 precision as the model's vectors are (so `_source` holds as many digits
 * as a real passage's and the store is as large). At noise 0.3 the copy keeps a cosine of about 0.96 to its source, and two copies of one
 * source about 0.92: neighbours of one passage, not duplicates.
 */
export function noisyUnitVector(base: ArrayLike<number>, noise: number, random: () => number): number[] {
  const n = base.length;
  const g = new Float64Array(n);
  let gNorm = 0;
  for (let i = 0; i < n; i++) {
    g[i] = gaussian(random);
    gNorm += g[i]! * g[i]!;
  }
  let baseNorm = 0;
  for (let i = 0; i < n; i++) baseNorm += base[i]! * base[i]!;
  const scale = (noise * Math.sqrt(baseNorm)) / Math.sqrt(gNorm || 1);
  const v = new Float64Array(n);
  let norm = 0;
  for (let i = 0; i < n; i++) {
    v[i] = base[i]! + scale * g[i]!;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm) || 1;
  return Array.from(v, (x) => Math.fround(x / norm));
}

/**
 * Channel sizes in passages, log-uniform between `min` and `max`. The same distribution at
 * every scale: a bigger store has more channels, not bigger ones, as a platform grows by
 * adding creators. A channel-scoped search should then cost about the same at 100k and 1M.
 */
export function channelSize(random: () => number, { min, max }: { min: number; max: number }): number {
  return Math.round(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))));
}

/** One synthetic channel: its number and how many passages it holds. */
export interface ChannelPlan {
  n: number;
  size: number;
}

/**
 * Channels to add so that the store grows from `from` to exactly `to` passages: sizes drawn from
 * {@link channelSize}, the last one cut to land on `to`. Channels are numbered on from `firstN`.
 */
export function planChannels(from: number, to: number, random: () => number, { min, max, firstN }: { min: number; max: number; firstN: number }): ChannelPlan[] {
  const plans: ChannelPlan[] = [];
  let total = from;
  while (total < to) {
    const size = Math.min(channelSize(random, { min, max }), to - total);
    plans.push({ n: firstN + plans.length, size });
    total += size;
  }
  return plans;
}

/** Percentile of sorted numbers (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Share of the exact top ids that the approximate search found too. */
export function recallAt(approximate: readonly string[], exact: readonly string[], k = 10): number {
  const truth = exact.slice(0, k);
  if (truth.length === 0) return 1;
  const found = new Set(approximate.slice(0, k));
  return truth.filter((id) => found.has(id)).length / truth.length;
}
