// The embedder of the indexer CLIs (ingest --direct, worker, reindex): the configured one (EMBEDDER=local|openai) behind the passage-vector cache.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../src/config.js';
import type { Embedder } from '../src/embedder.js';
import { createConfiguredEmbedder } from '../src/embedders/configured.js';
import { withEmbeddingCache } from '../src/embedding-cache.js';
import type { Logger } from '../src/logger.js';

/**
 * The configured embedder (the model in this process, or the remote service), answered from
 * `EMBED_CACHE_DIR` first when that is set (the same text under the same embedder is then
 * embedded once per machine). `module` replaces it with the embedder of that module (see
 * {@link embedderFromModule}), never cached.
 */
export async function createIndexerEmbedder(
  config: Pick<Config, 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedCacheDir' | 'embedding'>,
  { module, log }: { module?: string | undefined; log?: Logger } = {},
): Promise<Embedder> {
  if (module !== undefined) return embedderFromModule(module);
  const model = await createConfiguredEmbedder(config, { log });
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
