// Writes one episode's documents (idempotent, re-using unchanged vectors) and removes episodes.
import type { Client } from '@opensearch-project/opensearch';
import { signatureOf, type Embedder } from '../core/embedding/embedder.js';
import { indexEmbedder, mismatchMessage } from '../core/embedding/index-signature.js';
import type { Logger } from '../core/ground/logger.js';
import type { IndexAliases } from '../core/store/opensearch.js';
import { analysisOf } from '../core/store/languages.js';
import type { PassageDoc } from '../core/store/documents.js';
import type { ChangeEntry } from '../core/changes/log.js';
import { changeBetween, recordChanges, type ChangeLogOptions, type EpisodeState } from '../core/changes/record.js';
import { bulkWrite, type BulkOp } from './bulk.js';
import { episodeDocuments, sourceHash } from './documents.js';
import { createIndexError, storeCall } from './errors.js';
import { deleteWhere, scrollHits } from './scroll.js';
import type { EpisodeRecord } from '../core/library/checks.js';

/** What the indexer needs of an embedder. */
export type PassageEmbedder = Pick<Embedder, 'modelId' | 'dimension' | 'signature' | 'embedPassages'>;

/** Everything an indexing call works with, made once per process and passed in. */
export interface IndexContext {
  client: Client;
  embedder: PassageEmbedder;
  aliases: IndexAliases;
  log?: Logger | undefined;
  /** Texts handed to the embedder per call; each call is also a progress step. Default 64. */
  embedChunk?: number;
  /** The change feed's retention (CHANGES_RETENTION_DAYS, default 30) and clock. */
  changes?: ChangeLogOptions;
  /** LANGUAGES: which languages have an analyzer of their own (the ingest summary names the episodes that fall back). */
  languages?: readonly string[];
}

/** Appends changes to the channels' change feeds; a failure is the indexer's to classify (retried when transient). */
function recordEpisodeChanges(ctx: Pick<IndexContext, 'client' | 'aliases' | 'changes' | 'log'>, entries: ChangeEntry[]): Promise<unknown> {
  return storeCall('record changes', () => recordChanges(ctx.client, ctx.aliases.changes, entries, { log: ctx.log, ...ctx.changes }));
}

export interface EpisodeResult {
  id: string;
  /** `unchanged`: the stored episode has the same sourceHash, nothing was written. */
  outcome: 'indexed' | 'unchanged';
  passages: number;
  /** Passages whose vector was computed now. */
  embedded: number;
  /** Passages whose stored vector (same id, same text, same model) was kept. */
  reused: number;
  /** Stored passages of this episode that the new version no longer has. */
  removedPassages: number;
  /** The language it is spoken in (primary subtag: its own, else its channel's, else `en`). */
  language?: string;
  /** The analyzer its words are searched with: the language's own, or `standard` (the fallback). */
  analyzer?: string;
}

/** Model recorded in `_meta.model` of the index behind the passages alias. */
export async function passagesIndexModel(client: Client, aliases: IndexAliases): Promise<string | undefined> {
  const res = await storeCall('get passages mapping', () => client.indices.getMapping({ index: aliases.passages }));
  const entry = Object.values(res.body as Record<string, { mappings?: { _meta?: { model?: string } } }>)[0];
  return entry?.mappings?._meta?.model;
}

/**
 * Refuses to mix vectors of two embedders in one index: the index's recorded embedder (kind,
 * model, dimension, pooling, prefixes; see core/embedding/signature.ts) must be `embedder`'s, or,
 * given a bare model id, its model must be that one. A change needs `npm run reindex`.
 */
export async function assertIndexModel(client: Client, aliases: IndexAliases, embedder: string | PassageEmbedder): Promise<void> {
  if (typeof embedder === 'string') {
    const model = await passagesIndexModel(client, aliases);
    if (model === embedder) return;
    throw createIndexError('model_mismatch', {
      message: `${aliases.passages} holds vectors of model "${model ?? 'unknown'}" but the embedder is "${embedder}"; run \`npm run reindex\``,
    });
  }
  const live = await storeCall('get passages mapping', () => indexEmbedder(client, aliases.passages));
  const message = mismatchMessage(live, signatureOf(embedder));
  if (message) throw createIndexError('model_mismatch', { message });
}

/** Stored vectors of `ids` whose textHash is still the same, by id. */
async function reusableVectors(client: Client, index: string, wanted: ReadonlyMap<string, string>, dimension: number): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  const ids = [...wanted.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const res = await storeCall('mget passages', () => client.mget({ index, body: { ids: ids.slice(i, i + 500) }, _source_includes: ['textHash', 'embedding'] } as never));
    for (const doc of (res.body as { docs: { _id: string; found?: boolean; _source?: Partial<PassageDoc> }[] }).docs) {
      const src = doc._source;
      if (doc.found && src?.textHash === wanted.get(doc._id) && src?.embedding?.length === dimension) {
        found.set(doc._id, src.embedding);
      }
    }
  }
  return found;
}

/**
 * Indexes one episode. Unchanged (same sourceHash; the index's model is checked
 * first) → nothing is written. Otherwise passages keep their stored vector when id
 * and textHash match, the rest are embedded, every document is written with
 * `_bulk`, stale passages are deleted, and the catalog row is written last: it is
 * the commit marker, so a crash before it means the next run redoes the episode.
 */
export async function indexEpisode(
  ctx: IndexContext,
  record: EpisodeRecord,
  {
    hash = sourceHash(record),
    now = new Date(),
    force = false,
    onEmbedded,
  }: {
    hash?: string;
    now?: Date;
    /** Re-derive and rewrite even when the stored sourceHash is the same (vectors are still re-used). */
    force?: boolean;
    /** Called after each embedding call with the number of passages just embedded. */
    onEmbedded?: (count: number) => void;
  } = {},
): Promise<EpisodeResult> {
  const { client, embedder, aliases } = ctx;
  await assertIndexModel(client, aliases, embedder.modelId);
  const stored = await storeCall('get episode', () =>
    client.get({ index: aliases.episodes, id: record.id, _source_includes: ['sourceHash', 'status', 'archived'] } as never, { ignore: [404] }),
  );
  const storedDoc = (stored.body as { found?: boolean; _source?: { sourceHash?: string } & EpisodeState }).found
    ? (stored.body as { _source?: { sourceHash?: string } & EpisodeState })._source
    : undefined;
  const storedHash = storedDoc?.sourceHash;
  const { language, analyzer } = analysisOf(record.language ?? (await channelLanguage(ctx, record.channelId)), { ...(ctx.languages ? { languages: ctx.languages } : {}) });
  if (storedHash === hash && !force) {
    return { id: record.id, outcome: 'unchanged', passages: 0, embedded: 0, reused: 0, removedPassages: 0, language, analyzer };
  }

  const docs = episodeDocuments(record, { modelId: embedder.modelId, indexedAt: now.toISOString(), hash });
  const vectors = await reusableVectors(client, aliases.passages, new Map(docs.passages.map((p) => [p.id, p.textHash])), embedder.dimension);
  const reused = vectors.size;
  // Shortest first: each model batch is padded to its longest text, so similar lengths waste less work.
  const missing = docs.passages.filter((p) => !vectors.has(p.id)).sort((a, b) => a.text.length - b.text.length);
  const chunk = ctx.embedChunk ?? 64;
  for (let i = 0; i < missing.length; i += chunk) {
    const batch = missing.slice(i, i + chunk);
    const embedded = await ctx.embedder.embedPassages(batch.map((p) => p.text));
    if (embedded.length !== batch.length || embedded.some((v) => v.length !== embedder.dimension)) {
      throw createIndexError('embedding_failed', { message: `embedder returned ${embedded.length} vectors for ${batch.length} passages of ${record.id}` });
    }
    batch.forEach((p, j) => vectors.set(p.id, embedded[j]!));
    onEmbedded?.(batch.length);
  }

  const ops: BulkOp[] = docs.passages.map((p) => ({
    op: 'index',
    index: aliases.passages,
    id: p.id,
    doc: { ...p, embedding: vectors.get(p.id)! } satisfies PassageDoc,
  }));
  ops.push(docs.transcript ? { op: 'index', index: aliases.transcripts, id: record.id, doc: docs.transcript } : { op: 'delete', index: aliases.transcripts, id: record.id }, {
    op: 'index',
    index: aliases.chapters,
    id: record.id,
    doc: docs.chapters,
  });
  await bulkWrite(client, ops);

  // Refreshing costs ~0.2 s on a vector index, so only an update pays for it: on a first
  // load, leftovers of an interrupted attempt are older than the 1 s refresh interval.
  const removedPassages = await deleteWhere(
    client,
    aliases.passages,
    {
      bool: {
        filter: [{ term: { episodeId: record.id } }],
        must_not: [{ ids: { values: docs.passages.map((p) => p.id) } }],
      },
    },
    { refreshFirst: storedHash !== undefined },
  );
  // Recorded before the commit marker: a crash between the two announces a change that did not land
  // (a client re-reads and finds the stored version), never lands one unannounced. The same
  // sourceHash (a forced rewrite) is nothing a client could see.
  const change = storedHash === hash ? undefined : changeBetween(storedDoc, { status: record.status });
  if (change) await recordEpisodeChanges(ctx, [{ channelId: record.channelId, episodeId: record.id, ...change }]);
  await bulkWrite(client, [{ op: 'index', index: aliases.episodes, id: record.id, doc: docs.episode }]);
  ctx.log?.debug({ episodeId: record.id, passages: docs.passages.length, embedded: missing.length, reused, removedPassages }, 'episode indexed');
  return { id: record.id, outcome: 'indexed', passages: docs.passages.length, embedded: missing.length, reused, removedPassages, language, analyzer };
}

/**
 * Embeds, ahead of its index step, the passages of `record` the store holds no vector for, and returns an embedder
 * that answers those texts from what it embedded (any other text goes to `ctx.embedder`). The follower calls it
 * outside the channel folder's lock, so the index step it then runs under the lock embeds nothing it foresaw.
 */
export async function embedAhead(ctx: IndexContext, record: EpisodeRecord): Promise<PassageEmbedder> {
  const { embedder } = ctx;
  const docs = episodeDocuments(record, { modelId: embedder.modelId, indexedAt: new Date().toISOString() });
  const stored = await reusableVectors(ctx.client, ctx.aliases.passages, new Map(docs.passages.map((p) => [p.id, p.textHash])), embedder.dimension);
  const texts = [...new Set(docs.passages.filter((p) => !stored.has(p.id)).map((p) => p.text))];
  const ahead = new Map<string, number[]>();
  const chunk = ctx.embedChunk ?? 64;
  for (let i = 0; i < texts.length; i += chunk) {
    const batch = texts.slice(i, i + chunk);
    const vectors = await embedder.embedPassages(batch);
    if (vectors.length !== batch.length)
      throw createIndexError('embedding_failed', { message: `embedder returned ${vectors.length} vectors for ${batch.length} passages of ${record.id}` });
    batch.forEach((t, j) => ahead.set(t, vectors[j]!));
  }
  return {
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    ...(embedder.signature ? { signature: embedder.signature } : {}),
    async embedPassages(wanted) {
      const rest = wanted.filter((t) => !ahead.has(t));
      const more = rest.length > 0 ? await embedder.embedPassages(rest) : [];
      const fresh = new Map(rest.map((t, j) => [t, more[j]!]));
      return wanted.map((t) => ahead.get(t) ?? fresh.get(t)!);
    },
  };
}

/** The stored channel's `language` (the meta job writes channels before their episodes); undefined when it has none. */
async function channelLanguage(ctx: Pick<IndexContext, 'client' | 'aliases'>, channelId: string): Promise<string | undefined> {
  const res = await storeCall('get channel', () => ctx.client.get({ index: ctx.aliases.channels, id: channelId, _source_includes: ['language'] } as never, { ignore: [404] }));
  const body = res.body as { found?: boolean; _source?: { language?: string | null } };
  return (body.found && body._source?.language) || undefined;
}

/**
 * Removes every episode of `channelIds` whose id is not in `keepIds`, with all its
 * documents. The catalog rows go last, so a crash halfway leaves them to be found
 * by the next run. Returns the number of episodes removed.
 */
export async function removeEpisodesNotIn(
  ctx: Pick<IndexContext, 'client' | 'aliases' | 'log' | 'changes'>,
  { channelIds, keepIds }: { channelIds: readonly string[]; keepIds: readonly string[] },
): Promise<{ episodes: number; passages: number }> {
  if (channelIds.length === 0) return { episodes: 0, passages: 0 };
  const { client, aliases } = ctx;
  const leaving = (idField: string) => ({
    bool: {
      filter: [{ terms: { channelId: [...channelIds] } }],
      must_not: [{ terms: { [idField]: [...keepIds] } }],
    },
  });
  const run = (index: string, idField: string): Promise<number> => deleteWhere(client, index, leaving(idField));
  // Announced before anything goes (at-least-once, as in indexEpisode); archived rows were announced as deleted already.
  // Refreshed first: an episode written a moment ago must be found (and announced) by this sync, not the next one.
  await storeCall('refresh episodes', () => client.indices.refresh({ index: aliases.episodes }));
  const deletions: ChangeEntry[] = [];
  type Leaving = { id: string; channelId: string } & EpisodeState;
  for await (const page of scrollHits<Leaving>(client, { index: aliases.episodes, query: leaving('id'), source: ['id', 'channelId', 'status', 'archived'] })) {
    for (const { _source: e } of page) {
      const change = e && changeBetween(e, undefined);
      if (e && change) deletions.push({ channelId: e.channelId, episodeId: e.id, ...change });
    }
  }
  await recordEpisodeChanges(ctx, deletions);
  const passages = await run(aliases.passages, 'episodeId');
  await run(aliases.transcripts, 'episodeId');
  await run(aliases.chapters, 'episodeId');
  const episodes = await run(aliases.episodes, 'id');
  if (episodes > 0 || passages > 0) ctx.log?.info({ episodes, passages, channelIds }, 'removed episodes no longer in the library');
  return { episodes, passages };
}
