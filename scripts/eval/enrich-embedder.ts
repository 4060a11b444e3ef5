// The configured embedder as enrichment's `EmbedTexts` for the eval, behind the machine's passage-vector cache: enrichment
// embeds the speech passages loading embeds, so each text is embedded once per machine whichever comes first.
import { createConfiguredEmbedder } from '../../core/embedding/configured.js';
import { withEmbeddingCache } from '../../core/embedding/embedding-cache.js';
import type { EmbedTexts } from '../../pipeline/enrich/types.js';
import { useProvisionedModel } from '../ops/provision/model.js';
import { evalConfig } from './harness.js';

/** `embedPassages` of the configured model, cached in `EMBED_CACHE_DIR` (the loader's cache); `count()` says how many texts the model itself embedded. */
export async function openEnrichEmbedder(): Promise<{ embed: EmbedTexts; count: () => number; modelId: string }> {
  await useProvisionedModel('eval');
  const config = evalConfig();
  const model = await createConfiguredEmbedder(config);
  const embedder = config.embedCacheDir ? await withEmbeddingCache(model, { dir: config.embedCacheDir }) : model;
  return { embed: (texts) => embedder.embedPassages(texts), count: () => model.embeddedCount, modelId: model.modelId };
}
