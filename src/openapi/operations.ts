// Every endpoint once, each a TypeBox declaration: path, path and query parameters, success body and error statuses.
// Routing, validation, the handlers' types (src/http/route.ts) and the document all read this.
import { Type, type TObject, type TSchema, type TString } from '@sinclair/typebox';
import { TranscriptDocument } from '../../core/contract/library-format.js';
import { SHAPES } from '../../core/contract/shapes.js';
import { ChangePageSchema } from '../../core/contract/changes.js';
import { ChangesQuery, ChannelPath, EpisodeListQuery, EpisodePath, SearchQuery } from './parameters.js';

/** Path parameters: strings the router captures from the path, so present by construction. */
export type PathParams = TObject<Record<string, TString>>;

/**
 * An endpoint, generic over its schemas so that its handler is typed by them (`route()`, src/http/route.ts): it gets
 * `Static<P>` and the validated `Q`, and must answer `Static<R>`.
 */
export interface OperationDef<P extends PathParams = PathParams, Q extends TObject = TObject, R extends TSchema = TSchema> {
  operationId: string;
  /** OpenAPI path template, e.g. `/api/v1/channels/{slug}/episodes`; its `{names}` are the properties of `params`. */
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /**
   * Path parameters (src/openapi/parameters.ts), each required. Documented, not validated: an id of the wrong form is
   * answered as an unknown one (the same 404), not as a 400.
   */
  params: P;
  /** Query parameters: the document lists them, the route validates a request against them (400 naming the first bad one), and the handler gets them typed by them. */
  query: Q;
  /** `credential`: needs an API key or token (or anonymous read, where allowed); `none`: public. */
  auth: 'credential' | 'none';
  /** Whether `ANONYMOUS_READ=published` opens this endpoint to calls without a credential. */
  anonymous: boolean;
  /** The success body: a component of the document (src/openapi/schemas.ts), or an array of one. */
  response: R;
  success: { status: 200; description: string; links?: Record<string, LinkDef> };
  /** Error statuses the endpoint can answer, beyond the ones every endpoint has (429, 500, 503). */
  errors: number[];
}

const NO_PARAMETERS = Type.Object({});

/** An operation whose `params` and `query`, when left out, are empty: its handler gets `{}` for them and any query string is ignored. */
export function defineOperation<R extends TSchema, P extends PathParams = typeof NO_PARAMETERS, Q extends TObject = typeof NO_PARAMETERS>(
  spec: Omit<OperationDef<P, Q, R>, 'params' | 'query'> & { params?: P; query?: Q },
): OperationDef<P, Q, R> {
  // Absent means the empty object schema: the defaults of P and Q say the same to the type checker.
  const op = { ...spec, params: spec.params ?? NO_PARAMETERS, query: spec.query ?? NO_PARAMETERS } as OperationDef<P, Q, R>;
  const inPath = [...op.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
  const declared = Object.keys(op.params.properties);
  if (inPath.join() !== declared.join()) throw new Error(`${op.operationId}: the path names {${inPath.join('}, {')}}, the params declare ${declared.join(', ') || 'none'}`);
  return op;
}

/** An OpenAPI link: which operation a success response leads to, with parameters taken from it (runtime expressions). */
export interface LinkDef {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

/** Links from a response holding an episode id at `pointer` to the three episode resources. */
const episodeLinks = (pointer: string, from: string): Record<string, LinkDef> =>
  Object.fromEntries(
    (['getTranscript', 'getChapters', 'getRelated'] as const).map((operationId) => [
      operationId.replace(/^get/, ''),
      { operationId, parameters: { episodeId: `$response.body#${pointer}` }, description: `The ${operationId.slice(3).toLowerCase()} of the first ${from}.` },
    ]),
  );

export const ListChannels = defineOperation({
  operationId: 'listChannels',
  path: '/api/v1/channels',
  summary: "List the caller's channels",
  description: "Channels the credential's owner is a member of, by slug; the discovery call that yields slugs. Always needs a credential, even with anonymous reading enabled.",
  tags: ['channels'],
  auth: 'credential',
  anonymous: false,
  response: SHAPES.ChannelList,
  success: {
    status: 200,
    description: 'The channels.',
    links: {
      Episodes: { operationId: 'listEpisodes', parameters: { slug: '$response.body#/channels/0/slug' }, description: 'The episodes of the first channel.' },
      Search: { operationId: 'searchChannel', parameters: { slug: '$response.body#/channels/0/slug' }, description: 'Search the first channel.' },
    },
  },
  errors: [401, 403],
});

export const SearchChannel = defineOperation({
  operationId: 'searchChannel',
  path: '/api/v1/channels/{slug}/search',
  summary: 'Hybrid search in one channel',
  description:
    'Semantic plus keyword search over every non-archived episode (drafts included; published only on anonymous reads). Returns ranked episodes with up to 3 best-matching timestamped segments, each with a citation URL. No match is 200 with an empty `episodes` array, never 404.',
  tags: ['search'],
  params: ChannelPath,
  query: SearchQuery,
  auth: 'credential',
  anonymous: true,
  response: SHAPES.SearchResult,
  success: { status: 200, description: 'Ranked episodes (possibly none).', links: episodeLinks('/episodes/0/episodeId', 'hit') },
  errors: [400, 401, 403, 404],
});

export const ListEpisodes = defineOperation({
  operationId: 'listEpisodes',
  path: '/api/v1/channels/{slug}/episodes',
  summary: "List a channel's episodes",
  description:
    'Catalog rows of every non-archived status (published only on anonymous reads), with keyset pagination: pass `nextCursor` back as `cursor` until it is null. Paging never skips or repeats a row while the data does not change.',
  tags: ['episodes'],
  params: ChannelPath,
  query: EpisodeListQuery,
  auth: 'credential',
  anonymous: true,
  response: SHAPES.EpisodePage,
  success: {
    status: 200,
    description: 'One page of episodes.',
    links: {
      ...episodeLinks('/episodes/0/id', 'episode of the page'),
      NextPage: {
        operationId: 'listEpisodes',
        parameters: { slug: '$request.path.slug', cursor: '$response.body#/nextCursor' },
        description: 'The next page (same filters and sort); none when `nextCursor` is null.',
      },
    },
  },
  errors: [400, 401, 403, 404],
});

export const ListChanges = defineOperation({
  operationId: 'listChanges',
  path: '/api/v1/channels/{slug}/changes',
  summary: "What changed in a channel's episodes",
  description:
    'The change feed, oldest first: an episode created, updated (status, catalog fields, transcript or chapters) or deleted (removed or archived). ' +
    'Pass `cursor` back to get what happened after; an empty `changes` means caught up. Ordered per channel, at-least-once (de-duplicate on `id`), kept for the retention ' +
    '(CHANGES_RETENTION_DAYS, default 30): an older cursor is 410 `cursor_expired`, list the catalog again. Anonymous reads see published episodes only: publishing is a creation, unpublishing a deletion.',
  tags: ['episodes'],
  params: ChannelPath,
  query: ChangesQuery,
  auth: 'credential',
  anonymous: true,
  response: ChangePageSchema,
  success: {
    status: 200,
    description: 'One page of changes (possibly none) and the cursor to resume from.',
    links: {
      NextPage: {
        operationId: 'listChanges',
        parameters: { slug: '$request.path.slug', cursor: '$response.body#/cursor' },
        description: 'The changes after this page.',
      },
      Transcript: {
        operationId: 'getTranscript',
        parameters: { episodeId: '$response.body#/changes/0/episodeId' },
        description: 'The transcript of the first changed episode.',
      },
    },
  },
  errors: [400, 401, 403, 404, 410],
});

export const GetTranscript = defineOperation({
  operationId: 'getTranscript',
  path: '/api/v1/episodes/{episodeId}/transcript',
  summary: "An episode's transcript",
  description: 'The word-timed transcript exactly as stored. 404 when the episode has none yet; 502 when the stored transcript cannot be read or fails validation.',
  tags: ['episodes'],
  params: EpisodePath,
  auth: 'credential',
  anonymous: true,
  response: TranscriptDocument,
  success: { status: 200, description: 'The transcript.' },
  errors: [400, 401, 403, 404, 502],
});

export const GetChapters = defineOperation({
  operationId: 'getChapters',
  path: '/api/v1/episodes/{episodeId}/chapters',
  summary: "An episode's chapters",
  description:
    "Chapters with their typed key moments, as stored; an episode without chapters gives `[]`. Each chapter and key moment says whether it was `generated` from the transcript by enrichment (`true`) or is the creator's own (`false`).",
  tags: ['episodes'],
  params: EpisodePath,
  auth: 'credential',
  anonymous: true,
  response: Type.Array(SHAPES.Chapter),
  success: { status: 200, description: 'The chapters.' },
  errors: [400, 401, 403, 404],
});

export const GetRelated = defineOperation({
  operationId: 'getRelated',
  path: '/api/v1/episodes/{episodeId}/related',
  summary: 'Related episodes',
  description:
    'Up to 10 other published episodes of the same channel, ranked by the number of topic ids shared with this one (ties: newest first). An episode without topics has none.',
  tags: ['episodes'],
  params: EpisodePath,
  auth: 'credential',
  anonymous: true,
  response: Type.Array(SHAPES.RelatedEpisode),
  success: { status: 200, description: 'Related episodes.', links: episodeLinks('/0/id', 'related episode') },
  errors: [400, 401, 403, 404],
});

export const GetOpenApiDocument = defineOperation({
  operationId: 'getOpenApiDocument',
  path: '/api/v1/openapi.json',
  summary: 'This document',
  description: 'The OpenAPI 3.1 description of the API, served without a credential.',
  tags: ['meta'],
  auth: 'none',
  anonymous: true,
  response: SHAPES.OpenApiDocument,
  success: { status: 200, description: 'The OpenAPI document.' },
  errors: [],
});

export const GetProtectedResourceMetadata = defineOperation({
  operationId: 'getProtectedResourceMetadata',
  path: '/.well-known/oauth-protected-resource',
  summary: 'OAuth protected resource metadata',
  description: 'RFC 9728 metadata the 401 challenge points at; served without a credential.',
  tags: ['meta'],
  auth: 'none',
  anonymous: true,
  response: SHAPES.ProtectedResourceMetadata,
  success: { status: 200, description: 'The metadata.' },
  errors: [],
});

export const GetHealth = defineOperation({
  operationId: 'getHealth',
  path: '/healthz',
  summary: 'Liveness',
  description: 'The process is up. Touches no dependency, and is not rate limited.',
  tags: ['operations'],
  auth: 'none',
  anonymous: true,
  response: SHAPES.Health,
  success: { status: 200, description: 'Up.' },
  errors: [],
});

export const GetReadiness = defineOperation({
  operationId: 'getReadiness',
  path: '/readyz',
  summary: 'Readiness',
  description: 'OpenSearch and Redis both answer; 503 with the failing checks otherwise.',
  tags: ['operations'],
  auth: 'none',
  anonymous: true,
  response: SHAPES.Readiness,
  success: { status: 200, description: 'Ready.' },
  errors: [],
});

/** Every operation, in the order the document lists them. */
export const OPERATIONS: readonly OperationDef[] = [
  ListChannels,
  SearchChannel,
  ListEpisodes,
  ListChanges,
  GetTranscript,
  GetChapters,
  GetRelated,
  GetOpenApiDocument,
  GetProtectedResourceMetadata,
  GetHealth,
  GetReadiness,
];

/** `/api/v1/channels/{slug}` → `/api/v1/channels/:slug` (Express path syntax). */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
