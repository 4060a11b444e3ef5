// JSON Schemas (2020-12) of every body the API returns: published in the OpenAPI document and used to validate.
import { API_ERRORS } from '../errors.js';
import { TranscriptDocument } from '../library-format.js';
import { SHAPES } from '../shapes.js';
import { ChangePageSchema, ChangeSchema } from './change-schemas.js';

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
      language: {
        type: 'string',
        description:
          'BCP 47 tag of the language its episodes are spoken in unless one says otherwise (additive); `en` when the library names none. Searches of the channel are analysed in it.',
      },
    },
  },
  ChannelList: {
    type: 'object',
    required: ['channels'],
    properties: { channels: { type: 'array', items: ref('ChannelSummary') } },
  },
  Episode: SHAPES.Episode,
  EpisodePage: {
    type: 'object',
    required: ['episodes', 'nextCursor'],
    properties: {
      episodes: { type: 'array', items: ref('Episode') },
      nextCursor: nullable('string', { description: 'Opaque; pass back as `cursor` with the same filters and sort. Null on the last page.' }),
    },
  },
  Change: ChangeSchema,
  ChangePage: ChangePageSchema,
  MatchedSegment: SHAPES.MatchedSegment,
  MatchedVia: SHAPES.MatchedVia,
  SearchResultEpisode: SHAPES.SearchResultEpisode,
  SearchResult: SHAPES.SearchResult,
  // The library format's own schema: what the indexer accepts is what the API publishes and serves.
  TranscriptDocument,
  KeyMoment: SHAPES.KeyMoment,
  Chapter: SHAPES.Chapter,
  RelatedEpisode: SHAPES.RelatedEpisode,
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
