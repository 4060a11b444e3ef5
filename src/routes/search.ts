// GET /api/v1/channels/{slug}/search: parameters and access here; ranking is `searchChannel` (src/search).
import type { RequestHandler } from 'express';
import { accessChannel } from '../auth/access.js';
import { runSearch, type SearchDeps, type SearchTrace } from '../search/search.js';
import { filtersFromQuery } from './filters.js';

/** Decision 2: `query` when it is non-blank, else `q`, else `""` (an empty result, not an error). */
export function chooseQuery(query: unknown, q: unknown): string {
  for (const value of [query, q]) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return '';
}

/** `onTrace` sees every search's trace (the metrics read its phase timings). */
export function search(deps: SearchDeps, { onTrace }: { onTrace?: ((trace: SearchTrace) => void) | undefined } = {}): RequestHandler {
  return async (req, res) => {
    const q = req.validQuery;
    // Access first, so 401/403/404 hold for an empty query too.
    const { channel, publishedOnly } = await accessChannel(req.queries, req.principal!, String(req.params.slug));
    const query = chooseQuery(q.query, q.q);
    if (query === '') {
      res.json({ query: '', episodes: [] });
      return;
    }
    // The search's round trips draw on the same store budget as the lookups above.
    const { result, trace } = await runSearch({ ...deps, storeTimeoutMs: () => req.queries.timeLeftMs() }, channel, {
      query,
      fast: q.fast as boolean,
      limit: q.limit as number,
      publishedOnly,
      ...filtersFromQuery(q),
    });
    onTrace?.(trace);
    res.json(result);
  };
}
