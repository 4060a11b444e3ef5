// The search pipeline's one error type, with the code the API's error catalogue renders.
import { isMissingIndex, isTransient } from '../store/transient.js';

/**
 * Thrown when OpenSearch answers a search we built with an error: a per-item `_msearch`
 * error or a 400 on the whole request. Such an error is our bug or a broken index:
 * code `search_failed`, HTTP 500, and `detail` goes to the log, never to the caller.
 * A per-item failure that is transient (overload, a node not ready, a cluster block; see
 * `isTransient`) or a missing index is not our query's fault: code
 * `store_unavailable`, HTTP 503, like the connection errors and timeouts, which are not
 * wrapped and propagate as the client's own errors. A query the engine finds too large
 * (`too_many_clauses`, which the term bound in query-terms.ts should already prevent) is
 * the caller's: code `query_too_complex`, HTTP 400.
 */
export class SearchError extends Error {
  readonly code: 'search_failed' | 'store_unavailable' | 'query_too_complex';
  readonly status: 400 | 500 | 503;
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
    if (causedByTooManyClauses(detail)) {
      this.code = 'query_too_complex';
      this.status = 400;
    } else {
      this.code = transient ? 'store_unavailable' : 'search_failed';
      this.status = transient ? 503 : 500;
    }
  }
}

const TOO_MANY_CLAUSES = new Set(['too_many_clauses', 'too_many_nested_clauses']);

/** Whether an engine error, or any of its root causes or causes, is the clause limit. */
export function causedByTooManyClauses(detail: unknown, depth = 0): boolean {
  if (!detail || typeof detail !== 'object' || depth > 8) return false;
  const e = detail as { type?: unknown; caused_by?: unknown; root_cause?: unknown; error?: unknown };
  if (typeof e.type === 'string' && TOO_MANY_CLAUSES.has(e.type)) return true;
  const roots = Array.isArray(e.root_cause) ? e.root_cause : [];
  return [e.caused_by, e.error, ...roots].some((c) => causedByTooManyClauses(c, depth + 1));
}
