// GET /api/v1/channels/{slug}/search: the validated parameters as the search they ask for; access and the search itself are the search service's (src/serve).
import { route, type Route } from '../http/route.js';
import { SearchChannel } from '../openapi/operations.js';
import type { SearchQueryValues } from '../openapi/parameters.js';
import type { SearchParams } from '../../core/search/types.js';
import type { SearchService } from '../serve/search-service.js';
import { filtersFromQuery } from './filters.js';

/** Decision 2: `query` when it is non-blank, else `q`, else `""` (an empty result, not an error). */
export function chooseQuery(query: unknown, q: unknown): string {
  for (const value of [query, q]) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return '';
}

/** The search a request's validated parameters ask for; undefined when the query is blank (an empty answer). */
export function searchParams(q: SearchQueryValues, publishedOnly: boolean): SearchParams | undefined {
  const query = chooseQuery(q.query, q.q);
  if (query === '') return undefined;
  return { query, fast: q.fast, limit: q.limit, publishedOnly, ...filtersFromQuery(q) };
}

export function search(service: SearchService): Route {
  return route(SearchChannel, ({ params, query }, req) =>
    // Anonymous readers (ANONYMOUS_READ=published) see published episodes only.
    service.answerRest(req, params.slug, searchParams(query, req.principal!.kind === 'anonymous')),
  );
}
