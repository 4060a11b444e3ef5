// The semantic leg: filtered k-NN over passage embeddings.
import type { ChannelDoc } from '../store/documents.js';
import { legSource } from './fields.js';
import { buildFilters, type QueryClause } from '../store/filters.js';
import type { SearchParams } from './types.js';

/**
 * Builds the k-NN search. The filter sits inside the `knn` clause, so the Lucene
 * engine filters while it walks the graph (or searches exactly when few passages
 * pass): the k neighbours are all in scope. A post-filter would drop out-of-scope
 * neighbours after the fact and return fewer than k, or none, for a narrow filter.
 */
export function buildKnnQuery(vector: number[], params: SearchParams, channel: ChannelDoc, k: number, { withText = false }: { withText?: boolean } = {}): QueryClause {
  return {
    size: k,
    track_total_hits: false,
    ...legSource(withText),
    query: { knn: { embedding: { vector, k, filter: buildFilters(params, channel) } } },
  };
}
