// The search pipeline's one error type, with the code the API's error catalogue renders.
import { isMissingIndex, isTransient } from '../store/transient.js';

/**
 * Thrown when OpenSearch answers a search we built with an error: a per-item `_msearch`
 * error or a 400 on the whole request. Such an error is our bug or a broken index:
 * code `search_failed`, HTTP 500, and `detail` goes to the log, never to the caller.
 * A per-item failure that is transient (overload, a node not ready, a cluster block; see
 * `isTransient`) or a missing index is not our query's fault: code
 * `store_unavailable`, HTTP 503, like the connection errors and timeouts, which are not
 * wrapped and propagate as the client's own errors.
 */
export class SearchError extends Error {
  readonly code: 'search_failed' | 'store_unavailable';
  readonly status: 500 | 503;
  constructor(
    message: string,
    /** What OpenSearch said, for the log. */
    readonly detail?: unknown,
    { itemStatus }: { itemStatus?: number } = {},
  ) {
    super(message);
    this.name = 'SearchError';
    const type = (detail as { type?: unknown } | undefined)?.type;
    const failure = { status: itemStatus, type: typeof type === 'string' ? type : undefined };
    const transient = isTransient(failure) || isMissingIndex(failure);
    this.code = transient ? 'store_unavailable' : 'search_failed';
    this.status = transient ? 503 : 500;
  }
}
