// The embedder of the indexer CLIs (ingest --direct, worker): the model behind the passage-vector cache.
import type { Config } from '../src/config.js';
import { createEmbedder, createHashEmbedder, type Embedder } from '../src/embedder.js';
import { withEmbeddingCache } from '../src/embedding-cache.js';
import type { Logger } from '../src/logger.js';

/**
 * The configured model, answered from `EMBED_CACHE_DIR` first when that is set (the same
 * text under the same model is then embedded once per machine). `hash` selects the
 * test-only hash embedder, never cached.
 */
export async function createIndexerEmbedder(
  config: Pick<Config, 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir'>,
  { hash = false, log }: { hash?: boolean; log?: Logger } = {},
): Promise<Embedder> {
  if (hash) return createHashEmbedder();
  const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });
  if (!config.embedCacheDir) return model;
  log?.info({ dir: config.embedCacheDir }, 'passage vectors are cached (EMBED_CACHE_DIR)');
  return withEmbeddingCache(model, { dir: config.embedCacheDir });
}
