// GET /api/v1/channels/{slug}/episodes: status views, four sorts, facet filters, keyset pagination.
import type { ChannelSites } from '../../core/ground/channel-urls.js';
import { route, type Route } from '../http/route.js';
import { ListEpisodes } from '../openapi/operations.js';
import { episodePage } from '../serve/member-reads.js';
import { filtersFromQuery } from './filters.js';

export { toEpisode } from '../serve/member-reads.js';

export function listEpisodes({ channelSites }: { channelSites: ChannelSites }): Route {
  return route(ListEpisodes, async ({ params, query }, req) => {
    const { status, sort, limit, cursor, ...q } = query;
    return episodePage(req.queries, req.principal!, { channelSites }, { slug: params.slug, status, sort, limit, cursor, filters: filtersFromQuery(q) });
  });
}
