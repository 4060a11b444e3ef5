// GET /api/v1/channels/{slug}/search: access here, the parameters as the search they ask for; the search runs in the search service (src/serve).
import type { RequestHandler } from 'express';
import { accessChannel } from '../auth/access.js';
import { validQuery } from '../http/validate-params.js';
import { SearchQuery, type SearchQueryValues } from '../openapi/parameters.js';
import type { SearchParams } from '../search/types.js';
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

export function search(service: SearchService): RequestHandler {
  return async (req, res) => {
    const slug = String(req.params.slug);
    // Access first, so 401/403/404 hold for an empty query too.
    const access = await accessChannel(req.queries, req.principal!, slug);
    res.json(await service.answerRest(req, slug, access, validQuery(req, SearchQuery)));
  };
}
