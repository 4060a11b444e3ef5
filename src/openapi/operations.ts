// Every endpoint once: path, parameters, success body and error statuses. Routing, validation and the document all read this.
import type { TObject } from '@sinclair/typebox';
import { ChangesQuery, ChannelPath, EpisodeListQuery, EpisodePath, SearchQuery } from './parameters.js';
import type { JsonSchema } from './schemas.js';

export interface OperationDef {
  operationId: string;
  /** OpenAPI path template, e.g. `/api/v1/channels/{slug}/episodes`. */
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** Path parameters (src/openapi/parameters.ts), each required. */
  pathParams?: TObject;
  /** Query parameters: the document lists them, `validateParams` checks a request against them, and the handler reads them typed by them. */
  query?: TObject;
  /** `credential`: needs an API key or token (or anonymous read, where allowed); `none`: public. */
  auth: 'credential' | 'none';
  /** Whether `ANONYMOUS_READ=published` opens this endpoint to calls without a credential. */
  anonymous: boolean;
  success: { status: 200; description: string; schema: JsonSchema; links?: Record<string, LinkDef> };
  /** Error statuses the endpoint can answer, beyond the ones every endpoint has (429, 500, 503). */
  errors: number[];
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

const schema = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (name: string): JsonSchema => ({ type: 'array', items: schema(name) });

export const OPERATIONS: OperationDef[] = [
  {
    operationId: 'listChannels',
    path: '/api/v1/channels',
    summary: "List the caller's channels",
    description: "Channels the credential's owner is a member of, by slug; the discovery call that yields slugs. Always needs a credential, even with anonymous reading enabled.",
    tags: ['channels'],
    auth: 'credential',
    anonymous: false,
    success: {
      status: 200,
      description: 'The channels.',
      schema: schema('ChannelList'),
      links: {
        Episodes: { operationId: 'listEpisodes', parameters: { slug: '$response.body#/channels/0/slug' }, description: 'The episodes of the first channel.' },
        Search: { operationId: 'searchChannel', parameters: { slug: '$response.body#/channels/0/slug' }, description: 'Search the first channel.' },
      },
    },
    errors: [401, 403],
  },
  {
    operationId: 'searchChannel',
    path: '/api/v1/channels/{slug}/search',
    summary: 'Hybrid search in one channel',
    description:
      'Semantic plus keyword search over every non-archived episode (drafts included; published only on anonymous reads). Returns ranked episodes with up to 3 best-matching timestamped segments, each with a citation URL. No match is 200 with an empty `episodes` array, never 404.',
    tags: ['search'],
    pathParams: ChannelPath,
    query: SearchQuery,
    auth: 'credential',
    anonymous: true,
    success: { status: 200, description: 'Ranked episodes (possibly none).', schema: schema('SearchResult'), links: episodeLinks('/episodes/0/episodeId', 'hit') },
    errors: [400, 401, 403, 404],
  },
  {
    operationId: 'listEpisodes',
    path: '/api/v1/channels/{slug}/episodes',
    summary: "List a channel's episodes",
    description:
      'Catalog rows of every non-archived status (published only on anonymous reads), with keyset pagination: pass `nextCursor` back as `cursor` until it is null. Paging never skips or repeats a row while the data does not change.',
    tags: ['episodes'],
    pathParams: ChannelPath,
    query: EpisodeListQuery,
    auth: 'credential',
    anonymous: true,
    success: {
      status: 200,
      description: 'One page of episodes.',
      schema: schema('EpisodePage'),
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
  },
  {
    operationId: 'listChanges',
    path: '/api/v1/channels/{slug}/changes',
    summary: "What changed in a channel's episodes",
    description:
      'The change feed, oldest first: an episode created, updated (status, catalog fields, transcript or chapters) or deleted (removed or archived). ' +
      'Pass `cursor` back to get what happened after; an empty `changes` means caught up. Ordered per channel, at-least-once (de-duplicate on `id`), kept for the retention ' +
      '(CHANGES_RETENTION_DAYS, default 30): an older cursor is 410 `cursor_expired`, list the catalog again. Anonymous reads see published episodes only: publishing is a creation, unpublishing a deletion.',
    tags: ['episodes'],
    pathParams: ChannelPath,
    query: ChangesQuery,
    auth: 'credential',
    anonymous: true,
    success: {
      status: 200,
      description: 'One page of changes (possibly none) and the cursor to resume from.',
      schema: schema('ChangePage'),
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
  },
  {
    operationId: 'getTranscript',
    path: '/api/v1/episodes/{episodeId}/transcript',
    summary: "An episode's transcript",
    description: 'The word-timed transcript exactly as stored. 404 when the episode has none yet; 502 when the stored transcript cannot be read or fails validation.',
    tags: ['episodes'],
    pathParams: EpisodePath,
    auth: 'credential',
    anonymous: true,
    success: { status: 200, description: 'The transcript.', schema: schema('TranscriptDocument') },
    errors: [400, 401, 403, 404, 502],
  },
  {
    operationId: 'getChapters',
    path: '/api/v1/episodes/{episodeId}/chapters',
    summary: "An episode's chapters",
    description:
      "Chapters with their typed key moments, as stored; an episode without chapters gives `[]`. Each chapter and key moment says whether it was `generated` from the transcript by enrichment (`true`) or is the creator's own (`false`).",
    tags: ['episodes'],
    pathParams: EpisodePath,
    auth: 'credential',
    anonymous: true,
    success: { status: 200, description: 'The chapters.', schema: arrayOf('Chapter') },
    errors: [400, 401, 403, 404],
  },
  {
    operationId: 'getRelated',
    path: '/api/v1/episodes/{episodeId}/related',
    summary: 'Related episodes',
    description:
      'Up to 10 other published episodes of the same channel, ranked by the number of topic ids shared with this one (ties: newest first). An episode without topics has none.',
    tags: ['episodes'],
    pathParams: EpisodePath,
    auth: 'credential',
    anonymous: true,
    success: { status: 200, description: 'Related episodes.', schema: arrayOf('RelatedEpisode'), links: episodeLinks('/0/id', 'related episode') },
    errors: [400, 401, 403, 404],
  },
  {
    operationId: 'getOpenApiDocument',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the API, served without a credential.',
    tags: ['meta'],
    auth: 'none',
    anonymous: true,
    success: { status: 200, description: 'The OpenAPI document.', schema: schema('OpenApiDocument') },
    errors: [],
  },
  {
    operationId: 'getProtectedResourceMetadata',
    path: '/.well-known/oauth-protected-resource',
    summary: 'OAuth protected resource metadata',
    description: 'RFC 9728 metadata the 401 challenge points at; served without a credential.',
    tags: ['meta'],
    auth: 'none',
    anonymous: true,
    success: { status: 200, description: 'The metadata.', schema: schema('ProtectedResourceMetadata') },
    errors: [],
  },
  {
    operationId: 'getHealth',
    path: '/healthz',
    summary: 'Liveness',
    description: 'The process is up. Touches no dependency, and is not rate limited.',
    tags: ['operations'],
    auth: 'none',
    anonymous: true,
    success: { status: 200, description: 'Up.', schema: schema('Health') },
    errors: [],
  },
  {
    operationId: 'getReadiness',
    path: '/readyz',
    summary: 'Readiness',
    description: 'OpenSearch and Redis both answer; 503 with the failing checks otherwise.',
    tags: ['operations'],
    auth: 'none',
    anonymous: true,
    success: { status: 200, description: 'Ready.', schema: schema('Readiness') },
    errors: [],
  },
];

/** Looks an operation up by id; throws on a typo, at start-up. */
export function operation(operationId: string): OperationDef {
  const op = OPERATIONS.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation "${operationId}"`);
  return op;
}

/** `/api/v1/channels/{slug}` → `/api/v1/channels/:slug` (Express path syntax). */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
