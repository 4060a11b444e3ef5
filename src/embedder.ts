// The one text embedder, shared by the API (queries) and the indexer (segments), so both sides use the same model.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { env, pipeline } from '@xenova/transformers';
import type { Logger } from './logger.js';

/** bge v1.5's retrieval instruction: prepended to queries, never to passages. */
export const QUERY_PREFIX = 'Represent this sentence for searching relevant passages: ';

export interface Embedder {
  readonly modelId: string;
  /** Length of every vector (384 for bge-small and MiniLM). */
  readonly dimension: number;
  /** Passages: no prefix. Batches internally by batchSize. Returns unit-length vectors. */
  embedPassages(texts: string[]): Promise<number[][]>;
  /** Queries get the bge prefix {@link QUERY_PREFIX} (bge models only). Returns a unit-length vector. */
  embedQuery(text: string): Promise<number[]>;
  /** Number of texts embedded since creation (lets tests prove `fast=true` never embeds). */
  readonly embeddedCount: number;
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
  log?: Logger;
}

/**
 * Loads the model once and returns an {@link Embedder}. Inputs longer than 512 tokens
 * are truncated by the tokenizer. Note that `modelDir` sets Transformers.js's global `env`.
 */
export async function createEmbedder({ modelId, modelDir, batchSize = 1, maxQueryTokens = 512, log }: EmbedderOptions): Promise<Embedder> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxQueryTokens) || maxQueryTokens < 1) throw new Error(`maxQueryTokens must be a positive integer, got ${maxQueryTokens}`);
  if (modelDir !== undefined) {
    env.allowRemoteModels = false;
    env.localModelPath = modelDir;
  }
  const started = Date.now();
  const extractor = await pipeline('feature-extraction', modelId, { quantized: true });
  // bge is trained to pool on [CLS] and to prefix queries; sentence-transformers models (MiniLM) mean-pool.
  const isBge = /bge/i.test(modelId);
  const pooling = isBge ? 'cls' : 'mean';
  const queryPrefix = isBge ? QUERY_PREFIX : '';
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

  return {
    modelId,
    dimension,
    get embeddedCount() {
      return embeddedCount;
    },
    async embedPassages(texts) {
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        // onnxruntime-node 1.14 runs the model synchronously on the main thread: let I/O in between calls.
        if (i > 0) await nextTurn();
        vectors.push(...(await run(texts.slice(i, i + batchSize))));
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
