// The indices of a prefix, created by a command that embeds nothing (queued ingest, the keys and webhooks CLIs) as ingest would create them.
import type { Config } from '../core/config/load.js';
import { configuredModelId, type EmbedderConfig } from '../core/embedding/configured.js';
import { configuredEmbedderSignature } from '../core/embedding/indexer-embedder.js';
import type { Logger } from '../core/ground/logger.js';
import { ensureIndices, resolveAliases, type Client, type IndexAliases } from '../core/store/opensearch.js';

/**
 * {@link ensureIndices} for a command that writes no vectors (queued ingest, the keys and webhooks CLIs): a passages
 * index it has to create records the configured embedder as ingest would, so the API and the worker accept it. The
 * embedder is asked for its dimension only then.
 */
export async function ensureConfiguredIndices(
  client: Client,
  config: EmbedderConfig & Pick<Config, 'indexPrefix' | 'indexLayout' | 'languages'>,
  { log }: { log?: Logger | undefined } = {},
): Promise<IndexAliases> {
  const existing = await resolveAliases(client, config.indexPrefix);
  const embedding = existing.passages ? undefined : await configuredEmbedderSignature(config, { log });
  return ensureIndices(client, { prefix: config.indexPrefix, modelId: configuredModelId(config), embedding, layout: config.indexLayout, languages: config.languages });
}
