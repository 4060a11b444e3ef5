// The filter every search leg and the episode list share: channel, visibility and facets, as one bool clause.
import { Type, type Static } from '@sinclair/typebox';
import type { ChannelDoc } from './documents.js';

/** One id as a filter names it: no commas or spaces (decision 3), so a comma-separated list of them reads back unambiguously. */
export const FilterId = Type.String({ pattern: '^[^,\\s]+$', maxLength: 200 });

const Ids = Type.Optional(Type.Array(FilterId));

/**
 * Facet and scope filters (decision 6): AND across parameters, OR within one list, an
 * empty list no filter. Search and the episode list share their meaning and their builder;
 * REST search and the episode list take the lists comma-separated, the MCP tool as arrays
 * (both built from this schema).
 */
export const EpisodeFiltersSchema = Type.Object({
  topicIds: Ids,
  personIds: Ids,
  entityIds: Ids,
  episodeIds: Ids,
  collectionId: Type.Optional(FilterId),
  year: Type.Optional(Type.Integer({ minimum: 1000, maximum: 9999 })),
});
export type EpisodeFilters = Static<typeof EpisodeFiltersSchema>;

/** What every read of episodes or passages is filtered by: the facets and the caller's visibility. */
export const FilterScopeSchema = Type.Composite([
  EpisodeFiltersSchema,
  Type.Object({ publishedOnly: Type.Boolean({ description: 'Anonymous reads (decision 7): published episodes only.' }) }),
]);
export type FilterScope = Static<typeof FilterScopeSchema>;

/** An OpenSearch query clause. */
export type QueryClause = Record<string, unknown>;

/**
 * The non-scoring filter of a search or an episode list, for the passages index (`episodeIdField`
 * `episodeId`, the default) or the episodes index (`id`). Facets combine with AND
 * across parameters and OR within one list (decision 6); an empty list means no
 * filter. Archived episodes are excluded twice over (the flag and the status value),
 * so a document written with either never leaks.
 */
export function buildFilters(scope: FilterScope, channel: Pick<ChannelDoc, 'id'>, { episodeIdField = 'episodeId' }: { episodeIdField?: 'episodeId' | 'id' } = {}): QueryClause {
  const filter: QueryClause[] = [{ term: { channelId: channel.id } }, { term: { archived: false } }];
  if (scope.publishedOnly) filter.push({ term: { status: 'published' } });
  const terms = (field: string, values: string[] | undefined) => {
    if (values && values.length > 0) filter.push({ terms: { [field]: [...new Set(values)] } });
  };
  terms('topicIds', scope.topicIds);
  terms('personIds', scope.personIds);
  terms('entityIds', scope.entityIds);
  terms(episodeIdField, scope.episodeIds);
  if (scope.collectionId !== undefined) filter.push({ term: { collectionIds: scope.collectionId } });
  if (scope.year !== undefined) filter.push({ term: { year: scope.year } });
  return { bool: { filter, must_not: [{ term: { status: 'archived' } }] } };
}
