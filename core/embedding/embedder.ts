// The one text embedder, shared by the API (queries) and the indexer (segments), so both sides use the same model.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { env, pipeline } from '@xenova/transformers';
import { BGE_QUERY_PREFIX, legacySignature, resolvePooling, resolvePrefixes, type EmbedderSignature, type PoolingSetting } from './signature.js';
import type { Logger } from '../ground/logger.js';

/** bge v1.5's retrieval instruction: prepended to queries, never to passages. */
export const QUERY_PREFIX = BGE_QUERY_PREFIX;

export interface Embedder {
  readonly modelId: string;
  /** Length of every vector (384 for bge-small and MiniLM). */
  readonly dimension: number;
  /**
   * Kind, model, dimension, pooling and prefixes: what a passages index records and is checked
   * against. Unset (test doubles): the local defaults of `modelId` (see {@link signatureOf}).
   */
  readonly signature?: EmbedderSignature;
  /** Passages get the passage prefix (none by default). Batches internally by batchSize. Returns unit-length vectors. */
  embedPassages(texts: string[]): Promise<number[][]>;
  /** Queries get the query prefix (the bge instruction {@link QUERY_PREFIX} for bge models by default). Returns a unit-length vector. */
  embedQuery(text: string): Promise<number[]>;
  /** Number of texts embedded since creation (lets tests prove `fast=true` never embeds). */
  readonly embeddedCount: number;
  /**
   * Set on an embedder guarded against another embedder's index (index-guard.ts): rejects once the index behind the
   * alias is not its own. A cache that hands out a stored vector asks it first, as every model call does.
   */
  confirmIndex?(): Promise<void>;
}

export interface EmbedderOptions {
  /** Model hub id, for example `Xenova/bge-small-en-v1.5`. */
  modelId: string;
  /**
   * Folder holding `<modelId>/{config.json,tokenizer.json,tokenizer_config.json,onnx/model_quantized.onnx}`.
   * When set, nothing is fetched from the model hub; when undefined, Transformers.js downloads and caches as usual.
   */
  modelDir?: string | undefined;
  /**
   * Texts per model call in {@link Embedder.embedPassages}; default 1. On a 2-core machine
   * larger batches were no faster, cost memory, and stall the event loop for the whole
   * batch. With the int8 model they also make each vector depend slightly on its batch
   * mates (activations share one quantization scale per call): cosine about 0.99 to the
   * vector of the same text embedded alone. With 1, a text's vector never depends on its neighbours.
   */
  batchSize?: number;
  /**
   * Longest query, in model tokens (prefix not counted), that {@link Embedder.embedQuery}
   * embeds; the rest is cut. Default 512 (the model's own limit). The model's time grows
   * with the input, and a question's meaning sits in its first words: the API caps it.
   */
  maxQueryTokens?: number;
  /** `auto` (default): `cls` for bge models, `mean` for others (sentence-transformers). */
  pooling?: PoolingSetting;
  /** Put before every query; unset: the bge instruction for bge models, else none. */
  queryPrefix?: string | undefined;
  /** Put before every passage; unset: none (e5 models want `passage: `). */
  passagePrefix?: string | undefined;
  log?: Logger;
}

/** The signature of `embedder`: its own, or the local defaults of its model id (test doubles declare none). */
export function signatureOf(embedder: Pick<Embedder, 'modelId' | 'dimension' | 'signature'>): EmbedderSignature {
  return embedder.signature ?? legacySignature(embedder.modelId, embedder.dimension);
}

/**
 * Loads the model once and returns an {@link Embedder}. Inputs longer than 512 tokens
 * are truncated by the tokenizer. Note that `modelDir` sets Transformers.js's global `env`.
 */
export async function createEmbedder({
  modelId,
  modelDir,
  batchSize = 1,
  maxQueryTokens = 512,
  pooling: poolingSetting = 'auto',
  queryPrefix: querySetting,
  passagePrefix: passageSetting,
  log,
}: EmbedderOptions): Promise<Embedder> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxQueryTokens) || maxQueryTokens < 1) throw new Error(`maxQueryTokens must be a positive integer, got ${maxQueryTokens}`);
  if (modelDir !== undefined) {
    env.allowRemoteModels = false;
    env.localModelPath = modelDir;
  }
  const started = Date.now();
  const extractor = await pipeline('feature-extraction', modelId, { quantized: true });
  // bge is trained to pool on [CLS] and to prefix queries; sentence-transformers models (MiniLM) mean-pool.
  const pooling = resolvePooling(modelId, poolingSetting);
  const { queryPrefix, passagePrefix } = resolvePrefixes(modelId, { queryPrefix: querySetting, passagePrefix: passageSetting });
  const dimension = Number((extractor.model.config as { hidden_size?: unknown }).hidden_size);
  if (!Number.isInteger(dimension) || dimension < 1) throw new Error(`${modelId}: config.json has no usable hidden_size`);
  log?.info({ modelId, modelDir, dimension, pooling, ms: Date.now() - started }, 'embedding model loaded');

  /**
   * The query cut to `maxQueryTokens` tokens: decoded back from its first tokens, so a
   * query within the cap is passed on untouched (its vector does not change).
   */
  function capQuery(text: string): string {
    const ids = extractor.tokenizer.encode(text, null, { add_special_tokens: false });
    if (ids.length <= maxQueryTokens) return text;
    return extractor.tokenizer.decode(ids.slice(0, maxQueryTokens), { skip_special_tokens: true });
  }

  let embeddedCount = 0;
  async function run(texts: string[]): Promise<number[][]> {
    const output = await extractor(texts, { pooling, normalize: true });
    embeddedCount += texts.length;
    return toRows(output.data as Float32Array, texts.length, dimension);
  }

  const signature: EmbedderSignature = { kind: 'local', model: modelId, dimension, pooling, queryPrefix, passagePrefix };
  return {
    modelId,
    dimension,
    signature,
    get embeddedCount() {
      return embeddedCount;
    },
    async embedPassages(texts) {
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        // onnxruntime-node 1.14 runs the model synchronously on the main thread: let I/O in between calls.
        if (i > 0) await nextTurn();
        vectors.push(...(await run(texts.slice(i, i + batchSize).map((t) => passagePrefix + t))));
      }
      return vectors;
    },
    async embedQuery(text) {
      const [vector] = await run([queryPrefix + capQuery(text)]);
      return vector!;
    },
  };
}

function toRows(data: Float32Array, rows: number, dimension: number): number[][] {
  if (data.length !== rows * dimension) throw new Error(`expected ${rows}x${dimension} floats, got ${data.length}`);
  return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * dimension, (r + 1) * dimension)));
}
