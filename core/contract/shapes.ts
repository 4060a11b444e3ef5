// The API's public shapes, every body it answers with, written once as JSON Schemas (TypeBox): the handlers' types, the OpenAPI components and the MCP tool's output schema all come from here.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, SHOWN_STATUSES, StringEnum } from './library-format.js';

/** A reference to another component of the OpenAPI document, typed as the schema it names. */
const component = <T extends TSchema>(name: string, _schema: T) => Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${name}` });

/** What each `matchedVia` value means; the OpenAPI document quotes this. */
export const MATCHED_VIA_DESCRIPTIONS = {
  keyword: 'Found by the keyword (BM25) leg: the words of the query, stemmed, occur in the segment text or in the title of the chapter it belongs to.',
  semantic: 'Found by the semantic leg: the segment is among the nearest passages to the query by meaning (k-NN over passage embeddings).',
  title:
    "The episode's catalog row matched the words of the query (title, summary, description, chapter or key-moment titles). On a segment: the segment was not matched itself; it is the episode's best keyword passage for the query, or its opening passage, cited because the episode matched.",
  chapter: 'The segment is a chapter title (it spans the chapter), not transcript speech.',
  moment: 'The segment is a key-moment title, a self-contained claim at that moment, not transcript speech.',
} as const;

/**
 * Why a segment or an episode is in the result. A segment carries the legs that found it
 * plus what kind of passage it is; an episode carries the union of its segments' values,
 * plus `title` when its catalog row matched.
 */
export type MatchedVia = keyof typeof MATCHED_VIA_DESCRIPTIONS;

const MatchedViaSchema = Type.Array(StringEnum(Object.keys(MATCHED_VIA_DESCRIPTIONS) as MatchedVia[]), {
  // One list item per value, quoted from the table above, so the document cannot drift from it.
  description: `Why a result is there:\n${Object.entries(MATCHED_VIA_DESCRIPTIONS)
    .map(([value, meaning]) => `- \`${value}\`: ${meaning}`)
    .join('\n')}`,
});

/** A character range of a text, `end` exclusive. */
const TermRangeSchema = Type.Object({ start: Type.Integer({ minimum: 0 }), end: Type.Integer({ minimum: 1 }) });

const MatchedSegmentSchema = Type.Object(
  {
    segmentId: Type.String({ description: 'Id of the indexed passage the segment was found in.' }),
    text: Type.String({ description: 'What is said from `startMs` to `endMs` (or the chapter or key-moment title).' }),
    startMs: Type.Integer({ description: 'Where the cited moment begins, in milliseconds.' }),
    endMs: Type.Integer(),
    speaker: Type.Optional(Nullable(Type.String())),
    url: Type.String({ format: 'uri', description: 'Citation URL: `https://<host>/episodes/<episodeId>?t=<ms>` (t in milliseconds).' }),
    deepLink: Type.String({ description: 'Same moment relative to the library root: `episodes/<episodeId>?t=<ms>`.' }),
    matchedVia: component('MatchedVia', MatchedViaSchema),
    highlights: Type.Optional(
      Type.Array(TermRangeSchema, {
        description:
          'Character ranges of `text` (UTF-16 code units, `end` exclusive) holding the words of the query as the keyword leg matches them (stemmed, English stop words left out). Empty when none occur, for instance on a purely semantic match.',
      }),
    ),
  },
  {
    description:
      "The unit of citation. A transcript segment is cited from the sentence where the words of the query gather (the answer's start), not from the start of the passage it was found in: `startMs`, `url`, `deepLink` and `text` all begin there, and `endMs` is where the passage ends.",
  },
);

const SearchResultEpisodeSchema = Type.Object({
  episodeId: Type.String(),
  title: Type.String(),
  url: Type.String({ format: 'uri', description: 'Absolute URL of the episode page.' }),
  score: Type.Number({ description: 'Ranking score (the fused score of the legs: by default a weighted sum of their min-max normalized scores); only the order is meaningful.' }),
  matchedVia: component('MatchedVia', MatchedViaSchema),
  segments: Type.Array(component('MatchedSegment', MatchedSegmentSchema), { maxItems: 3, description: 'Up to 3 best-matching segments.' }),
  summary: Type.Optional(Nullable(Type.String())),
  publishedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Optional(Nullable(Type.Integer())),
});

/**
 * Why a search that asked for the semantic leg ran keyword-only: `embedder_busy` (every embedder worker busy and its
 * queue full, or the vector not ready in time) or `embedder_failed` (the model failed on the query).
 */
export const DEGRADED_REASONS = ['embedder_busy', 'embedder_failed'] as const;
export type DegradedReason = (typeof DEGRADED_REASONS)[number];

export const SearchResultSchema = Type.Object({
  query: Type.Optional(Type.String({ description: 'The query searched: `query` when non-blank, else `q`; `""` when both are blank.' })),
  episodes: Type.Array(component('SearchResultEpisode', SearchResultEpisodeSchema)),
  degraded: Type.Optional(
    StringEnum(DEGRADED_REASONS, {
      description:
        "Present only when a hybrid search ran keyword-only: `embedder_busy` (every query-embedding worker busy and its queue full, or the query vector not ready within the API's short wait), `embedder_failed` (the model failed on this query). No hit then has `semantic` in `matchedVia`; retrying later may add semantic matches.",
    }),
  ),
});

const EpisodeSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    description: Type.Optional(Nullable(Type.String())),
    link: Type.Optional(Nullable(Type.String({ description: 'Show-notes page on the source platform, display only.' }))),
    thumbnail: Type.Optional(Nullable(Type.String())),
    mediaUrl: Type.Optional(Nullable(Type.String({ description: 'Source address. On a watch URL, appending `&t=<floor(ms/1000)>s` deep-links to a moment.' }))),
    durationMs: Type.Optional(Nullable(Type.Integer())),
    publishedAt: Type.String({ format: 'date-time' }),
    viewCount: Type.Optional(Nullable(Type.Integer())),
    status: StringEnum(SHOWN_STATUSES),
    summary: Type.Optional(Nullable(Type.String())),
    error: Type.Optional(Nullable(Type.String())),
    url: Type.Optional(Type.String({ format: 'uri', description: 'Episode page on the channel host: `https://<host>/episodes/<id>` (additive).' })),
    topicIds: Type.Optional(Type.Array(Type.String(), { description: 'Facet ids usable as filters (additive).' })),
    personIds: Type.Optional(Type.Array(Type.String())),
    entityIds: Type.Optional(Type.Array(Type.String())),
    collectionIds: Type.Optional(Type.Array(Type.String())),
    language: Type.Optional(
      Type.String({
        description:
          "BCP 47 tag of the language it is spoken in (additive): the episode's own (a transcriber's detection lands there), else its channel's; `en` when the library names none.",
      }),
    ),
  },
  { description: 'Catalog row. Archived episodes are never returned.' },
);

const KeyMomentSchema = Type.Object({
  type: Type.String({ description: 'Highlight kind, an open list: story, qa, prediction, insight, debate, quote, …' }),
  title: Type.String({ description: 'A self-contained citable claim.' }),
  startMs: Type.Integer(),
  endMs: Type.Optional(Type.Integer()),
  generated: Type.Optional(
    Type.Boolean({
      description:
        "True when the key moment was made from the transcript by enrichment (its type, claim and times), not by the creator; false on the creator's own (additive, present on every key moment answered).",
    }),
  ),
});

const ChapterSchema = Type.Object({
  title: Type.String(),
  startMs: Type.Integer(),
  endMs: Type.Integer(),
  moments: Type.Array(component('KeyMoment', KeyMomentSchema)),
  generated: Type.Optional(
    Type.Boolean({
      description:
        "True when the chapter was made from the transcript by enrichment (its title and bounds; its moments say so each), not by the creator; false on the creator's own (additive, present on every chapter answered). An episode with the creator's chapters has no generated ones.",
    }),
  ),
});

const RelatedEpisodeSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    url: Type.String({ format: 'uri' }),
    publishedAt: Type.String({ format: 'date-time' }),
    durationMs: Nullable(Type.Integer()),
    thumbnail: Nullable(Type.String()),
    sharedTopicIds: Type.Array(Type.String(), { minItems: 1 }),
    score: Type.Number({ description: 'Number of shared topic ids.' }),
  },
  { description: 'Another published episode of the same channel sharing topics.' },
);

/** What every error response carries (never HTML); the OpenAPI document adds the list of codes to its description. */
const ErrorBodySchema = Type.Object({
  error: Type.String({ description: 'Human-readable sentence.' }),
  code: Type.String({ pattern: '^[a-z][a-z0-9_]*$', description: 'Stable snake_case code; branch on this, not on `error`.' }),
  requestId: Type.String({ description: 'Same value as the `X-Request-Id` response header.' }),
  parameter: Type.Optional(Type.String({ description: 'For 400s: the query parameter at fault.' })),
});

const ChannelSummarySchema = Type.Object({
  id: Type.String(),
  slug: Type.String({ description: "The `{slug}` of the channel-scoped endpoints; the channel's subdomain." }),
  title: Type.String(),
  providerType: StringEnum(['youtube', 'rss'] as const),
  apiAccess: Type.Boolean({
    description: "True when the channel owner's plan includes API access; false means the channel's data endpoints answer 403.",
  }),
  language: Type.Optional(
    Type.String({
      description:
        'BCP 47 tag of the language its episodes are spoken in unless one says otherwise (additive); `en` when the library names none. Searches of the channel are analysed in it.',
    }),
  ),
});

const ChannelListSchema = Type.Object({ channels: Type.Array(component('ChannelSummary', ChannelSummarySchema)) });

const EpisodePageSchema = Type.Object({
  episodes: Type.Array(component('Episode', EpisodeSchema)),
  nextCursor: Nullable(Type.String({ description: 'Opaque; pass back as `cursor` with the same filters and sort. Null on the last page.' })),
});

const HealthSchema = Type.Object({ status: Type.Literal('ok') });

const ReadinessChecksSchema = Type.Object({
  opensearch: StringEnum(['ok', 'unreachable'] as const),
  redis: StringEnum(['ok', 'unreachable'] as const),
});

const ReadinessSchema = Type.Object({ status: StringEnum(['ok', 'unavailable'] as const), checks: ReadinessChecksSchema });

/** The readiness probe's 503: the error body with the checks that failed. */
const ReadinessErrorSchema = Type.Intersect([
  component('Error', ErrorBodySchema),
  Type.Object({ checks: Type.Unsafe<Static<typeof ReadinessChecksSchema>>({ $ref: '#/components/schemas/Readiness/properties/checks' }) }),
]);

const ProtectedResourceMetadataSchema = Type.Object(
  {
    resource: Type.String({ format: 'uri' }),
    authorization_servers: Type.Array(Type.String({ format: 'uri' })),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(StringEnum(['header'] as const)),
  },
  { description: 'OAuth 2.0 Protected Resource Metadata (RFC 9728).' },
);

/** What a client may rely on in the served OpenAPI document. */
const OpenApiDocumentSchema = Type.Object({
  openapi: Type.String({ pattern: '^3\\.1\\.' }),
  info: Type.Object({ version: Type.String() }),
  paths: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
});

export type MatchedSegment = Static<typeof MatchedSegmentSchema>;
export type SearchResultEpisode = Static<typeof SearchResultEpisodeSchema>;
export type SearchResult = Static<typeof SearchResultSchema>;
export type EpisodeRow = Static<typeof EpisodeSchema>;
export type KeyMoment = Static<typeof KeyMomentSchema>;
export type Chapter = Static<typeof ChapterSchema>;
export type RelatedEpisode = Static<typeof RelatedEpisodeSchema>;
export type ErrorBody = Static<typeof ErrorBodySchema>;
export type ChannelSummary = Static<typeof ChannelSummarySchema>;
export type ChannelList = Static<typeof ChannelListSchema>;
export type EpisodePage = Static<typeof EpisodePageSchema>;
export type Health = Static<typeof HealthSchema>;
export type Readiness = Static<typeof ReadinessSchema>;

/** The shapes by their OpenAPI component names. */
export const SHAPES = {
  Error: ErrorBodySchema,
  ChannelSummary: ChannelSummarySchema,
  ChannelList: ChannelListSchema,
  Episode: EpisodeSchema,
  EpisodePage: EpisodePageSchema,
  MatchedSegment: MatchedSegmentSchema,
  MatchedVia: MatchedViaSchema,
  SearchResultEpisode: SearchResultEpisodeSchema,
  SearchResult: SearchResultSchema,
  KeyMoment: KeyMomentSchema,
  Chapter: ChapterSchema,
  RelatedEpisode: RelatedEpisodeSchema,
  ProtectedResourceMetadata: ProtectedResourceMetadataSchema,
  Health: HealthSchema,
  Readiness: ReadinessSchema,
  ReadinessError: ReadinessErrorSchema,
  OpenApiDocument: OpenApiDocumentSchema,
} as const;

/** `schema` with every `#/components/schemas/<name>` reference among {@link SHAPES} replaced by that shape: one self-contained schema (the MCP tool's). */
export function inlineShapes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inlineShapes);
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '') as keyof typeof SHAPES;
    if (!(name in SHAPES)) throw new Error(`no shape named by ${ref}`);
    return inlineShapes(SHAPES[name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineShapes(v)]));
}
