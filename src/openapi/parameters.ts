// Request parameters of every operation, one TypeBox object each: the OpenAPI document lists them, ajv validates requests with them and handlers are typed by them.
import { CloneType, Type, type SchemaOptions, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../../core/contract/library-format.js';
import { SORTS, STATUS_VIEWS, type SortName, type StatusView } from '../store/episode-queries.js';
import { SEARCH_LIMITS } from '../../core/search/types.js';
import { EpisodeFiltersSchema, FilterId } from '../../core/store/filters.js';

declare const defaulted: unique symbol;

/** A parameter the validator fills in when it is absent: optional on the wire, always set for the handler. */
type TDefaulted<T extends TSchema> = TOptional<T> & { [defaulted]: true };

export const Defaulted = <T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> => Type.Optional(withOptions(schema, { default: value })) as TDefaulted<T>;

/** The same schema with `options` set over its own (another description, default or bound). */
export const withOptions = <T extends TSchema>(schema: T, options: SchemaOptions): T => CloneType({ ...schema, ...options });

const described = <T extends TSchema>(schema: T, description: string): T => withOptions(schema, { description });

/**
 * What a handler gets for a query schema once validated: its `Static` type, with every
 * defaulted parameter present.
 */
export type ValidQuery<T extends TObject> = Static<T> & {
  [K in keyof T['properties'] as T['properties'][K] extends { [defaulted]: true } ? K : never]-?: Static<T['properties'][K]>;
};

/** An id list in a query string: the filter's ids comma-separated, without empty items or spaces (decision 3). */
const ID = String(FilterId.pattern).slice(1, -1);
const commaList = (description: string) => Type.Optional(Type.String({ pattern: `^${ID}(,${ID})*$`, maxLength: 4000, description }));
const anyOf = (what: string) =>
  commaList(`Comma-separated ${what}; an episode matches when it has any of them (OR within the list, AND across parameters). An empty item is a 400.`);

/** A path segment the router captures; required by construction. */
const Slug = Type.String({
  pattern: '^[a-z0-9-]{1,63}$',
  description: "The channel's slug (from `GET /api/v1/channels`), lowercase `[a-z0-9-]{1,63}`. Unknown, malformed and not-a-member give the same 404.",
});
const EpisodeId = Type.String({ description: 'Episode id. Unknown, archived and not-a-member give the same 404.' });

export const ChannelPath = Type.Object({ slug: Slug });
export const EpisodePath = Type.Object({ episodeId: EpisodeId });

/** Filters the list and search share, in the REST form of {@link EpisodeFiltersSchema}: lists comma-separated. */
export const FilterQuery = Type.Object({
  topicIds: anyOf('topic ids'),
  personIds: anyOf('person entity ids (hosts and guests)'),
  entityIds: anyOf('company/product entity ids'),
  episodeIds: commaList('Comma-separated episode ids; scopes the request to those episodes. An empty item is a 400.'),
  collectionId: Type.Optional(described(FilterId, 'One collection id (a mirrored playlist).')),
  year: Type.Optional(described(EpisodeFiltersSchema.properties.year, 'Publication year (UTC), a 4-digit integer.')),
});

/** An opaque keyset cursor: base64url. */
const Cursor = (description: string) => Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 2048, description }));

const Limit = (maximum: number, value: number, description: string) => Defaulted(Type.Integer({ minimum: 1, maximum, description }), value);

/** `GET /api/v1/channels/{slug}/search`. */
export const SearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      maxLength: SEARCH_LIMITS.queryChars,
      description: 'Natural-language query. Wins over `q` when non-blank (decision 2); both blank or missing gives 200 with no episodes.',
    }),
  ),
  q: Type.Optional(Type.String({ maxLength: SEARCH_LIMITS.queryChars, description: 'Alias of `query`, used only when `query` is missing or blank.' })),
  fast: Defaulted(Type.Boolean({ description: 'True skips the semantic leg (keyword only, cheaper). Accepts `true`, `false`, `1`, `0`.' }), false),
  limit: Limit(
    SEARCH_LIMITS.maxEpisodes,
    SEARCH_LIMITS.restEpisodes,
    `Number of episodes, 1–${SEARCH_LIMITS.maxEpisodes} (default ${SEARCH_LIMITS.restEpisodes}); each carries up to 3 segments.`,
  ),
  ...FilterQuery.properties,
});
/** Search parameters as the handler gets them: validated, converted, defaults filled in. */
export type SearchQueryValues = ValidQuery<typeof SearchQuery>;

/** `GET /api/v1/channels/{slug}/episodes`. */
export const EpisodeListQuery = Type.Object({
  status: Defaulted(
    StringEnum(Object.keys(STATUS_VIEWS) as StatusView[], {
      description:
        'Processing-status view (decision 1): `queued` = pending, `indexing` = processing, `live` = indexed or published, `failed` = failed, `all` (default) = every non-archived status.',
    }),
    'all',
  ),
  sort: Defaulted(
    StringEnum(Object.keys(SORTS) as SortName[], {
      description:
        'Row order, ties broken by episode id: `newest` (publishedAt desc, default), `popular` (viewCount desc), `longest` (durationMs desc), `oldest` (publishedAt asc). Rows without the sort value come last.',
    }),
    'newest',
  ),
  cursor: Cursor('Opaque `nextCursor` of the previous page. Valid only with the same channel, filters and sort (any `limit`); otherwise 400 `invalid_cursor`.'),
  limit: Limit(100, 20, 'Page size, 1–100 (default 20).'),
  ...FilterQuery.properties,
});

/** `GET /api/v1/channels/{slug}/changes`. */
export const ChangesQuery = Type.Object({
  cursor: Cursor(
    'Opaque `cursor` of the previous answer: the changes after it. Without it, the feed from its oldest kept change. Made for another channel or view, or malformed: 400 `invalid_cursor`; older than the retention: 410 `cursor_expired` (list the catalog again).',
  ),
  limit: Limit(100, 50, 'Changes per page, 1–100 (default 50).'),
});
