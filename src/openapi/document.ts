// Builds the OpenAPI 3.1 document from the operations, parameters and schemas of this folder.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Config } from '../../core/config/load.js';
import type { SHAPES } from '../../core/contract/shapes.js';
import { GetHealth, GetReadiness, OPERATIONS, SearchChannel, type OperationDef } from './operations.js';
import { SCHEMAS, type JsonSchema } from './schemas.js';

export const API_VERSION_LABEL = '1.0.0';

const header = (description: string, schema: JsonSchema, required = false) => ({ description, required, schema });

const HEADERS = {
  'X-Request-Id': header('Request id: the incoming one when it matches `^[A-Za-z0-9._-]{1,128}$`, else a new one.', { type: 'string' }, true),
  'Cache-Control': header('Always `private, no-store`.', { type: 'string', const: 'private, no-store' }, true),
  RateLimit: header(
    'Remaining quota of this credential (IETF httpapi ratelimit headers draft 8), e.g. `"600-in-1min"; r=599; t=60`. Absent only while the rate-limit store is unreachable (the API then fails open).',
    { type: 'string' },
  ),
  'RateLimit-Policy': header('Quota policy, e.g. `"600-in-1min"; q=600; w=60; pk=:…:`.', { type: 'string' }),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'string', pattern: '^[0-9]+$' }, true),
  'WWW-Authenticate': header(
    'Bearer challenge: `Bearer realm="api", resource_metadata="<base>/.well-known/oauth-protected-resource", scope="creator:read"`, plus `error="invalid_token"` when a credential was presented.',
    { type: 'string' },
    true,
  ),
  Deprecation: header('Present when this API version is deprecated (RFC 9745), e.g. `@1735689600`.', { type: 'string' }),
  Sunset: header('Present when a removal date is set (RFC 8594), an HTTP date.', { type: 'string' }),
  Link: header('Present when a successor is set: `<…>; rel="successor-version"`.', { type: 'string' }),
};

type HeaderName = keyof typeof HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

const COMMON_HEADERS: HeaderName[] = ['X-Request-Id', 'Cache-Control', 'RateLimit', 'RateLimit-Policy'];
const VERSIONED_HEADERS: HeaderName[] = [...COMMON_HEADERS, 'Deprecation', 'Sunset', 'Link'];

const errorResponse = (description: string, extra: HeaderName[] = [], schemaName = 'Error') => ({
  description,
  headers: headerRefs([...VERSIONED_HEADERS, ...extra]),
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } },
});

const RESPONSES = {
  BadRequest: errorResponse('A malformed parameter (the body names it in `parameter`) or an undecodable URL.'),
  Unauthorized: errorResponse(
    'Credential missing or invalid: unknown, revoked or malformed API key; a token that is expired, not yet valid, for another audience or issuer, badly signed, or without the `creator:read` scope.',
    ['WWW-Authenticate'],
  ),
  Forbidden: errorResponse(
    "The channel owner's plan has no API access (free plan), code `plan_required`; or a valid access token lacks the `creator:read` scope, code `insufficient_scope`, " +
      'with `WWW-Authenticate: Bearer error="insufficient_scope", scope="creator:read", …` (RFC 6750 §3.1): ask the authorization server for that scope.',
  ),
  NotFound: errorResponse(
    'Unknown id, or a channel/episode of a channel the caller is not a member of (the same body either way); an unpublished episode on anonymous reads; for the transcript, none stored yet (`transcript_not_found`).',
  ),
  Gone: errorResponse(
    'The change-feed cursor is older than the retention, or points past the end of a log that was lost (`cursor_expired`): changes after it may be gone. ' +
      'List the catalog again, then follow the changes from a new cursor.',
  ),
  RequestTimeout: errorResponse(
    "The request line and headers (or the whole request) did not arrive within the server's timeout; answered before routing, so without rate-limit headers.",
  ),
  RequestTooLarge: errorResponse('The request line (URL) or the headers exceed 16 KB; answered before routing, so without rate-limit headers.'),
  TooManyRequests: errorResponse(
    'Rate limit of this credential (or IP, without one) exceeded; or this IP presented too many unknown API keys in the window (then refused before any lookup, without rate-limit headers); ' +
      'or, for a search, this caller already holds its share of the running searches (`too_many_searches`, `Retry-After: 1`, refused before any lookup).',
    ['Retry-After'],
  ),
  InternalError: errorResponse('An unexpected error on our side (logged).'),
  BadGateway: errorResponse('The stored transcript could not be read or fails validation.'),
  ServiceUnavailable: errorResponse('The content store is unreachable or timed out.', ['Retry-After']),
};

const STATUS_RESPONSE: Record<number, keyof typeof RESPONSES> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'RequestTimeout',
  410: 'Gone',
  429: 'TooManyRequests',
  431: 'RequestTooLarge',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
};

const DESCRIPTION = `Read-only JSON API over podcast and video channels: catalog, word-timed transcripts, chapters, related episodes and hybrid search that cites the exact moment.

Every endpoint is a GET. Every body is JSON, errors included: \`{ "error", "code", "requestId" }\` (plus \`parameter\` on 400s). An unknown route is 404 \`route_not_found\`; a method other than GET, HEAD or OPTIONS on a route's path is 405 \`method_not_allowed\` with \`Allow: GET, HEAD, OPTIONS\`. \`/api/*\` is an alias of \`/api/v1/*\`, and the same paths answer on every channel host (\`<slug>.<base domain>\` or the channel's custom domain). URLs in responses use the channel's host (its custom domain when it has one) and the configured scheme (\`CHANNEL_URL_SCHEME\`, https by default).

Rules the specification left open (see docs/api.md):
- \`status\` views: \`queued\` = pending, \`indexing\` = processing, \`live\` = indexed or published, \`failed\` = failed, \`all\` = every non-archived status. Archived episodes are never returned.
- \`query\` wins over \`q\` when non-blank; both blank is 200 with no episodes.
- Malformed parameters are 400 naming the parameter; unknown parameters are ignored; a parameter given twice is malformed.
- Page sizes: list 20 (\`limit\` 1–100), search 10 (\`limit\` 1–50), up to 3 segments per episode.
- Cursors are opaque and bound to the channel, filters and sort they were made for.
- Authentication: \`x-api-key\` or \`Authorization: Bearer\`; a Bearer value starting with \`svc_\` is an API key, anything else an OAuth access token (JWT, RS256/ES256, scope \`creator:read\`). Sending both headers is 401 \`multiple_credentials\`. Membership and plan are read at every call; revocation counts from the next request.
- Rate limit per credential (per IP without one), shared by all API processes; \`RateLimit\`/\`RateLimit-Policy\` on responses, \`Retry-After\` on 429. When the rate-limit store is down the API keeps answering without limits (fail open).
- The content store unreachable or slower than the request budget is 503 with \`Retry-After\`.
- Searches are admitted a few at a time: one that finds no place after a short wait is 503 \`search_busy\` with \`Retry-After: 1\`, never a slow or silently weaker answer; when its caller already holds its share of the running searches it is 429 \`too_many_searches\` instead (the client's own flood, not an outage). A search whose query vector is late runs keyword-only and says so (\`degraded\`).
- \`/healthz\` is not rate limited (it touches no dependency).`;

/** One OpenAPI parameter per property of an operation's parameter object, the property's description shown beside its schema. */
function parametersOf(where: 'path' | 'query', params: TObject): Record<string, unknown>[] {
  return Object.entries(params.properties).map(([name, { description, ...schema }]) => ({
    name,
    in: where,
    required: params.required?.includes(name) ?? false,
    description,
    schema,
  }));
}

const COMPONENT_NAMES = new Map<unknown, string>(Object.entries(SCHEMAS).map(([name, schema]) => [schema, name]));

/** An operation's success body in the document: a reference to its component, or an array of one; anything else throws, at start-up. */
function responseSchema(op: OperationDef): JsonSchema {
  const ref = (schema: TSchema): JsonSchema | undefined => {
    const name = COMPONENT_NAMES.get(schema);
    return name === undefined ? undefined : { $ref: `#/components/schemas/${name}` };
  };
  const items = op.response.type === 'array' ? ref(op.response.items as TSchema) : undefined;
  const schema = ref(op.response) ?? (items && { type: 'array', items });
  if (!schema) throw new Error(`${op.operationId}: its response is no component of the document (src/openapi/schemas.ts), nor an array of one`);
  return schema;
}

function buildOperation(op: OperationDef, { anonymousRead }: { anonymousRead: boolean }): Record<string, unknown> {
  // The liveness probe is not rate limited: it touches no dependency, Redis included.
  const limited = op !== GetHealth;
  const responses: Record<string, unknown> = {
    [op.success.status]: {
      description: op.success.description,
      headers: headerRefs(op.path.startsWith('/api/') ? VERSIONED_HEADERS : limited ? COMMON_HEADERS : ['X-Request-Id', 'Cache-Control']),
      content: { 'application/json': { schema: responseSchema(op) } },
      ...(op.success.links ? { links: op.success.links } : {}),
    },
  };
  for (const status of [...new Set([...op.errors, 408, ...(limited ? [429] : []), 431, 500, 503])].sort((a, b) => a - b)) {
    responses[status] = { $ref: `#/components/responses/${STATUS_RESPONSE[status]}` };
  }
  if (op === GetReadiness) {
    responses[503] = errorResponse('OpenSearch or Redis is unreachable.', ['Retry-After'], 'ReadinessError');
  }
  if (op === SearchChannel) {
    responses[503] = errorResponse(
      'The content store is unreachable or timed out (`store_unavailable`, `Retry-After: 5`); or too many searches are running (`search_busy`, `Retry-After: 1`): ' +
        'this API process runs a few searches at once and lets a few more wait up to a second, and refuses the rest at once, before any lookup ' +
        '(so without rate-limit headers). A busy refusal is safe to retry after the delay; lists, transcripts and the other endpoints are not held back by searches.',
      ['Retry-After'],
    );
  }
  const parameters = [...parametersOf('path', op.params), ...parametersOf('query', op.query)];
  const security = op.auth === 'none' ? [] : [{ ApiKeyHeader: [] }, { BearerAuth: ['creator:read'] }, ...(anonymousRead && op.anonymous ? [{}] : [])];
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: op.tags,
    security,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  };
}

/** One line per tag, so a generated reference (and Redocly's `tag-description` rule) says what each group is. */
const TAGS = [
  { name: 'channels', description: 'The channels the caller is a member of: the discovery call that yields the slugs the other endpoints take.' },
  { name: 'episodes', description: "A channel's catalog and its change feed; an episode's word-timed transcript, chapters with key moments, and related episodes." },
  { name: 'search', description: 'Hybrid keyword and semantic search in one channel; every matched segment cites the moment it begins.' },
  { name: 'meta', description: 'This document and the OAuth protected resource metadata (RFC 9728), both served without a credential.' },
  { name: 'operations', description: 'Liveness and readiness probes for orchestrators and load balancers, without a credential.' },
];

/**
 * Relative, so the server is wherever the document was fetched from (OpenAPI 3.1 §4.8.5): the API's own host or any
 * channel host, where the same paths answer. An absolute `PUBLIC_BASE_URL` would name one of them only, and the
 * default one (localhost) is what Redocly's `no-server-example.com` rule refuses.
 */
const SERVERS = [{ url: '/', description: 'The host this document was fetched from: the API host or a channel host, which answer the same paths.' }];

/** The project publishes no open-source licence: all rights reserved (an SPDX `LicenseRef-`, as SPDX has no id for that). */
const LICENSE = { name: 'Proprietary (all rights reserved)', identifier: 'LicenseRef-Proprietary' };

/** What an endpoint registered with `npm run webhooks` receives (OpenAPI 3.1 `webhooks`): one POST per change. */
const WEBHOOKS = {
  'episode.change': {
    post: {
      operationId: 'receiveEpisodeChange',
      summary: 'A change of an episode, delivered to a registered endpoint',
      description:
        'Sent per Standard Webhooks for every change of the change feed (`GET /channels/{slug}/changes`), at least once and in order per channel. Verify `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the secret) before trusting the body; de-duplicate on `webhook-id`, which is the change id and stays the same on every retry. Answer 2xx within the timeout: anything else, a redirect included, is retried with backoff. Endpoints are registered by the operator (`npm run webhooks`), never through the API.',
      tags: ['episodes'],
      security: [],
      parameters: [
        { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'The change id (`chg_…`): the same on every retry.' },
        { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9]+$' }, description: "This attempt's time, in Unix seconds." },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          schema: { type: 'string' },
          description: 'One or more space-separated `v1,<base64>` signatures (two during a secret rotation).',
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookDelivery' } } } },
      responses: {
        '2XX': { description: 'Received: the delivery is done.' },
        default: { description: 'Not received: retried with backoff (a `Retry-After` on 429 or 503 is honoured), then the endpoint is marked failing.' },
      },
    },
  },
};

/** What `buildOpenApiDocument` answers: the fields its published schema promises, and the rest of the document. */
export type OpenApiDocument = Static<typeof SHAPES.OpenApiDocument> & Record<string, unknown>;

/** The document served at `/api/v1/openapi.json`; built once per app from its configuration. */
export function buildOpenApiDocument(config: Pick<Config, 'anonymousRead' | 'rateLimit'>, operations: readonly OperationDef[] = OPERATIONS): OpenApiDocument {
  const anonymousRead = config.anonymousRead === 'published';
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) paths[op.path] = { get: buildOperation(op, { anonymousRead }) };
  const document = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Creator Content API',
      version: API_VERSION_LABEL,
      license: LICENSE,
      description:
        DESCRIPTION +
        `\n\nThis deployment: rate limit ${config.rateLimit.max} requests per ${config.rateLimit.windowSeconds} s; anonymous reading ${anonymousRead ? 'of published episodes enabled (`ANONYMOUS_READ=published`)' : 'disabled: every data endpoint needs a credential'}.`,
    },
    servers: SERVERS,
    tags: TAGS,
    paths,
    webhooks: WEBHOOKS,
    components: {
      schemas: SCHEMAS,
      headers: HEADERS,
      responses: RESPONSES,
      securitySchemes: {
        ApiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'API key `svc_` + 32 base62 + 6-char checksum; also accepted as `Authorization: Bearer svc_…`. Created with `npm run keys -- create`.',
        },
        BearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'OAuth access token with scope `creator:read`; `sub` is the user id.',
        },
      },
    },
  };
  return document;
}
