// The API's public shapes, written once as JSON Schemas (TypeBox): the TypeScript types, the OpenAPI components and the MCP tool's output schema all come from here.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum } from './library-format.js';

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

export const MatchedViaSchema = Type.Array(StringEnum(Object.keys(MATCHED_VIA_DESCRIPTIONS) as MatchedVia[]), {
  // One list item per value, quoted from the table above, so the document cannot drift from it.
  description: `Why a result is there:\n${Object.entries(MATCHED_VIA_DESCRIPTIONS)
    .map(([value, meaning]) => `- \`${value}\`: ${meaning}`)
    .join('\n')}`,
});

/** A character range of a text, `end` exclusive. */
export const TermRangeSchema = Type.Object({ start: Type.Integer({ minimum: 0 }), end: Type.Integer({ minimum: 1 }) });

export const MatchedSegmentSchema = Type.Object(
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

export const SearchResultEpisodeSchema = Type.Object({
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

export const SearchResultSchema = Type.Object({
  query: Type.Optional(Type.String({ description: 'The query searched: `query` when non-blank, else `q`; `""` when both are blank.' })),
  episodes: Type.Array(component('SearchResultEpisode', SearchResultEpisodeSchema)),
  degraded: Type.Optional(
    StringEnum(['embedder_busy', 'embedder_failed'] as const, {
      description:
        "Present only when a hybrid search ran keyword-only: `embedder_busy` (every query-embedding worker busy and its queue full, or the query vector not ready within the API's short wait), `embedder_failed` (the model failed on this query). No hit then has `semantic` in `matchedVia`; retrying later may add semantic matches.",
    }),
  ),
});

export const EpisodeSchema = Type.Object(
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
    status: StringEnum(['pending', 'processing', 'indexed', 'failed', 'published'] as const),
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

export const KeyMomentSchema = Type.Object({
  type: Type.String({ description: 'Highlight kind, an open list: story, qa, prediction, insight, debate, quote, …' }),
  title: Type.String({ description: 'A self-contained citable claim.' }),
  startMs: Type.Integer(),
  endMs: Type.Optional(Type.Integer()),
});

export const ChapterSchema = Type.Object({
  title: Type.String(),
  startMs: Type.Integer(),
  endMs: Type.Integer(),
  moments: Type.Array(component('KeyMoment', KeyMomentSchema)),
});

export const RelatedEpisodeSchema = Type.Object(
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

export type MatchedSegment = Static<typeof MatchedSegmentSchema>;
export type SearchResultEpisode = Static<typeof SearchResultEpisodeSchema>;
export type SearchResult = Static<typeof SearchResultSchema>;
export type EpisodeRow = Static<typeof EpisodeSchema>;
export type KeyMoment = Static<typeof KeyMomentSchema>;
export type Chapter = Static<typeof ChapterSchema>;
export type RelatedEpisode = Static<typeof RelatedEpisodeSchema>;

/** The shapes by their OpenAPI component names. */
export const SHAPES = {
  Episode: EpisodeSchema,
  MatchedSegment: MatchedSegmentSchema,
  MatchedVia: MatchedViaSchema,
  SearchResultEpisode: SearchResultEpisodeSchema,
  SearchResult: SearchResultSchema,
  KeyMoment: KeyMomentSchema,
  Chapter: ChapterSchema,
  RelatedEpisode: RelatedEpisodeSchema,
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
