// Compile-time checks of the route types (src/http/route.ts), run by the type check (`npm run typecheck`, `npm test`),
// not by mocha: each `@ts-expect-error` fails that check when its line stops being an error (were a handler's input
// or answer `any`, every one would).
import { route, type Route } from '../../src/http/route.js';
import { GetChapters, GetHealth, ListChanges, ListEpisodes, SearchChannel } from '../../src/openapi/operations.js';

export const typed: Route[] = [
  route(SearchChannel, ({ params, query }) => ({ query: `${params.slug} ${query.limit.toFixed()} ${String(query.fast)}`, episodes: [] })),
  route(ListEpisodes, ({ query }) => ({ episodes: [], nextCursor: query.cursor ?? null })),
  route(GetChapters, async ({ params }) => [{ title: params.episodeId, startMs: 0, endMs: 60_000, moments: [], generated: false }]),
];

export const refused: Route[] = [
  // @ts-expect-error: a search answers `episodes`, not `hits`
  route(SearchChannel, () => ({ hits: [] })),
  // @ts-expect-error: the change feed's answer needs its cursor
  route(ListChanges, async () => ({ changes: [], hasMore: false })),
  // @ts-expect-error: the health answer is the literal "ok"
  route(GetHealth, () => ({ status: 'up' })),
  // @ts-expect-error: chapters are an array
  route(GetChapters, () => ({ chapters: [] })),
  // @ts-expect-error: the search route has `slug`, not `episodeId`
  route(SearchChannel, ({ params }) => ({ query: params.episodeId, episodes: [] })),
  // @ts-expect-error: `limit` is a number once validated, filled in by its default
  route(SearchChannel, ({ query }) => ({ query: query.limit.trim(), episodes: [] })),
  // @ts-expect-error: the health check has no query parameters
  route(GetHealth, ({ query }) => ({ status: query.limit })),
];
