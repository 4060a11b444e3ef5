// Request parameters of every operation: published in the OpenAPI document and the schemas ajv validates requests with.
import type { JsonSchema } from './schemas.js';
import { SORTS, STATUS_VIEWS } from '../store/episode-queries.js';

export interface ParameterDef {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  /** Self-contained (no `$ref`), so the same object is compiled by the request validator. */
  schema: JsonSchema;
}

/** Comma-separated ids without empty items or spaces (decision 3). */
const ID_LIST: JsonSchema = { type: 'string', pattern: '^[^,\\s]+(,[^,\\s]+)*$', maxLength: 4000 };
const ONE_ID: JsonSchema = { type: 'string', pattern: '^[^,\\s]+$', maxLength: 200 };

const idList = (name: string, what: string): ParameterDef => ({
  name,
  in: 'query',
  description: `Comma-separated ${what}; an episode matches when it has any of them (OR within the list, AND across parameters). An empty item is a 400.`,
  schema: ID_LIST,
});

export const PARAMS = {
  slug: {
    name: 'slug',
    in: 'path',
    required: true,
    description: "The channel's slug (from `GET /api/v1/channels`), lowercase `[a-z0-9-]{1,63}`. Unknown, malformed and not-a-member give the same 404.",
    schema: { type: 'string', pattern: '^[a-z0-9-]{1,63}$' },
  },
  episodeId: {
    name: 'episodeId',
    in: 'path',
    required: true,
    description: 'Episode id. Unknown, archived and not-a-member give the same 404.',
    schema: { type: 'string' },
  },
  query: {
    name: 'query',
    in: 'query',
    description: 'Natural-language query. Wins over `q` when non-blank (decision 2); both blank or missing gives 200 with no episodes.',
    schema: { type: 'string', maxLength: 1000 },
  },
  q: {
    name: 'q',
    in: 'query',
    description: 'Alias of `query`, used only when `query` is missing or blank.',
    schema: { type: 'string', maxLength: 1000 },
  },
  fast: {
    name: 'fast',
    in: 'query',
    description: 'True skips the semantic leg (keyword only, cheaper). Accepts `true`, `false`, `1`, `0`.',
    schema: { type: 'boolean', default: false },
  },
  searchLimit: {
    name: 'limit',
    in: 'query',
    description: 'Number of episodes, 1–50 (default 10); each carries up to 3 segments.',
    schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
  },
  listLimit: {
    name: 'limit',
    in: 'query',
    description: 'Page size, 1–100 (default 20).',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  changesLimit: {
    name: 'limit',
    in: 'query',
    description: 'Changes per page, 1–100 (default 50).',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
  changesCursor: {
    name: 'cursor',
    in: 'query',
    description:
      'Opaque `cursor` of the previous answer: the changes after it. Without it, the feed from its oldest kept change. Made for another channel or view, or malformed: 400 `invalid_cursor`; older than the retention: 410 `cursor_expired` (list the catalog again).',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 2048 },
  },
  topicIds: idList('topicIds', 'topic ids'),
  personIds: idList('personIds', 'person entity ids (hosts and guests)'),
  entityIds: idList('entityIds', 'company/product entity ids'),
  episodeIds: { ...idList('episodeIds', 'episode ids'), description: 'Comma-separated episode ids; scopes the request to those episodes. An empty item is a 400.' },
  collectionId: {
    name: 'collectionId',
    in: 'query',
    description: 'One collection id (a mirrored playlist).',
    schema: ONE_ID,
  },
  year: {
    name: 'year',
    in: 'query',
    description: 'Publication year (UTC), a 4-digit integer.',
    schema: { type: 'integer', minimum: 1000, maximum: 9999 },
  },
  status: {
    name: 'status',
    in: 'query',
    description:
      'Processing-status view (decision 1): `queued` = pending, `indexing` = processing, `live` = indexed or published, `failed` = failed, `all` (default) = every non-archived status.',
    schema: { type: 'string', enum: Object.keys(STATUS_VIEWS), default: 'all' },
  },
  sort: {
    name: 'sort',
    in: 'query',
    description:
      'Row order, ties broken by episode id: `newest` (publishedAt desc, default), `popular` (viewCount desc), `longest` (durationMs desc), `oldest` (publishedAt asc). Rows without the sort value come last.',
    schema: { type: 'string', enum: Object.keys(SORTS), default: 'newest' },
  },
  cursor: {
    name: 'cursor',
    in: 'query',
    description: 'Opaque `nextCursor` of the previous page. Valid only with the same channel, filters and sort (any `limit`); otherwise 400 `invalid_cursor`.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 2048 },
  },
} satisfies Record<string, ParameterDef>;

/** Filters the list and search share. */
export const FILTER_PARAMS: ParameterDef[] = [PARAMS.topicIds, PARAMS.personIds, PARAMS.entityIds, PARAMS.episodeIds, PARAMS.collectionId, PARAMS.year];
