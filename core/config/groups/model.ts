// The embedding model: which embedder, where it loads from, batching, the vector cache, query embedding.
import { choice, custom, integer, optionalText } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { readServiceUrl } from '../readers.js';
import { MODEL_ID } from './shared.js';

export const MODEL = {
  // The model
  modelId: MODEL_ID,
  modelDir: optionalText('MODEL_DIR', 'local model folder holding `<MODEL_ID>/…`; remote loading is off when set', { shown: 'unset (the hub)', accepts: 'folder path' }),
  /** Which embedder makes vectors, and how. */
  embedding: {
    kind: choice(
      'EMBEDDER',
      'local',
      ['local', 'openai'],
      '`local`: Transformers.js in this process (`MODEL_ID`/`MODEL_DIR`); `openai`: an OpenAI-compatible `POST /v1/embeddings` (`EMBEDDINGS_URL`)',
    ),
    pooling: choice('MODEL_POOLING', 'auto', ['auto', 'cls', 'mean'], 'pooling of a local model: `auto` is `cls` for bge models, `mean` for others (sentence-transformers)'),
    queryPrefix: optionalText('MODEL_QUERY_PREFIX', 'text put before every query embedded', { shown: 'the bge instruction for bge models, else none' }),
    passagePrefix: optionalText('MODEL_PASSAGE_PREFIX', 'text put before every passage embedded (e5 models want `passage: `)', { shown: 'none' }),
    remote: {
      url: custom(
        'EMBEDDINGS_URL',
        { shown: 'unset', accepts: 'http or https URL without credentials' },
        'OpenAI-compatible embeddings service (`POST <url>/v1/embeddings`) when `EMBEDDER=openai`',
        readServiceUrl,
      ),
      model: computed(
        [optionalText('EMBEDDINGS_MODEL', 'model named in each embeddings request when `EMBEDDER=openai`', { shown: '`$MODEL_ID`' }), MODEL_ID],
        (model, modelId) => model ?? modelId,
      ),
      apiKey: optionalText('EMBEDDINGS_API_KEY', 'Bearer key of the embeddings service'),
      timeoutMs: integer('EMBEDDINGS_TIMEOUT_MS', 30_000, 100, 600_000, 'longest one embeddings request may take (retried with backoff when transient)'),
    },
  },
  embedBatchSize: integer(
    'EMBED_BATCH_SIZE',
    1,
    1,
    512,
    'texts per model call when indexing (the int8 model quantizes per batch: 1 keeps a vector independent of its batch mates)',
  ),
  embedCacheDir: optionalText('EMBED_CACHE_DIR', 'persistent passage-vector cache, keyed by model and text', { accepts: 'folder path' }),
  /** The API's query embedding: worker processes, queue bound, input cap (see core/embedding/embedder-pool.ts). */
  queryEmbedding: {
    workers: integer('EMBED_QUERY_WORKERS', 1, 1, 64, "worker processes embedding the API's queries (each holds the model, ~150 MB)"),
    maxQueue: integer('EMBED_QUERY_QUEUE', 8, 0, 10_000, 'queries that may wait for a worker; past it a search runs keyword-only (`degraded: "embedder_busy"`)'),
    maxTokens: integer('EMBED_QUERY_MAX_TOKENS', 128, 8, 512, 'longest query embedded, in model tokens; the rest is cut'),
    timeoutMs: integer('EMBED_QUERY_TIMEOUT_MS', 500, 10, 60_000, 'longest a search waits for its query vector; past it, keyword-only'),
    nice: integer('EMBED_QUERY_NICE', 10, 0, 19, "OS nice value of the query-embedding workers; 0 runs them at the API's priority"),
  },
} satisfies Schema;
