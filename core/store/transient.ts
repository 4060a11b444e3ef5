// Whether an OpenSearch failure goes away by itself: the one rule behind the API's 503, the indexer's retries and the keys CLI's wait.
import pRetry from 'p-retry';

/**
 * What a failed store call said: the HTTP status and OpenSearch error type of an
 * answer (a whole response, or one item of a `_bulk` or `_msearch`), or that no answer came.
 */
export interface StoreFailure {
  /** No answer: connection refused or lost, timed out, no living node, aborted. */
  unreachable?: boolean;
  status?: number;
  type?: string;
  /** `type: reason` of the answer's error, or the client's own message, for logs. */
  reason?: string;
}

/**
 * Overload (429), gateway trouble (502, 504), a node not ready (503) and a request
 * timeout (408). Not 500: that is the engine failing on this very request, which a
 * retry repeats; the official clients retry 502/503/504 only for the same reason.
 */
const TRANSIENT_STATUS = new Set([408, 429, 502, 503, 504]);

/** Error types that go away by themselves, whatever status they come with. */
const TRANSIENT_TYPES = new Set([
  'cluster_block_exception', // the write block a running reindex puts on the old indices (403)
  'es_rejected_execution_exception',
  'rejected_execution_exception',
  'circuit_breaking_exception',
  'unavailable_shards_exception',
  'no_shard_available_action_exception',
  'process_cluster_event_timeout_exception',
]);

/** Errors the OpenSearch client throws when no answer came. */
const UNREACHABLE = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError', 'RequestAbortedError']);

interface ClientErrorShape {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  meta?: { statusCode?: unknown; body?: { error?: { type?: unknown; reason?: unknown } | string } };
}

/**
 * Reads what the OpenSearch client threw (a `ResponseError` or one of its connection
 * errors, recognised by name); undefined for anything else.
 */
export function storeFailure(err: unknown): StoreFailure | undefined {
  const e = (err ?? {}) as ClientErrorShape;
  const name = typeof e.name === 'string' ? e.name : '';
  if (UNREACHABLE.has(name)) return { unreachable: true, reason: `${name}: ${String(e.message)}` };
  if (name !== 'ResponseError') return undefined;
  const status = Number(e.meta?.statusCode ?? e.statusCode);
  const error = e.meta?.body?.error;
  const type = typeof error === 'object' && typeof error?.type === 'string' ? error.type : undefined;
  const reason = typeof error === 'object' ? `${error?.type}: ${error?.reason}` : (error ?? String(e.message));
  return { status: Number.isFinite(status) ? status : undefined, type, reason };
}

/** Is this failure worth retrying: no answer, a transient status, or a transient error type? */
export function isTransient({ unreachable, status, type }: StoreFailure): boolean {
  return unreachable === true || (type !== undefined && TRANSIENT_TYPES.has(type)) || (status !== undefined && TRANSIENT_STATUS.has(status));
}

/** Was the index (or alias) missing? The API reads that as a store not set up yet; the indexer as a failed job. */
export function isMissingIndex({ type }: StoreFailure): boolean {
  return type === 'index_not_found_exception';
}

/** Is anything thrown by the OpenSearch client transient? False for every other error. */
export function isTransientStoreError(err: unknown): boolean {
  const failure = storeFailure(err);
  return failure !== undefined && isTransient(failure);
}

export interface RetryOptions {
  /** How long to keep retrying, counted from the first attempt. Default 30 s. */
  budgetMs?: number;
  /** Wait before the first retry; doubled after each, up to `maxDelayMs`. Default 250 ms. */
  firstDelayMs?: number;
  /** Longest wait between attempts. Default 4 s. */
  maxDelayMs?: number;
  /** Called before each wait, with the failure that caused it and its attempt number. */
  onRetry?: (err: unknown, attempt: number) => void;
}

/**
 * Runs `call` again, with exponential backoff, while it fails transiently and the budget
 * lasts (the last wait is cut to what is left of it); then throws its last error. For
 * callers that can afford to wait (an ops command), never for an API request, which has
 * its own short time budget.
 */
export function retryTransient<T>(call: () => Promise<T>, { budgetMs = 30_000, firstDelayMs = 250, maxDelayMs = 4_000, onRetry }: RetryOptions = {}): Promise<T> {
  return pRetry(() => call(), {
    retries: Number.POSITIVE_INFINITY,
    factor: 2,
    minTimeout: firstDelayMs,
    maxTimeout: maxDelayMs,
    maxRetryTime: budgetMs,
    shouldRetry: ({ error, attemptNumber }) => {
      if (!isTransientStoreError(error)) return false;
      onRetry?.(error, attemptNumber);
      return true;
    },
  });
}

/**
 * The store cannot serve this request: its time budget is spent, or an index is missing.
 * The API answers it as 503 `store_unavailable` (see `toApiError`); raised by the store's
 * own reads, which know nothing of HTTP.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
