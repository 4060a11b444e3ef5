// The passages index's vector field and `_meta`: the dimension and the embedder come from the model, not the mapping file.
import { legacySignature, type EmbedderSignature } from '../embedding/signature.js';

/** What `mappings/passages.json` holds in place of the vector dimension. */
export const DIMENSION_PLACEHOLDER = '{{embedding.dimension}}';

/** The dimension of the default model (bge-small-en-v1.5), for a passages index made without an embedder at hand. */
export const DEFAULT_VECTOR_DIMENSION = 384;

interface Definition {
  mappings: { _meta?: Record<string, unknown>; properties: Record<string, unknown> };
}

/** `def` with the `knn_vector` field `embedding` (when it has one) at `dimension`; other definitions unchanged. */
export function withVectorDimension<T extends Definition>(def: T, dimension: number): T {
  const field = def.mappings.properties['embedding'] as { type?: string; dimension?: unknown } | undefined;
  if (field?.type !== 'knn_vector') return def;
  return { ...def, mappings: { ...def.mappings, properties: { ...def.mappings.properties, embedding: { ...field, dimension } } } };
}

/** `def` with its placeholder dimension filled with the default one: a definition read from disk is always valid. */
export function withDefaultDimension<T extends Definition>(def: T): T {
  const field = def.mappings.properties['embedding'] as { dimension?: unknown } | undefined;
  return field?.dimension === DIMENSION_PLACEHOLDER ? withVectorDimension(def, DEFAULT_VECTOR_DIMENSION) : def;
}

/**
 * The passages `_meta`: `model` (read by older code and tools) and `embedder`, the whole
 * signature the index's vectors were made with. `embedding` unset: the local defaults of `modelId`.
 */
export function passagesMeta(meta: Record<string, unknown> | undefined, modelId: string, embedding: EmbedderSignature | undefined): Record<string, unknown> {
  const signature = embedding ?? legacySignature(modelId, DEFAULT_VECTOR_DIMENSION);
  return { ...meta, model: signature.model, embedder: signature };
}
