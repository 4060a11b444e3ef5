// The embedding model: which embedder, where it loads from, batching, the vector cache, query embedding.
import { ConfigError, choice, custom, integer, optionalText, toggle } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { readServiceUrl } from '../readers.js';
import { MODEL_ID } from './shared.js';
import { MODELS, provisionableModel, provisionedModelDir, type ModelName } from '../../embedding/provisioned-model.js';

const MODEL_DIR = optionalText('MODEL_DIR', 'local model folder holding `<MODEL_ID>/…`; nothing is fetched from the model hub', {
  shown: 'the provisioned model, `.cache/models` of the project (fetched once with Maven, checked by sha256)',
  accepts: 'folder path',
});
const MODEL_HUB = toggle('MODEL_HUB', false, '`on` with `MODEL_DIR` unset: Transformers.js fetches `MODEL_ID` from the model hub at run time and caches it (not pinned by sha256)');
const EMBEDDER = choice(
  'EMBEDDER',
  'local',
  ['local', 'openai'],
  '`local`: Transformers.js in this process (`MODEL_ID`/`MODEL_DIR`); `openai`: an OpenAI-compatible `POST /v1/embeddings` (`EMBEDDINGS_URL`)',
);

export const MODEL = {
  // The model
  modelId: MODEL_ID,
  /** The folder Transformers.js loads `modelId` from; undefined: the model hub (`MODEL_HUB=on`). */
  modelDir: computed([MODEL_DIR, MODEL_HUB], (dir, hub) => dir ?? (hub ? undefined : provisionedModelDir())),
  /** The model to provision into `modelDir` before loading it, when it is the project's own folder (neither `MODEL_DIR` nor `MODEL_HUB` given). */
  modelProvision: computed([MODEL_DIR, MODEL_HUB, MODEL_ID, EMBEDDER], (dir, hub, id, kind): ModelName | undefined => {
    if (dir !== undefined || hub || kind !== 'local') return undefined;
    const name = provisionableModel(id);
    if (name) return name;
    const known = Object.values(MODELS).map((m) => m.hubId);
    throw new ConfigError('MODEL_ID', `"${id}" is not a model this project provisions (${known.join(', ')}): set MODEL_DIR to a folder holding ${id}/, or MODEL_HUB=on`);
  }),
  /** Which embedder makes vectors, and how. */
  embedding: {
    kind: EMBEDDER,
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
