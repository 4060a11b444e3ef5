// The safe fetcher's error catalogue: every refusal and failure keyed by a stable code, whether a retry may help,
// and the sentence a creator reads ("the audio URL answered 404").
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../define-errors.js';
import { parseRetryAfter } from '../http-headers.js';

/**
 * Every failure code, whether it is transient by default, and what the creator reads after what failed ("the feed"
 * + " could not be reached"; codes that name a limit or a status are worded in {@link describeFetchError}). Codes never
 * change meaning.
 */
export const FETCH_ERRORS = {
  bad_url: { transient: false, message: 'is not a valid URL' },
  scheme: { transient: false, message: 'is not an http or https URL' },
  private_address: { transient: false, message: 'points at a private address' },
  too_many_redirects: { transient: false, message: 'redirected too many times' },
  insecure_redirect: { transient: false, message: 'redirected from https to plain http' },
  too_large: { transient: false, message: 'is too large' },
  timeout: { transient: true, message: 'did not answer in time' },
  /** A body arriving slower than the caller's floor: a host that trickles is not retried into holding a slot again. */
  too_slow: { transient: false, message: 'sent its data too slowly, so the download was stopped' },
  /** Transient for 429 and 5xx only (decided in the constructor). */
  http_status: { transient: false, message: 'answered an HTTP error' },
  network: { transient: true, message: 'could not be reached' },
  /** A Content-Encoding we do not decode: an unknown coding, or more stacked codings than `MAX_CONTENT_CODINGS`. */
  bad_encoding: { transient: false, message: 'was sent compressed in a way that is not accepted' },
  outside_folder: { transient: false, message: 'is outside the folder it may be read from' },
  symlink: { transient: false, message: 'is a symbolic link, which is not followed' },
  not_a_file: { transient: false, message: 'is not a regular file' },
  not_found: { transient: false, message: 'was not found' },
} as const satisfies ErrorCatalogue & Record<string, { transient: boolean; message: string }>;

export type FetchErrorCode = ErrorCode<typeof FETCH_ERRORS>;

export interface FetchErrorDetails {
  /** The HTTP status, for `http_status`. */
  status?: number;
  /** When the server asked us to come back (`Retry-After`), for `http_status`. */
  retryAfterMs?: number;
  /** The limit that was passed, for `too_large` (bytes), `timeout` (ms), `too_slow` (bytes per second), `too_many_redirects` (hops) and `bad_encoding` (stacked codings). */
  limit?: number;
  cause?: unknown;
}

/**
 * A refused or failed fetch or local read. `url` is the URL (or path) that failed: for a redirect, the hop that was
 * refused. `transient`: a retry with backoff may succeed (network, timeout, 429, 5xx).
 */
export class FetchError extends defineErrors('FetchError', FETCH_ERRORS).Error {
  readonly url: string;
  declare readonly limit?: number;

  constructor(code: FetchErrorCode, url: string, message: string, { status, retryAfterMs, limit, cause }: FetchErrorDetails = {}) {
    const transient = code === 'http_status' ? status === 429 || (status !== undefined && status >= 500) : undefined;
    super(code, message, { status, retryAfterMs, cause, transient });
    this.url = url;
    if (limit !== undefined) this.limit = limit;
  }
}

/** The error a non-2xx final answer becomes for callers that want only a body (`downloadToFile`, the importer). */
export function httpStatusError(url: string, status: number, headers: Headers): FetchError {
  return new FetchError('http_status', url, `${url} answered HTTP ${status}`, { status, retryAfterMs: parseRetryAfter(headers.get('retry-after')) });
}

/** "16 MB", "1 GB", "512 KB": limits as a creator reads them (binary units, as the limits are set). */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  return `${bytes} bytes`;
}

/**
 * A sentence a creator understands, for an episode's `error` or an import note: what went wrong with `what`
 * ("the audio URL", "the feed", "the transcript file"), never a stack.
 */
export function describeFetchError(err: FetchError, what: string): string {
  switch (err.code) {
    case 'too_many_redirects':
      return `${what} redirected more than ${err.limit ?? 5} times`;
    case 'too_large':
      return err.limit === undefined ? `${what} is too large` : `${what} is larger than ${formatBytes(err.limit)}`;
    case 'timeout':
      return err.limit === undefined ? `${what} did not answer in time` : `${what} did not answer within ${Math.round(err.limit / 1000)} s`;
    case 'too_slow':
      return `${what} sent its data slower than ${err.limit === undefined ? 'the allowed rate' : `${formatBytes(err.limit)}/s`}, so the download was stopped`;
    case 'http_status':
      return `${what} answered ${err.status ?? 'an HTTP error'}`;
    default:
      return `${what} ${FETCH_ERRORS[err.code].message}`;
  }
}
