// The creator tool server's tool inputs and outputs: declared once in TypeBox (from REST's parameters and shapes where REST has them), read into zod for the SDK.
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { z } from 'zod';
import { Nullable } from '../../../core/contract/library-format.js';
import { inlineShapes, SHAPES } from '../../../core/contract/shapes.js';
import { ChannelPath, Defaulted, EpisodeListQuery, withOptions, type ValidQuery } from '../../openapi/parameters.js';
import { SEARCH_INPUT } from '../search-tool.js';

/** Rows of one `list_episodes` page, at most (REST allows 100: a tool answer an assistant reads stays smaller). */
export const MAX_EPISODE_ROWS = 50;
/** Transcript segments of one `get_transcript` page, at most, and by default. */
export const MAX_TRANSCRIPT_SEGMENTS = 200;
export const DEFAULT_TRANSCRIPT_SEGMENTS = 100;
/** Characters of segment text one transcript page holds at most (a segment holds at most 30,000: one longer than this would come alone). */
export const TRANSCRIPT_PAGE_CHARS = 40_000;
/** Chapters of one `get_chapters` page, at most, and by default. */
export const MAX_CHAPTERS = 200;
export const DEFAULT_CHAPTERS = 100;
/** Episode ids are the store's document ids; anything longer names no episode. */
const EPISODE_ID_CHARS = 200;

const channelSlug = (description: string) => withOptions(ChannelPath.properties.slug, { description });
const episodeId = Type.String({ minLength: 1, maxLength: EPISODE_ID_CHARS, description: 'Episode id (from `search` or `list_episodes`).' });
const offset = (what: string) => Defaulted(Type.Integer({ minimum: 0, description: `Index of the first ${what} of the page (0 first; the previous page's \`nextOffset\`).` }), 0);

/** A TypeBox object as the SDK's input shape (zod), typed by what it parses to (zod cannot infer that from a JSON Schema). */
function zodShape<T extends TObject>(schema: T) {
  return (z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject).shape as { [K in keyof ValidQuery<T>]-?: z.ZodType<ValidQuery<T>[K]> };
}

/** A TypeBox shape as the SDK's output schema (zod), with REST's component references made inline. */
const zodOutput = (schema: TSchema) => z.fromJSONSchema(inlineShapes(schema) as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject;

export const ListChannelsInput = Type.Object({});

export const SearchChannelInput = Type.Object({
  channel: Type.Optional(channelSlug('Only this channel (its slug, from `list_channels`); without it, every channel you are a member of whose plan includes API access.')),
});

export const ListEpisodesInput = Type.Object({
  channel: channelSlug('The channel (its slug, from `list_channels`).'),
  status: EpisodeListQuery.properties.status,
  sort: EpisodeListQuery.properties.sort,
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: MAX_EPISODE_ROWS, description: `Rows, 1–${MAX_EPISODE_ROWS} (default 20).` }), 20),
  cursor: withOptions(EpisodeListQuery.properties.cursor, { description: "The previous page's `nextCursor`, with the same channel, status and sort." }),
});

export const TranscriptInput = Type.Object({
  episodeId,
  offset: offset('segment'),
  limit: Defaulted(
    Type.Integer({
      minimum: 1,
      maximum: MAX_TRANSCRIPT_SEGMENTS,
      description: `Segments, 1–${MAX_TRANSCRIPT_SEGMENTS} (default ${DEFAULT_TRANSCRIPT_SEGMENTS}); a page also holds at most ${TRANSCRIPT_PAGE_CHARS} characters of text.`,
    }),
    DEFAULT_TRANSCRIPT_SEGMENTS,
  ),
});

export const ChaptersInput = Type.Object({
  episodeId,
  offset: offset('chapter'),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: MAX_CHAPTERS, description: `Chapters, 1–${MAX_CHAPTERS} (default ${DEFAULT_CHAPTERS}).` }), DEFAULT_CHAPTERS),
});

export const RelatedInput = Type.Object({ episodeId });

/** `search` across channels: REST's search episodes, each naming its channel, best first over every channel searched. */
export const CreatorSearchResultSchema = Type.Object({
  query: Type.String(),
  channels: Type.Array(Type.String(), { description: 'Slugs of the channels searched.' }),
  skipped: Type.Array(
    Type.Object({
      channel: Type.String(),
      reason: Type.String({ description: "`plan_required` (the owner's plan has no API access) or `too_many_channels` (name it with `channel`)." }),
    }),
  ),
  episodes: Type.Array(Type.Composite([SHAPES.SearchResultEpisode, Type.Object({ channel: Type.String({ description: "Slug of the episode's channel." }) })])),
  degraded: Type.Optional(SHAPES.SearchResult.properties.degraded),
});
export type CreatorSearchResult = Static<typeof CreatorSearchResultSchema>;

const TranscriptSegmentSchema = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'Position of the segment in the transcript.' }),
  startMs: Type.Integer(),
  endMs: Type.Integer(),
  speaker: Nullable(Type.String()),
  text: Type.String(),
  url: Type.String({ format: 'uri', description: 'Citation URL of the moment the segment starts.' }),
});

export const TranscriptPageSchema = Type.Object({
  episodeId: Type.String(),
  title: Type.String(),
  totalSegments: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  nextOffset: Nullable(Type.Integer({ minimum: 0, description: 'Pass as `offset` for the next page; null on the last.' })),
  segments: Type.Array(TranscriptSegmentSchema),
});
export type TranscriptPage = Static<typeof TranscriptPageSchema>;

export const ChaptersPageSchema = Type.Object({
  episodeId: Type.String(),
  totalChapters: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  nextOffset: Nullable(Type.Integer({ minimum: 0 })),
  chapters: Type.Array(SHAPES.Chapter),
});
export type ChaptersPage = Static<typeof ChaptersPageSchema>;

export const RelatedSchema = Type.Object({ episodeId: Type.String(), related: Type.Array(SHAPES.RelatedEpisode) });

/** What the SDK takes: each tool's input shape and output schema. */
export const TOOL_SCHEMAS = {
  list_channels: { input: zodShape(ListChannelsInput), output: zodOutput(SHAPES.ChannelList) },
  search: { input: { ...SEARCH_INPUT, ...zodShape(SearchChannelInput) }, output: zodOutput(CreatorSearchResultSchema) },
  list_episodes: { input: zodShape(ListEpisodesInput), output: zodOutput(SHAPES.EpisodePage) },
  get_transcript: { input: zodShape(TranscriptInput), output: zodOutput(TranscriptPageSchema) },
  get_chapters: { input: zodShape(ChaptersInput), output: zodOutput(ChaptersPageSchema) },
  get_related: { input: zodShape(RelatedInput), output: zodOutput(RelatedSchema) },
};
