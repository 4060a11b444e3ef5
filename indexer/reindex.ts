// Reindex by alias swap: new versioned indices, copy (or re-embed), one atomic swap, then drop the old.
import type { Client } from '@opensearch-project/opensearch';
import type { IndexLayout } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import type { PassageDoc } from '../src/store/documents.js';
import { INDEX_NAMES, createVersionedIndices, readIndexDefinition, resolveAliases, swapAliases, type IndexName } from '../src/store/opensearch.js';
import { bulkWrite, type BulkOp } from './bulk.js';
import { textHash } from './documents.js';
import { storeCall } from './errors.js';
import type { PassageEmbedder } from './load-episode.js';
import { scrollHits } from './scroll.js';

export interface ReindexOptions {
  client: Client;
  prefix: string;
  /** Model the new passages index is for (`_meta.model`); the configured model. */
  modelId: string;
  /**
   * Called only when the stored vectors are of another model: returns the embedder
   * of `modelId` (loading a model is slow, so it is not loaded when not needed).
   */
  embedder?: () => Promise<PassageEmbedder>;
  log?: Logger | undefined;
  /** Wait between the swap and deleting the old indices, so searches already running on them finish. Default 2 s. */
  graceMs?: number;
  /** Documents per scroll page and bulk request. Default 500. */
  pageSize?: number;
  onProgress?: (p: { index: IndexName; copied: number; total: number }) => void;
  /** Shards and replicas of the new indices (INDEX_SHARDS, INDEX_REPLICAS); a reindex is how existing indices get new ones. */
  layout?: IndexLayout | undefined;
}

export interface ReindexSummary {
  from: Partial<Record<IndexName, string>>;
  to: Record<IndexName, string>;
  copied: Partial<Record<IndexName, number>>;
  /** True when passages were re-embedded because the model changed. */
  reembedded: boolean;
  previousModel: string | null;
  model: string;
  deleted: string[];
  durationMs: number;
}

async function count(client: Client, index: string): Promise<number> {
  const res = await storeCall(`count ${index}`, () => client.count({ index }));
  return (res.body as { count: number }).count;
}

async function setWriteBlock(client: Client, indices: string[], blocked: boolean): Promise<void> {
  if (indices.length === 0) return;
  await storeCall('write block', () => client.indices.putSettings({ index: indices.join(','), body: { 'index.blocks.write': blocked } } as never));
}

/**
 * Rebuilds every index of `prefix` from `mappings/`: the current indices are made
 * read-only (writers get a retryable block error instead of writing into an index
 * about to be dropped), new versioned indices are filled from them — passages keep
 * their vectors when `_meta.model` equals `modelId`, else their text is re-embedded —
 * counts are checked, then all aliases move in one `_aliases` call. Searches keep
 * reading the old indices until that call and the new ones after it, so they never
 * see an error or an empty index. Old indices are deleted only after the swap (and
 * a grace period); on any failure before the swap, the new indices are deleted and
 * the old ones made writable again.
 */
export async function reindex({
  client,
  prefix,
  modelId,
  embedder: loadEmbedder,
  log,
  graceMs = 2000,
  pageSize = 500,
  onProgress,
  layout,
}: ReindexOptions): Promise<ReindexSummary> {
  const started = Date.now();
  const from = await resolveAliases(client, prefix);
  const oldIndices = Object.values(from);
  let previousModel: string | null = null;
  if (from.passages) {
    const res = await storeCall('get mapping', () => client.indices.getMapping({ index: from.passages! }));
    const entry = Object.values(res.body as Record<string, { mappings?: { _meta?: { model?: string } } }>)[0];
    previousModel = entry?.mappings?._meta?.model ?? null;
  }
  const reembed = from.passages !== undefined && previousModel !== modelId;
  let embedder: PassageEmbedder | undefined;
  if (reembed) {
    if (!loadEmbedder) throw new Error(`stored vectors are of "${previousModel}", not "${modelId}": an embedder is needed to re-embed`);
    embedder = await loadEmbedder();
    if (embedder.modelId !== modelId) throw new Error(`embedder is "${embedder.modelId}", expected "${modelId}"`);
  }
  log?.info({ prefix, from, previousModel, model: modelId, reembed }, 'reindex started');

  await setWriteBlock(client, oldIndices, true);
  let to: Record<IndexName, string> | undefined;
  const copied: Partial<Record<IndexName, number>> = {};
  let swapped = false;
  try {
    to = await createVersionedIndices(client, { prefix, modelId, ...(layout ? { layout } : {}) });
    await storeCall('pause refresh', () => client.indices.putSettings({ index: Object.values(to!).join(','), body: { 'index.refresh_interval': '-1' } } as never));
    for (const name of INDEX_NAMES) {
      const source = from[name];
      if (!source) continue;
      const total = await count(client, source);
      let done = 0;
      for await (const page of scrollHits<Record<string, unknown>>(client, { index: source, size: pageSize })) {
        let docs: { id: string; doc: object }[] = page.map((h) => ({ id: h._id, doc: h._source ?? {} }));
        if (name === 'passages' && embedder) docs = await reembedPage(embedder, docs as { id: string; doc: PassageDoc }[]);
        await bulkWrite(
          client,
          docs.map((d): BulkOp => ({ op: 'index', index: to![name], id: d.id, doc: d.doc })),
        );
        done += page.length;
        onProgress?.({ index: name, copied: done, total });
      }
      copied[name] = done;
    }
    // Back to the refresh interval of each mapping (null = the engine default), then make everything visible.
    for (const name of INDEX_NAMES) {
      const def = await readIndexDefinition(name);
      const interval = (def.settings['refresh_interval'] ?? def.settings['index.refresh_interval'] ?? null) as string | null;
      await storeCall('restore refresh', () => client.indices.putSettings({ index: to![name], body: { 'index.refresh_interval': interval } } as never));
    }
    await storeCall('refresh', () => client.indices.refresh({ index: Object.values(to!).join(',') }));
    for (const name of INDEX_NAMES) {
      const source = from[name];
      if (!source) continue;
      const [before, after] = [await count(client, source), await count(client, to[name])];
      if (before !== after) throw new Error(`${name}: ${before} documents in ${source} but ${after} in ${to[name]}; aliases not moved`);
    }
    await swapAliases(client, prefix, to);
    swapped = true;
  } catch (err) {
    if (!swapped) {
      log?.error({ err: (err as Error).message }, 'reindex failed before the swap; dropping the new indices');
      if (to) await client.indices.delete({ index: Object.values(to).join(',') }, { ignore: [404] }).catch(() => undefined);
      await setWriteBlock(client, oldIndices, false).catch(() => undefined);
    }
    throw err;
  }
  log?.info({ to }, 'aliases swapped');
  // Searches that resolved the alias just before the swap may still be running on the old indices.
  await new Promise((r) => setTimeout(r, graceMs));
  const retired = oldIndices.filter((i) => !Object.values(to!).includes(i));
  if (retired.length > 0) await storeCall('delete old indices', () => client.indices.delete({ index: retired.join(',') }));
  const summary: ReindexSummary = {
    from,
    to,
    copied,
    reembedded: reembed,
    previousModel,
    model: modelId,
    deleted: retired,
    durationMs: Date.now() - started,
  };
  log?.info({ ...summary }, 'reindex finished');
  return summary;
}

/** New vectors (and textHash) for a page of passages, from their stored text. */
async function reembedPage(embedder: PassageEmbedder, docs: { id: string; doc: PassageDoc }[]): Promise<{ id: string; doc: PassageDoc }[]> {
  const vectors = await embedder.embedPassages(docs.map((d) => d.doc.text));
  return docs.map((d, i) => ({
    id: d.id,
    doc: { ...d.doc, embedding: vectors[i]!, textHash: textHash(embedder.modelId, d.doc.text) },
  }));
}
