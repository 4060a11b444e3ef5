// Facet filters from validated query parameters, shared by the episode list and search.
import type { Static } from '@sinclair/typebox';
import type { FilterQuery } from '../openapi/parameters.js';
import type { EpisodeFilters } from '../../core/search/types.js';

const split = (value: string | undefined): string[] | undefined => value?.split(',');

/** Validated `topicIds`, `personIds`, `entityIds`, `episodeIds`, `collectionId`, `year` as filters: the id lists split at their commas. */
export function filtersFromQuery(q: Static<typeof FilterQuery>): EpisodeFilters {
  return {
    topicIds: split(q.topicIds),
    personIds: split(q.personIds),
    entityIds: split(q.entityIds),
    episodeIds: split(q.episodeIds),
    collectionId: q.collectionId,
    year: q.year,
  };
}
