// The remote embedder: an OpenAI-compatible `POST /v1/embeddings` (Ollama, TEI, vLLM, Infinity, hosted APIs, the local service).
import pRetry, { AbortError } from 'p-retry';
import { EmbedderUnavailableError, type EmbedderPool } from './embedder-pool.js';
import type { Logger } from '../ground/logger.js';
import { EmbeddingsError } from './errors.js';
import { resolvePrefixes, type EmbedderSignature } from './signature.js';
import { NoAnswerError, isTransientStatus, openAiEndpoint, postOpenAi, providerMessage, type OpenAiAnswer } from '../ground/openai-protocol.js';

/** `v` scaled to unit length (services differ: some normalise, some do not); a zero vector stays as it is. */
export function normalise(v: readonly number[]): number[] {
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : [...v];
}

/**
 * The vectors of an OpenAI-shaped answer, in input order: `{data: [{embedding, index}]}` with
 * one entry per input, every vector of one length. Throws `embeddings_bad_answer` otherwise.
 */
export function readEmbeddings(body: unknown, inputs: number): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== inputs)
    throw new EmbeddingsError('embeddings_bad_answer', `expected ${inputs} vectors, got ${Array.isArray(data) ? data.length : 'none'}`);
  const out: number[][] = new Array(inputs);
  data.forEach((entry: unknown, i) => {
    const { embedding, index = i } = (entry ?? {}) as { embedding?: unknown; index?: unknown };
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= inputs || out[index as number]) {
      throw new EmbeddingsError('embeddings_bad_answer', `entry ${i} has index ${String(index)}`);
    }
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsError('embeddings_bad_answer', `entry ${i} has no vector of numbers (base64 answers are not read)`);
    }
    out[index as number] = embedding as number[];
  });
  const dims = new Set(out.map((v) => v.length));
  if (dims.size !== 1) throw new EmbeddingsError('embeddings_bad_answer', `vectors of different lengths: ${[...dims].join(', ')}`);
  return out;
}

export interface RemoteEmbedderOptions {
  /** Base URL of the service (`EMBEDDINGS_URL`); `/v1/embeddings` is appended. */
  url: string;
  /** Model named in each request (`EMBEDDINGS_MODEL`), and the model id indices record. */
  model: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string | undefined;
  /** Longest one request for passages may take; it is then retried. Default 30 s. */
  timeoutMs?: number;
  /** Longest a query vector may take (one attempt: a late vector only makes the search later). Default 500 ms. */
  queryTimeoutMs?: number;
  /** Retries of a passages request after a transient failure (unreachable, timeout, 429, 5xx), with exponential backoff. Default 4. */
  retries?: number;
  /** First backoff; it doubles per retry, up to 10 s. Default 500 ms. */
  minBackoffMs?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
  /** Put before every query; unset: the bge instruction for bge models, else none (as the local embedder). */
  queryPrefix?: string | undefined;
  /** Put before every passage; unset: none. */
  passagePrefix?: string | undefined;
  log?: Logger | undefined;
}

/** A remote embedder: an {@link Embedder} with the pool's counters and `close`, so the API uses it where it would use a pool. */
export type RemoteEmbedder = EmbedderPool;

/**
 * Connects to an OpenAI-compatible embeddings service: one probe request learns the vector
 * dimension (and fails fast when the service is down or answers nonsense), then every vector
 * is normalised to unit length. Passages go in batches, each retried with backoff on transient
 * failures; a query is one attempt within `queryTimeoutMs`, and its failure is an
 * {@link EmbedderUnavailableError} so a search goes on keyword-only.
 */
export async function createRemoteEmbedder({
  url,
  model,
  apiKey,
  timeoutMs = 30_000,
  queryTimeoutMs = 500,
  retries = 4,
  minBackoffMs = 500,
  batchSize = 32,
  queryPrefix: querySetting,
  passagePrefix: passageSetting,
  log,
}: RemoteEmbedderOptions): Promise<RemoteEmbedder> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  const endpoint = openAiEndpoint(url, 'embeddings');
  const { queryPrefix, passagePrefix } = resolvePrefixes(model, { queryPrefix: querySetting, passagePrefix: passageSetting });
  let running = 0;
  let embeddedCount = 0;
  let closed = false;

  /** One request: its failures as {@link EmbeddingsError}s with a code. */
  async function request(input: string[], ms: number): Promise<number[][]> {
    let answer: OpenAiAnswer;
    try {
      answer = await postOpenAi(endpoint, { body: { model, input }, apiKey, timeoutMs: ms });
    } catch (error) {
      if (error instanceof NoAnswerError && error.kind === 'timeout') throw new EmbeddingsError('embeddings_timeout', `${ms} ms`);
      throw new EmbeddingsError('embeddings_unreachable', (error as Error).message);
    }
    const { status, text } = answer;
    const said = () => `${status} ${providerMessage(text, 200) ?? ''}`.trim();
    if (isTransientStatus(status)) throw new EmbeddingsError('embeddings_busy', said());
    if (status < 200 || status > 299) throw new EmbeddingsError('embeddings_rejected', said());
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingsError('embeddings_bad_answer', 'the body is not JSON');
    }
    return readEmbeddings(body, input.length).map(normalise);
  }

  /** A request retried with backoff while its failure is transient. */
  const withRetries = (input: string[]): Promise<number[][]> =>
    pRetry(
      async () => {
        try {
          return await request(input, timeoutMs);
        } catch (error) {
          throw error instanceof EmbeddingsError && !error.transient ? new AbortError(error) : error;
        }
      },
      {
        retries,
        minTimeout: minBackoffMs,
        maxTimeout: 10_000,
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => log?.warn({ err: error.message, attempt: attemptNumber, retriesLeft }, 'embeddings request failed'),
      },
    ).catch((error: unknown) => {
      // p-retry rethrows the cause of an AbortError; keep our coded error either way.
      throw error instanceof EmbeddingsError ? error : new EmbeddingsError('embeddings_unreachable', (error as Error).message);
    });

  const started = Date.now();
  const [probe] = await withRetries(['dimension probe']);
  const dimension = probe!.length;
  log?.info({ endpoint: new URL(endpoint).origin, model, dimension, ms: Date.now() - started }, 'embeddings service ready');

  const checked = (vectors: number[][]): number[][] => {
    const wrong = vectors.find((v) => v.length !== dimension);
    if (wrong) throw new EmbeddingsError('embeddings_dimension_changed', `${wrong.length} instead of ${dimension}`);
    return vectors;
  };
  const track = async <T>(work: () => Promise<T>): Promise<T> => {
    if (closed) throw new EmbedderUnavailableError('failed', 'the embedder is closed');
    running++;
    try {
      return await work();
    } finally {
      running--;
    }
  };

  const signature: EmbedderSignature = { kind: 'openai', model, dimension, pooling: 'server', queryPrefix, passagePrefix };
  return {
    modelId: model,
    dimension,
    signature,
    get embeddedCount() {
      return embeddedCount;
    },
    queued: 0,
    get running() {
      return running;
    },
    embedPassages: (texts) =>
      track(async () => {
        const vectors: number[][] = [];
        for (let i = 0; i < texts.length; i += batchSize) {
          const batch = texts.slice(i, i + batchSize).map((t) => passagePrefix + t);
          vectors.push(...checked(await withRetries(batch)));
          embeddedCount += batch.length;
        }
        return vectors;
      }),
    embedQuery: (text) =>
      track(async () => {
        try {
          const [vector] = checked(await request([queryPrefix + text], queryTimeoutMs));
          embeddedCount++;
          return vector!;
        } catch (error) {
          // The search answers keyword-only and says why, as with a busy local pool.
          const reason = error instanceof EmbeddingsError && error.code === 'embeddings_timeout' ? 'busy' : 'failed';
          throw new EmbedderUnavailableError(reason, (error as Error).message);
        }
      }),
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
}
