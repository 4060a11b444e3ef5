// What makes two embedders' vectors comparable: kind, model, dimension, pooling and prefixes, as a passages index records them in `_meta.embedder`.

/** bge v1.5's retrieval instruction: prepended to queries, never to passages. */
export const BGE_QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

/** Where an embedder's vectors come from. */
export type EmbedderKind = 'local' | 'openai';

/** Pooling as configured (`auto`: from the model id) and as resolved; a remote service pools on its side. */
export type PoolingSetting = 'auto' | 'cls' | 'mean';
export type Pooling = 'cls' | 'mean' | 'server';

/**
 * Everything that decides a vector: vectors of two embedders are comparable only when every
 * field is equal. Stored in a passages index's `_meta.embedder` when the index is created.
 */
export interface EmbedderSignature {
  kind: EmbedderKind;
  model: string;
  dimension: number;
  pooling: Pooling;
  queryPrefix: string;
  passagePrefix: string;
}

/** bge models are trained to pool on [CLS] and to prefix queries; sentence-transformers models (MiniLM) mean-pool, no prefix. */
const isBge = (modelId: string): boolean => /bge/i.test(modelId);

/** The pooling of a local model: `auto` is `cls` for bge models, `mean` for others. */
export function resolvePooling(modelId: string, pooling: PoolingSetting = 'auto'): 'cls' | 'mean' {
  if (pooling !== 'auto') return pooling;
  return isBge(modelId) ? 'cls' : 'mean';
}

/** The prefixes of a model: unset ones default to the bge instruction for bge queries, else nothing. */
export function resolvePrefixes(
  modelId: string,
  { queryPrefix, passagePrefix }: { queryPrefix?: string | undefined; passagePrefix?: string | undefined } = {},
): {
  queryPrefix: string;
  passagePrefix: string;
} {
  return { queryPrefix: queryPrefix ?? (isBge(modelId) ? BGE_QUERY_PREFIX : ''), passagePrefix: passagePrefix ?? '' };
}

/**
 * The signature of an index built before `_meta.embedder` existed: only `_meta.model` and the
 * mapping's dimension were recorded, and the embedder was then always the local one with the
 * defaults of the model id (so today's indices match today's default configuration).
 */
export function legacySignature(model: string, dimension: number): EmbedderSignature {
  return { kind: 'local', model, dimension, pooling: resolvePooling(model), ...resolvePrefixes(model) };
}

/** A recorded `_meta.embedder`, or undefined when it is not a whole signature. */
export function readSignature(value: unknown): EmbedderSignature | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    (v.kind === 'local' || v.kind === 'openai') &&
    typeof v.model === 'string' &&
    Number.isInteger(v.dimension) &&
    (v.pooling === 'cls' || v.pooling === 'mean' || v.pooling === 'server') &&
    typeof v.queryPrefix === 'string' &&
    typeof v.passagePrefix === 'string';
  if (!ok) return undefined;
  return { kind: v.kind, model: v.model, dimension: v.dimension, pooling: v.pooling, queryPrefix: v.queryPrefix, passagePrefix: v.passagePrefix } as EmbedderSignature;
}

/** The fields in which `b` differs from `a` (empty: the vectors are comparable). */
export function signatureDifferences(a: EmbedderSignature, b: EmbedderSignature): (keyof EmbedderSignature)[] {
  return (['kind', 'model', 'dimension', 'pooling', 'queryPrefix', 'passagePrefix'] as const).filter((k) => a[k] !== b[k]);
}

/** One line naming an embedder, for logs and error messages: `local Xenova/bge-small-en-v1.5 (384 dims, cls pooling, query prefix "Represent…")`. */
export function describeSignature(s: EmbedderSignature): string {
  const prefix = (p: string) => (p === '' ? 'none' : JSON.stringify(p.length > 24 ? `${p.slice(0, 24)}…` : p));
  return `${s.kind} "${s.model}" (${s.dimension} dims, ${s.pooling} pooling, query prefix ${prefix(s.queryPrefix)}, passage prefix ${prefix(s.passagePrefix)})`;
}
