// Document frequencies of a channel's phrase keys, held as sorted 53-bit hashes and counts in typed arrays: loading,
// looking up an episode's keys and applying its change cost a few milliseconds at 300,000 keys, where a Map of the
// strings took a second to build.

/** cyrb53 (public domain): a 53-bit string hash; 300,000 keys collide with odds of about 1 in 100,000. */
export function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The counts as stored: base64 of the sorted hashes (float64, little-endian) and of their counts (uint32). */
export interface PhraseCountsJson {
  hashes: string;
  counts: string;
}

export class PhraseCounts {
  private hashes: Float64Array;
  private counts: Uint32Array;
  /** Changes not merged yet, by hash. */
  private delta = new Map<number, number>();

  constructor(hashes = new Float64Array(0), counts = new Uint32Array(0)) {
    this.hashes = hashes;
    this.counts = counts;
  }

  static fromJson(json: PhraseCountsJson): PhraseCounts {
    const h = Buffer.from(json.hashes, 'base64');
    const c = Buffer.from(json.counts, 'base64');
    // Copied into fresh buffers: a Buffer's pool offset need not be aligned for a typed array.
    return new PhraseCounts(new Float64Array(new Uint8Array(h).buffer), new Uint32Array(new Uint8Array(c).buffer));
  }

  private base(h: number): number {
    let lo = 0;
    let hi = this.hashes.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.hashes[mid]!;
      if (v === h) return this.counts[mid]!;
      if (v < h) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Episodes holding `key`. */
  get(key: string): number {
    const h = hash53(key);
    return Math.max(0, this.base(h) + (this.delta.get(h) ?? 0));
  }

  /** Counts each key once more (`by` 1) or once less (`by` -1). */
  add(keys: Iterable<string>, by: 1 | -1): void {
    for (const key of keys) {
      const h = hash53(key);
      this.delta.set(h, (this.delta.get(h) ?? 0) + by);
    }
  }

  /** Merges the changes into the sorted arrays; a count that reaches 0 goes. */
  private merge(): void {
    if (this.delta.size === 0) return;
    const changes = Float64Array.from(this.delta.keys()).sort();
    const hashes = new Float64Array(this.hashes.length + changes.length);
    const counts = new Uint32Array(hashes.length);
    let i = 0;
    let j = 0;
    let k = 0;
    const put = (h: number, n: number) => {
      if (n <= 0) return;
      hashes[k] = h;
      counts[k++] = n;
    };
    while (i < this.hashes.length || j < changes.length) {
      const a = i < this.hashes.length ? this.hashes[i]! : Infinity;
      const b = j < changes.length ? changes[j]! : Infinity;
      if (a < b) put(a, this.counts[i++]!);
      else if (b < a) put(b, this.delta.get(changes[j++]!)!);
      else {
        put(a, this.counts[i++]! + this.delta.get(changes[j++]!)!);
      }
    }
    this.hashes = hashes.slice(0, k);
    this.counts = counts.slice(0, k);
    this.delta.clear();
  }

  get size(): number {
    this.merge();
    return this.hashes.length;
  }

  /**
   * Keeps at most `target` keys: those in fewest episodes go first, in hash order (deterministic, and unrelated to
   * what the phrases say); returns how many went.
   */
  dropTo(target: number): number {
    this.merge();
    const over = this.hashes.length - target;
    if (over <= 0) return 0;
    const order = [...this.counts.keys()].sort((a, b) => this.counts[a]! - this.counts[b]! || this.hashes[a]! - this.hashes[b]!);
    const gone = new Set(order.slice(0, over));
    const keep = [...this.hashes.keys()].filter((i) => !gone.has(i));
    this.hashes = Float64Array.from(keep, (i) => this.hashes[i]!);
    this.counts = Uint32Array.from(keep, (i) => this.counts[i]!);
    return over;
  }

  toJson(): PhraseCountsJson {
    this.merge();
    return {
      hashes: Buffer.from(this.hashes.buffer, this.hashes.byteOffset, this.hashes.byteLength).toString('base64'),
      counts: Buffer.from(this.counts.buffer, this.counts.byteOffset, this.counts.byteLength).toString('base64'),
    };
  }

  /** Hash → count, for comparing two tallies. */
  entries(): [number, number][] {
    this.merge();
    return [...this.hashes].map((h, i) => [h, this.counts[i]!]);
  }
}
