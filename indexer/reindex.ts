// Reindex by alias swap: new versioned indices, copy (or re-embed), one atomic swap, then drop the old.
import type { Client } from '@opensearch-project/opensearch';
import type { IndexLayout } from '../core/config/load.js';
import { signatureOf } from '../core/embedding/embedder.js';
import { mappingSignature } from '../core/embedding/index-signature.js';
import { describeSignature, legacySignature, signatureDifferences, type EmbedderSignature } from '../core/embedding/signature.js';
import type { Logger } from '../core/ground/logger.js';
import type { PassageDoc } from '../core/store/documents.js';
import { INDEX_NAMES, createVersionedIndices, readIndexDefinition, resolveAliases, swapAliases, type IndexName } from '../core/store/opensearch.js';
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
   * The configured embedder as known without loading it (kind, model, pooling, prefixes; the
   * dimension when known). Default: the local defaults of `modelId`. Stored vectors are kept
   * when the index recorded this embedder, else passages are re-embedded.
   */
  target?: TargetEmbedder;
  /**
   * Called only when the stored vectors are of another embedder: returns the embedder
   * of `target` (loading a model is slow, so it is not loaded when not needed).
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

/** An embedder's signature before it is loaded: the dimension may still be unknown. */
export type TargetEmbedder = Omit<EmbedderSignature, 'dimension'> & { dimension?: number | undefined };

/** Whether vectors of `stored` serve an index for `target` (every field equal; the dimension when known). */
export function fitsTarget(stored: EmbedderSignature | undefined, target: TargetEmbedder): boolean {
  if (!stored) return false;
  return signatureDifferences(stored, { ...target, dimension: target.dimension ?? stored.dimension }).length === 0;
}

export interface ReindexSummary {
  from: Partial<Record<IndexName, string>>;
  to: Record<IndexName, string>;
  copied: Partial<Record<IndexName, number>>;
  /** True when passages were re-embedded because the model changed. */
  reembedded: boolean;
  previousModel: string | null;
  model: string;
  /** The embedders of the old and the new passages index, in one line each. */
  previousEmbedder: string | null;
  embedder: string;
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
 * their vectors when the index recorded the `target` embedder (kind, model, pooling,
 * prefixes), else their text is re-embedded and the new index gets the new embedder's
 * dimension and `_meta.embedder` —
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
  target = withoutDimension(legacySignature(modelId, 0)),
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
  let stored: EmbedderSignature | undefined;
  if (from.passages) {
    const res = await storeCall('get mapping', () => client.indices.getMapping({ index: from.passages! }));
    const entry = Object.values(res.body as Record<string, Parameters<typeof mappingSignature>[0] & { mappings?: { _meta?: { model?: string } } }>)[0];
    previousModel = entry?.mappings?._meta?.model ?? null;
    stored = mappingSignature(entry);
  }
  const reembed = from.passages !== undefined && !fitsTarget(stored, target);
  let embedder: PassageEmbedder | undefined;
  // The new passages index is made for this embedder: its dimension and `_meta.embedder`.
  let signature: EmbedderSignature | undefined = reembed ? undefined : stored;
  if (reembed) {
    const wanted = `${target.kind} "${target.model}"`;
    if (!loadEmbedder) throw new Error(`stored vectors are of ${stored ? describeSignature(stored) : `"${previousModel}"`}, not ${wanted}: an embedder is needed to re-embed`);
    embedder = await loadEmbedder();
    signature = signatureOf(embedder);
    if (embedder.modelId !== modelId || !fitsTarget(signature, target)) throw new Error(`embedder is ${describeSignature(signature)}, expected ${wanted}`);
  }
  log?.info({ prefix, from, previousModel, model: modelId, reembed, embedder: signature && describeSignature(signature) }, 'reindex started');

  await setWriteBlock(client, oldIndices, true);
  let to: Record<IndexName, string> | undefined;
  const copied: Partial<Record<IndexName, number>> = {};
  let swapped = false;
  try {
    to = await createVersionedIndices(client, { prefix, modelId, embedding: signature, ...(layout ? { layout } : {}) });
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
    previousEmbedder: stored ? describeSignature(stored) : null,
    embedder: describeSignature(signature ?? legacySignature(modelId, 384)),
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

function withoutDimension(s: EmbedderSignature): TargetEmbedder {
  const { dimension: _unknown, ...rest } = s;
  return rest;
}
