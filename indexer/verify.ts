// "Every episode indexed exactly once": the stored state of a prefix compared with the records it was loaded from.
import type { EpisodeDoc } from '../core/store/documents.js';
import type { Client, IndexAliases } from '../core/store/opensearch.js';
import { episodeDocuments, sourceHash } from './documents.js';
import type { EpisodeRecord } from '../core/library/checks.js';

export interface IndexCheck {
  /** Catalog rows found. */
  episodes: number;
  /** Passage documents found. */
  passages: number;
  /** One line per disagreement; empty when the store holds exactly the records. */
  problems: string[];
}

/**
 * Checks that the indices behind `aliases` hold exactly `records`: one catalog row per
 * record carrying the hash of that record, exactly the passages its documents derive to,
 * and nothing else (no row or passage of an episode not in `records`). Passage ids are
 * document ids, so a count that matches means no passage was written twice.
 */
export async function verifyIndexed(client: Client, aliases: IndexAliases, records: readonly EpisodeRecord[]): Promise<IndexCheck> {
  await client.indices.refresh({ index: [aliases.episodes, aliases.passages] });
  const problems: string[] = [];
  const expected = new Map(records.map((r) => [r.id, r]));

  const count = async (index: string) => Number((await client.count({ index })).body.count);
  const [episodes, passages] = await Promise.all([count(aliases.episodes), count(aliases.passages)]);
  if (episodes !== records.length) problems.push(`${episodes} catalog rows for ${records.length} records`);

  const agg = await client.search({
    index: aliases.passages,
    body: { size: 0, aggs: { per: { terms: { field: 'episodeId', size: records.length + 100 } } } },
  } as never);
  const buckets = (agg.body.aggregations!.per as { buckets: { key: string; doc_count: number }[] }).buckets;
  const stored = new Map(buckets.map((b) => [b.key, b.doc_count]));
  for (const id of stored.keys()) if (!expected.has(id)) problems.push(`${id}: passages of an episode not in the library`);

  const ids = [...expected.keys()];
  for (let at = 0; at < ids.length; at += 100) {
    const slice = ids.slice(at, at + 100);
    const { body } = await client.mget({ index: aliases.episodes, body: { ids: slice } } as never);
    for (const doc of (body as { docs: { _id: string; found: boolean; _source?: EpisodeDoc }[] }).docs) {
      const record = expected.get(doc._id)!;
      if (!doc.found) {
        problems.push(`${doc._id}: no catalog row`);
        continue;
      }
      if (doc._source!.sourceHash !== sourceHash(record)) problems.push(`${doc._id}: stored from another version of the record`);
      const want = episodeDocuments(record, { modelId: '', indexedAt: '' }).passages.length;
      const have = stored.get(doc._id) ?? 0;
      if (have !== want) problems.push(`${doc._id}: ${have} passages, expected ${want}`);
    }
  }
  return { episodes, passages, problems };
}
