// JSON Schemas (2020-12) of every body the API returns: published in the OpenAPI document and used to validate.
import { API_ERRORS } from '../errors.js';
import { TranscriptDocument } from '../library-format.js';
import { MATCHED_VIA_DESCRIPTIONS } from '../search/types.js';

export type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: JsonSchema = {}): JsonSchema => ({ type: [type, 'null'], ...extra });

const ERROR_CODE_LIST = Object.entries(API_ERRORS)
  .map(([code, { status }]) => `\`${code}\` (${status})`)
  .join(', ');

/** Every component schema of the OpenAPI document, by name. Objects accept additional fields. */
export const SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: `Body of every error response (never HTML). Codes are stable: ${ERROR_CODE_LIST}.`,
    required: ['error', 'code', 'requestId'],
    properties: {
      error: { type: 'string', description: 'Human-readable sentence.' },
      code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'Stable snake_case code; branch on this, not on `error`.' },
      requestId: { type: 'string', description: 'Same value as the `X-Request-Id` response header.' },
      parameter: { type: 'string', description: 'For 400s: the query parameter at fault.' },
    },
  },
  ChannelSummary: {
    type: 'object',
    required: ['id', 'slug', 'title', 'providerType', 'apiAccess'],
    properties: {
      id: { type: 'string' },
      slug: { type: 'string', description: "The `{slug}` of the channel-scoped endpoints; the channel's subdomain." },
      title: { type: 'string' },
      providerType: { type: 'string', enum: ['youtube', 'rss'] },
      apiAccess: {
        type: 'boolean',
        description: "True when the channel owner's plan includes API access; false means the channel's data endpoints answer 403.",
      },
    },
  },
  ChannelList: {
    type: 'object',
    required: ['channels'],
    properties: { channels: { type: 'array', items: ref('ChannelSummary') } },
  },
  Episode: {
    type: 'object',
    description: 'Catalog row. Archived episodes are never returned.',
    required: ['id', 'title', 'publishedAt', 'status'],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      description: nullable('string'),
      link: nullable('string', { description: 'Show-notes page on the source platform, display only.' }),
      thumbnail: nullable('string'),
      mediaUrl: nullable('string', {
        description: 'Source address. On a watch URL, appending `&t=<floor(ms/1000)>s` deep-links to a moment.',
      }),
      durationMs: nullable('integer'),
      publishedAt: { type: 'string', format: 'date-time' },
      viewCount: nullable('integer'),
      status: { type: 'string', enum: ['pending', 'processing', 'indexed', 'failed', 'published'] },
      summary: nullable('string'),
      error: nullable('string'),
      url: { type: 'string', format: 'uri', description: 'Episode page on the channel host: `https://<host>/episodes/<id>` (additive).' },
      topicIds: { type: 'array', items: { type: 'string' }, description: 'Facet ids usable as filters (additive).' },
      personIds: { type: 'array', items: { type: 'string' } },
      entityIds: { type: 'array', items: { type: 'string' } },
      collectionIds: { type: 'array', items: { type: 'string' } },
    },
  },
  EpisodePage: {
    type: 'object',
    required: ['episodes', 'nextCursor'],
    properties: {
      episodes: { type: 'array', items: ref('Episode') },
      nextCursor: nullable('string', { description: 'Opaque; pass back as `cursor` with the same filters and sort. Null on the last page.' }),
    },
  },
  MatchedSegment: {
    type: 'object',
    description:
      'The unit of citation. A transcript segment is cited from the sentence where the words of the query gather (the answer\'s start), not from the start of the passage it was found in: `startMs`, `url`, `deepLink` and `text` all begin there, and `endMs` is where the passage ends.',
    required: ['segmentId', 'text', 'startMs', 'endMs', 'url', 'deepLink', 'matchedVia'],
    properties: {
      segmentId: { type: 'string', description: 'Id of the indexed passage the segment was found in.' },
      text: { type: 'string', description: 'What is said from `startMs` to `endMs` (or the chapter or key-moment title).' },
      startMs: { type: 'integer', description: 'Where the cited moment begins, in milliseconds.' },
      endMs: { type: 'integer' },
      speaker: nullable('string'),
      url: { type: 'string', format: 'uri', description: 'Citation URL: `https://<host>/episodes/<episodeId>?t=<ms>` (t in milliseconds).' },
      deepLink: { type: 'string', description: 'Same moment relative to the library root: `episodes/<episodeId>?t=<ms>`.' },
      matchedVia: ref('MatchedVia'),
      highlights: {
        type: 'array',
        description:
          'Character ranges of `text` (UTF-16 code units, `end` exclusive) holding the words of the query as the keyword leg matches them (stemmed, English stop words left out). Empty when none occur, for instance on a purely semantic match.',
        items: {
          type: 'object',
          required: ['start', 'end'],
          properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer', minimum: 1 } },
        },
      },
    },
  },
  MatchedVia: {
    type: 'array',
    // Quoted from the search pipeline's own table, one list item per value, so the document cannot drift from it.
    description: `Why a result is there:\n${Object.entries(MATCHED_VIA_DESCRIPTIONS)
      .map(([value, meaning]) => `- \`${value}\`: ${meaning}`)
      .join('\n')}`,
    items: { type: 'string', enum: Object.keys(MATCHED_VIA_DESCRIPTIONS) },
  },
  SearchResultEpisode: {
    type: 'object',
    required: ['episodeId', 'title', 'url', 'score', 'matchedVia', 'segments', 'publishedAt'],
    properties: {
      episodeId: { type: 'string' },
      title: { type: 'string' },
      url: { type: 'string', format: 'uri', description: 'Absolute URL of the episode page.' },
      score: { type: 'number', description: 'Ranking score (the fused score of the legs: by default a weighted sum of their min-max normalized scores); only the order is meaningful.' },
      matchedVia: ref('MatchedVia'),
      segments: { type: 'array', maxItems: 3, items: ref('MatchedSegment'), description: 'Up to 3 best-matching segments.' },
      summary: nullable('string'),
      publishedAt: { type: 'string', format: 'date-time' },
      durationMs: nullable('integer'),
    },
  },
  SearchResult: {
    type: 'object',
    required: ['episodes'],
    properties: {
      query: { type: 'string', description: 'The query searched: `query` when non-blank, else `q`; `""` when both are blank.' },
      episodes: { type: 'array', items: ref('SearchResultEpisode') },
      degraded: {
        type: 'string',
        enum: ['embedder_busy', 'embedder_failed'],
        description:
          'Present only when a hybrid search ran keyword-only: `embedder_busy` (every query-embedding worker busy and its queue full, or the query vector not ready within the API\'s short wait), `embedder_failed` (the model failed on this query). No hit then has `semantic` in `matchedVia`; retrying later may add semantic matches.',
      },
    },
  },
  // The library format's own schema: what the indexer accepts is what the API publishes and serves.
  TranscriptDocument,
  KeyMoment: {
    type: 'object',
    required: ['type', 'title', 'startMs'],
    properties: {
      type: { type: 'string', description: 'Highlight kind, an open list: story, qa, prediction, insight, debate, quote, …' },
      title: { type: 'string', description: 'A self-contained citable claim.' },
      startMs: { type: 'integer' },
      endMs: { type: 'integer' },
    },
  },
  Chapter: {
    type: 'object',
    required: ['title', 'startMs', 'endMs', 'moments'],
    properties: {
      title: { type: 'string' },
      startMs: { type: 'integer' },
      endMs: { type: 'integer' },
      moments: { type: 'array', items: ref('KeyMoment') },
    },
  },
  RelatedEpisode: {
    type: 'object',
    description: 'Another published episode of the same channel sharing topics.',
    required: ['id', 'title', 'url', 'publishedAt', 'durationMs', 'thumbnail', 'sharedTopicIds', 'score'],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      url: { type: 'string', format: 'uri' },
      publishedAt: { type: 'string', format: 'date-time' },
      durationMs: nullable('integer'),
      thumbnail: nullable('string'),
      sharedTopicIds: { type: 'array', items: { type: 'string' }, minItems: 1 },
      score: { type: 'number', description: 'Number of shared topic ids.' },
    },
  },
  ProtectedResourceMetadata: {
    type: 'object',
    description: 'OAuth 2.0 Protected Resource Metadata (RFC 9728).',
    required: ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported'],
    properties: {
      resource: { type: 'string', format: 'uri' },
      authorization_servers: { type: 'array', items: { type: 'string', format: 'uri' } },
      scopes_supported: { type: 'array', items: { type: 'string' } },
      bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
    },
  },
  Health: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', const: 'ok' } },
  },
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      checks: {
        type: 'object',
        required: ['opensearch', 'redis'],
        properties: {
          opensearch: { type: 'string', enum: ['ok', 'unreachable'] },
          redis: { type: 'string', enum: ['ok', 'unreachable'] },
        },
      },
    },
  },
  ReadinessError: {
    allOf: [ref('Error'), { type: 'object', required: ['checks'], properties: { checks: { $ref: '#/components/schemas/Readiness/properties/checks' } } }],
  },
  OpenApiDocument: {
    type: 'object',
    required: ['openapi', 'info', 'paths'],
    properties: {
      openapi: { type: 'string', pattern: '^3\\.1\\.' },
      info: { type: 'object', required: ['version'], properties: { version: { type: 'string' } } },
      paths: { type: 'object' },
    },
  },
};
