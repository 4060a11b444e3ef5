// The safe fetcher's error catalogue: every refusal and failure keyed by a stable code, whether a retry may help,
// and the sentence a creator reads ("the audio URL answered 404").
import { parseRetryAfter } from '../openai-protocol.js';

/** Every failure code and whether it is transient by default. Codes never change meaning. */
export const FETCH_ERRORS = {
  bad_url: { transient: false },
  scheme: { transient: false },
  private_address: { transient: false },
  too_many_redirects: { transient: false },
  insecure_redirect: { transient: false },
  too_large: { transient: false },
  timeout: { transient: true },
  /** A body arriving slower than the caller's floor: a host that trickles is not retried into holding a slot again. */
  too_slow: { transient: false },
  /** Transient for 429 and 5xx only (decided in the constructor). */
  http_status: { transient: false },
  network: { transient: true },
  /** A Content-Encoding we do not decode: an unknown coding, or more stacked codings than `MAX_CONTENT_CODINGS`. */
  bad_encoding: { transient: false },
  outside_folder: { transient: false },
  symlink: { transient: false },
  not_a_file: { transient: false },
  not_found: { transient: false },
} as const satisfies Record<string, { transient: boolean }>;

export type FetchErrorCode = keyof typeof FETCH_ERRORS;

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
export class FetchError extends Error {
  readonly code: FetchErrorCode;
  readonly url: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly limit?: number;
  readonly transient: boolean;

  constructor(code: FetchErrorCode, url: string, message: string, { status, retryAfterMs, limit, cause }: FetchErrorDetails = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'FetchError';
    this.code = code;
    this.url = url;
    if (status !== undefined) this.status = status;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    if (limit !== undefined) this.limit = limit;
    this.transient = code === 'http_status' ? status === 429 || (status !== undefined && status >= 500) : FETCH_ERRORS[code].transient;
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
    case 'bad_url':
      return `${what} is not a valid URL`;
    case 'scheme':
      return `${what} is not an http or https URL`;
    case 'private_address':
      return `${what} points at a private address`;
    case 'too_many_redirects':
      return `${what} redirected more than ${err.limit ?? 5} times`;
    case 'insecure_redirect':
      return `${what} redirected from https to plain http`;
    case 'too_large':
      return err.limit === undefined ? `${what} is too large` : `${what} is larger than ${formatBytes(err.limit)}`;
    case 'timeout':
      return err.limit === undefined ? `${what} did not answer in time` : `${what} did not answer within ${Math.round(err.limit / 1000)} s`;
    case 'too_slow':
      return `${what} sent its data slower than ${err.limit === undefined ? 'the allowed rate' : `${formatBytes(err.limit)}/s`}, so the download was stopped`;
    case 'http_status':
      return `${what} answered ${err.status ?? 'an HTTP error'}`;
    case 'network':
      return `${what} could not be reached`;
    case 'bad_encoding':
      return `${what} was sent compressed in a way that is not accepted`;
    case 'outside_folder':
      return `${what} is outside the folder it may be read from`;
    case 'symlink':
      return `${what} is a symbolic link, which is not followed`;
    case 'not_a_file':
      return `${what} is not a regular file`;
    case 'not_found':
      return `${what} was not found`;
  }
}
