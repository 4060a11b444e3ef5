// The filter every leg shares: channel, visibility and facets, as one bool clause.
import type { ChannelDoc } from '../store/documents.js';
import type { FilterScope } from './types.js';

/** An OpenSearch query clause. */
export type QueryClause = Record<string, unknown>;

/**
 * The non-scoring filter of a search, for the passages index (`episodeIdField`
 * `episodeId`, the default) or the episodes index (`id`). Facets combine with AND
 * across parameters and OR within one list (decision 6); an empty list means no
 * filter. Archived episodes are excluded twice over (the flag and the status value),
 * so a document written with either never leaks.
 */
export function buildFilters(
  params: FilterScope,
  channel: Pick<ChannelDoc, 'id'>,
  { episodeIdField = 'episodeId' }: { episodeIdField?: 'episodeId' | 'id' } = {},
): QueryClause {
  const filter: QueryClause[] = [{ term: { channelId: channel.id } }, { term: { archived: false } }];
  if (params.publishedOnly) filter.push({ term: { status: 'published' } });
  const terms = (field: string, values: string[] | undefined) => {
    if (values && values.length > 0) filter.push({ terms: { [field]: [...new Set(values)] } });
  };
  terms('topicIds', params.topicIds);
  terms('personIds', params.personIds);
  terms('entityIds', params.entityIds);
  terms(episodeIdField, params.episodeIds);
  if (params.collectionId !== undefined) filter.push({ term: { collectionIds: params.collectionId } });
  if (params.year !== undefined) filter.push({ term: { year: params.year } });
  return { bool: { filter, must_not: [{ term: { status: 'archived' } }] } };
}
