// The embedder of the indexer CLIs (ingest --direct, worker): the model behind the passage-vector cache.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../src/config.js';
import { createEmbedder, type Embedder } from '../src/embedder.js';
import { withEmbeddingCache } from '../src/embedding-cache.js';
import type { Logger } from '../src/logger.js';

/**
 * The configured model, answered from `EMBED_CACHE_DIR` first when that is set (the same
 * text under the same model is then embedded once per machine). `module` replaces the
 * model with the embedder of that module (see {@link embedderFromModule}), never cached.
 */
export async function createIndexerEmbedder(
  config: Pick<Config, 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir'>,
  { module, log }: { module?: string | undefined; log?: Logger } = {},
): Promise<Embedder> {
  if (module !== undefined) return embedderFromModule(module);
  const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });
  if (!config.embedCacheDir) return model;
  log?.info({ dir: config.embedCacheDir }, 'passage vectors are cached (EMBED_CACHE_DIR)');
  return withEmbeddingCache(model, { dir: config.embedCacheDir });
}

/**
 * The embedder a module's `createEmbedder()` returns: how the tests run the CLIs with a
 * deterministic embedder (test/support/hash-embedder.ts) without the product shipping one.
 */
export async function embedderFromModule(file: string): Promise<Embedder> {
  const mod = (await import(pathToFileURL(resolve(file)).href)) as { createEmbedder?: () => Embedder | Promise<Embedder> };
  if (typeof mod.createEmbedder !== 'function') throw new Error(`${file} exports no createEmbedder()`);
  return mod.createEmbedder();
}
