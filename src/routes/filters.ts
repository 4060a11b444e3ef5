// Facet filters from validated query parameters, shared by the episode list and search.
import type { EpisodeFilters } from '../search/types.js';

const split = (value: unknown): string[] | undefined => (typeof value === 'string' ? value.split(',') : undefined);

/** Validated `topicIds`, `personIds`, `entityIds`, `episodeIds`, `collectionId`, `year` as filters. */
export function filtersFromQuery(q: Record<string, unknown>): EpisodeFilters {
  return {
    topicIds: split(q.topicIds),
    personIds: split(q.personIds),
    entityIds: split(q.entityIds),
    episodeIds: split(q.episodeIds),
    collectionId: q.collectionId as string | undefined,
    year: q.year as number | undefined,
  };
}
