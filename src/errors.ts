// The API's error catalogue: every error a client can see, keyed by a stable code (every catalogue has this form: ground/define-errors.ts).
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../core/ground/define-errors.js';
import { SearchError } from '../core/search/errors.js';
import { StoreUnavailableError, isMissingIndex, isTransient, storeFailure } from '../core/store/transient.js';

/** Every error code, its HTTP status and its default sentence. Codes never change meaning. */
export const API_ERRORS = {
  invalid_parameter: { status: 400, message: 'A request parameter is malformed.' },
  invalid_cursor: { status: 400, message: 'The cursor is malformed or was made for another query; start again without it.' },
  malformed_url: { status: 400, message: 'The request URL could not be decoded.' },
  host_missing: { status: 400, message: 'The request names no host; send the Host header of the channel.' },
  query_too_complex: { status: 400, message: 'The search query has too many distinct terms; shorten it.' },
  credential_missing: { status: 401, message: 'This endpoint needs an API key or an OAuth access token.' },
  invalid_api_key: { status: 401, message: 'The API key is invalid, expired or revoked.' },
  invalid_token: { status: 401, message: 'The access token is invalid, expired or not meant for this API.' },
  multiple_credentials: { status: 401, message: 'Send one credential: either x-api-key or Authorization, not both.' },
  unsupported_authorization: { status: 401, message: 'The Authorization header must use the Bearer scheme.' },
  origin_forbidden: { status: 403, message: 'Requests from this Origin are not accepted here (DNS-rebinding protection).' },
  // RFC 6750 §3.1: a valid token short of the scope is 403 with a scope challenge (the MCP step-up flow asks for it then); plan_required is the other 403.
  insufficient_scope: { status: 403, message: 'The access token is valid but lacks the creator:read scope; ask the authorization server for it.' },
  plan_required: { status: 403, message: "The channel owner's plan does not include API access." },
  channel_not_found: { status: 404, message: 'No such channel.' },
  episode_not_found: { status: 404, message: 'No such episode.' },
  transcript_not_found: { status: 404, message: 'This episode has no transcript yet.' },
  route_not_found: { status: 404, message: 'No such endpoint.' },
  method_not_allowed: { status: 405, message: 'Only GET, HEAD and OPTIONS are supported.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time; send it again.' },
  cursor_expired: { status: 410, message: 'The cursor is older than the change feed keeps; list the catalog again, then follow the changes from a new cursor.' },
  request_too_large: { status: 431, message: 'The request line or headers are too large (16 KB at most).' },
  rate_limited: { status: 429, message: 'Too many requests for this credential; retry after the delay in Retry-After.' },
  too_many_searches: { status: 429, message: 'Too many searches from this caller at once; retry after the delay in Retry-After.' },
  internal_error: { status: 500, message: 'Something went wrong on our side.' },
  transcript_unreadable: { status: 502, message: 'The stored transcript could not be read.' },
  store_unavailable: { status: 503, message: 'The content store is unavailable; retry shortly.' },
  search_busy: { status: 503, message: 'Too many searches are running; retry after the delay in Retry-After.' },
  jwks_unavailable: { status: 503, message: 'The token signing keys could not be fetched; retry shortly.' },
  not_ready: { status: 503, message: 'A dependency of the API is unreachable.' },
} as const satisfies ErrorCatalogue & Record<string, { status: number }>;

export type ApiErrorCode = ErrorCode<typeof API_ERRORS>;

/** Seconds a client should wait after a 503 before retrying. */
export const RETRY_AFTER_SECONDS = 5;

/** The one HTTP exception type: handlers throw it, one middleware renders it. */
export class ApiError extends defineErrors('ApiError', API_ERRORS).Error {
  /** The HTTP status answered, the code's. */
  declare readonly status: number;
  /** The query parameter at fault, for 400s. */
  readonly parameter: string | undefined;
  /** Extra response headers, such as `Retry-After`. */
  readonly headers: Record<string, string>;
  /** Additive fields of the error body (for example the readiness `checks`). */
  readonly extra: Record<string, unknown>;
  constructor(
    code: ApiErrorCode,
    {
      message,
      parameter,
      headers = {},
      extra = {},
      cause,
    }: { message?: string; parameter?: string; headers?: Record<string, string>; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { cause });
    this.parameter = parameter;
    this.headers = headers;
    this.extra = extra;
  }
}

/** Shorthand: `throw createError('invalid_parameter', { parameter: 'year', message })`. */
export function createError(code: ApiErrorCode, options?: ConstructorParameters<typeof ApiError>[1]): ApiError {
  return new ApiError(code, options);
}

/**
 * Maps anything thrown to an {@link ApiError}. The store unreachable, overloaded or not
 * set up yet (a missing index) is a 503 (the client may retry); any other OpenSearch
 * error on a query we built is our bug: 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // The store's own reads say why in the message (budget spent, index missing); the cause keeps it.
  if (error instanceof StoreUnavailableError) return storeUnavailable(error);
  if (error instanceof SearchError) {
    if (error.code === 'query_too_complex') return createError('query_too_complex', { parameter: 'query', cause: error });
    return error.status === 503 ? storeUnavailable(error) : createError('internal_error', { cause: error });
  }
  const failure = storeFailure(error);
  if (failure) {
    return isTransient(failure) || isMissingIndex(failure) ? storeUnavailable(error) : createError('internal_error', { cause: error });
  }
  const e = error as { status?: unknown; statusCode?: unknown } | undefined;
  // Express's router marks client errors, such as an undecodable path parameter, with status 400.
  if (error instanceof URIError || Number(e?.status ?? e?.statusCode) === 400) return createError('malformed_url', { cause: error });
  return createError('internal_error', { cause: error });
}

/** A 503 telling the client when to come back. */
export function storeUnavailable(cause?: unknown): ApiError {
  return createError('store_unavailable', { cause, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}
