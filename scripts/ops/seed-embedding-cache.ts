// `npx tsx scripts/ops/seed-embedding-cache.ts [--prefix P]`: copies the vectors stored in a
// passages index into the persistent embedding cache (EMBED_CACHE_DIR), e.g. before moving
// test runs to a fresh clone or machine, so they need not embed the same texts again.
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { withEmbeddingCache } from '../../core/embedding/embedding-cache.js';
import { createLogger } from '../../core/ground/logger.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';
import { passagesIndexModel } from '../../indexer/load-episode.js';
import { scrollHits } from '../../indexer/scroll.js';

const opts = new Command().option('--prefix <prefix>', 'index prefix to read (default: INDEX_PREFIX)').parse().opts<{ prefix?: string }>();
const config = loadConfig(process.env);
const log = createLogger({ name: 'seed-embedding-cache', fd: 2 });

async function main(): Promise<void> {
  if (!config.embedCacheDir) throw new Error('EMBED_CACHE_DIR is not set: nothing to seed');
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const aliases = indexAliases(opts.prefix ?? config.indexPrefix);
  const model = await passagesIndexModel(client, aliases);
  if (model !== config.modelId) throw new Error(`${aliases.passages} holds vectors of ${model}, not ${config.modelId}`);
  let page = new Map<string, number[]>();
  const stored: Embedder = {
    modelId: config.modelId,
    dimension: 384,
    embeddedCount: 0,
    embedQuery: () => Promise.reject(new Error('not a model')),
    embedPassages: (texts) => Promise.resolve(texts.map((t) => page.get(t)!)),
  };
  const cache = await withEmbeddingCache(stored, { dir: config.embedCacheDir });
  let seen = 0;
  for await (const hits of scrollHits<{ text: string; embedding: number[] }>(client, { index: aliases.passages, source: ['text', 'embedding'] })) {
    page = new Map(hits.filter((h) => h._source?.embedding?.length === 384).map((h) => [h._source!.text, h._source!.embedding]));
    await cache.embedPassages([...page.keys()]);
    seen += page.size;
    log.info({ seen, alreadyCached: cache.cacheHits }, 'progress');
  }
  log.info({ seen, alreadyCached: cache.cacheHits, dir: config.embedCacheDir }, 'done');
  await client.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`seed-embedding-cache: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
