// The embedder of the indexer CLIs (ingest --direct, worker, reindex): the configured one (EMBEDDER=local|openai) behind
// the passage-vector cache; and its identity, for the commands that create indices without embedding anything.
import type { Config } from '../config/load.js';
import { signatureOf, type Embedder } from './embedder.js';
import { configuredSignature, createConfiguredEmbedder, localModelDir, type EmbedderConfig } from './configured.js';
import type { EmbedderSignature } from './signature.js';
import { withEmbeddingCache } from './embedding-cache.js';
import type { Logger } from '../ground/logger.js';

/**
 * The configured embedder (the model in this process, or the remote service), answered from
 * `EMBED_CACHE_DIR` first when that is set (the same text under the same embedder is then
 * embedded once per machine).
 */
export async function createIndexerEmbedder(
  config: Pick<Config, 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir' | 'embedding'> & Partial<Pick<Config, 'modelProvision'>>,
  { log }: { log?: Logger } = {},
): Promise<Embedder> {
  const model = await createConfiguredEmbedder(config, { log });
  if (!config.embedCacheDir) return model;
  log?.info({ dir: config.embedCacheDir }, 'passage vectors are cached (EMBED_CACHE_DIR)');
  return withEmbeddingCache(model, { dir: config.embedCacheDir });
}

/** A local model's vector length: `hidden_size` of its config.json, read as the embedder reads it, without loading the model. */
async function localModelDimension(config: EmbedderConfig, log: Logger | undefined): Promise<number> {
  const { modelId } = config;
  const modelDir = await localModelDir(config, { log });
  // Imported here: the remote embedder's commands never load Transformers.js.
  const { AutoConfig, env } = await import('@xenova/transformers');
  if (modelDir !== undefined) {
    env.allowRemoteModels = false;
    env.localModelPath = modelDir;
  }
  const dimension = Number(((await AutoConfig.from_pretrained(modelId)) as { hidden_size?: unknown }).hidden_size);
  if (!Number.isInteger(dimension) || dimension < 1) throw new Error(`${modelId}: config.json has no usable hidden_size`);
  return dimension;
}

/**
 * The signature the configured embedder writes into a passages index it creates (what ingest and the worker record),
 * without loading a model: the dimension is a local model's `hidden_size`, or the remote service's answer to the
 * embedder's one probe request.
 */
export async function configuredEmbedderSignature(config: EmbedderConfig, { log }: { log?: Logger | undefined } = {}): Promise<EmbedderSignature> {
  if (config.embedding.kind === 'openai') return signatureOf(await createConfiguredEmbedder(config, { log }));
  return { ...configuredSignature(config), dimension: await localModelDimension(config, log) };
}
