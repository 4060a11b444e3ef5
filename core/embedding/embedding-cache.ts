// A persistent passage-vector cache in front of an embedder: the same text under the same
// model is embedded once per machine, whatever index or clone asks for it.
import { createHash } from 'node:crypto';
import { appendFile, mkdir, open, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { signatureOf, type Embedder } from './embedder.js';
import { legacySignature, signatureDifferences, type EmbedderSignature } from './signature.js';

const KEY_BYTES = 32;

export interface CachedEmbedder extends Embedder {
  /** Passages answered from the cache since creation. */
  readonly cacheHits: number;
}

/**
 * Wraps `embedder` so that `embedPassages` answers known texts from an append-only file
 * `<dir>/<model>-<dimension>[-<embedder hash>].vectors` (sha256 key + float32 vector per record)
 * and appends new ones. One file per embedder signature (see {@link cacheFileName}).
 * Queries are not cached here (the search path has its own LRU). `embeddedCount` still
 * counts only what the model itself embedded. A torn tail (a process killed mid-append)
 * is cut off on open.
 */
export async function withEmbeddingCache(embedder: Embedder, { dir }: { dir: string }): Promise<CachedEmbedder> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, cacheFileName(signatureOf(embedder)));
  const recordBytes = KEY_BYTES + embedder.dimension * 4;
  const known = new Map<string, Float32Array>();
  /** Bytes of the file already read: records other processes append later are picked up on a miss. */
  let readUpTo = 0;
  const fileSize = (): Promise<number> =>
    stat(file).then(
      (st) => st.size,
      (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? 0 : Promise.reject(err)),
    );
  const readNew = async (): Promise<void> => {
    const size = await fileSize();
    const whole = size - (size % recordBytes);
    if (whole <= readUpTo) return;
    const handle = await open(file, 'r');
    try {
      const data = Buffer.alloc(whole - readUpTo);
      await handle.read(data, 0, data.length, readUpTo);
      for (let at = 0; at < data.length; at += recordBytes) {
        const key = data.toString('hex', at, at + KEY_BYTES);
        const vector = new Float32Array(embedder.dimension);
        for (let i = 0; i < embedder.dimension; i++) vector[i] = data.readFloatLE(at + KEY_BYTES + i * 4);
        known.set(key, vector);
      }
    } finally {
      await handle.close();
    }
    readUpTo = whole;
  };
  const size = await fileSize();
  if (size % recordBytes !== 0) await truncate(file, size - (size % recordBytes));
  await readNew();

  const keyOf = (text: string) => createHash('sha256').update(embedder.modelId).update('\0').update(text).digest('hex');
  let hits = 0;

  return {
    get modelId() {
      return embedder.modelId;
    },
    get signature() {
      return embedder.signature;
    },
    get dimension() {
      return embedder.dimension;
    },
    get embeddedCount() {
      return embedder.embeddedCount;
    },
    get cacheHits() {
      return hits;
    },
    embedQuery: (text) => embedder.embedQuery(text),
    async embedPassages(texts) {
      const keys = texts.map(keyOf);
      let missing = [...new Set(keys.filter((k) => !known.has(k)))];
      if (missing.length > 0) {
        // Another process loading the same library may have embedded them since.
        await readNew();
        missing = missing.filter((k) => !known.has(k));
      }
      if (missing.length > 0) {
        const byKey = new Map(keys.map((k, i) => [k, texts[i]!]));
        const vectors = await embedder.embedPassages(missing.map((k) => byKey.get(k)!));
        const out = Buffer.alloc(missing.length * recordBytes);
        missing.forEach((key, r) => {
          const vector = Float32Array.from(vectors[r]!);
          known.set(key, vector);
          const at = r * recordBytes;
          out.write(key, at, 'hex');
          vector.forEach((v, i) => out.writeFloatLE(v, at + KEY_BYTES + i * 4));
        });
        // One append per call: O_APPEND keeps concurrent writers' records whole.
        await appendFile(file, out);
      }
      hits += texts.length - missing.length;
      return keys.map((k) => Array.from(known.get(k)!));
    },
  };
}

/**
 * The cache file of an embedder: `<model>-<dimension>.vectors` for a local model with the
 * defaults of its id (the name every cache had before embedders were configurable, so existing
 * caches stay valid), with a hash of the whole signature added for any other (another kind,
 * pooling or passage prefix gives other vectors for the same text).
 */
export function cacheFileName(signature: EmbedderSignature): string {
  const base = `${signature.model.replace(/[^A-Za-z0-9._-]+/g, '_')}-${signature.dimension}`;
  const defaults = legacySignature(signature.model, signature.dimension);
  // The query prefix never touches a passage vector: it does not split the cache.
  const differs = signatureDifferences(defaults, signature).filter((k) => k !== 'queryPrefix');
  if (differs.length === 0) return `${base}.vectors`;
  const { kind, model, dimension, pooling, passagePrefix } = signature;
  const hash = createHash('sha256').update(JSON.stringify({ kind, model, dimension, pooling, passagePrefix })).digest('hex').slice(0, 12);
  return `${base}-${hash}.vectors`;
}
