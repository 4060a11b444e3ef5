// Indexer error classes: the class decides whether a job is retried (BullMQ's rule).
import { UnrecoverableError } from 'bullmq';

/** Stable codes of indexer failures, for logs and summaries. */
export type IndexErrorCode =
  | 'store_unavailable'
  | 'store_rejected'
  | 'invalid_record'
  | 'model_mismatch'
  | 'embedding_failed';

/** A transient failure (OpenSearch 429/5xx, a write block during reindex, connection loss): retry with backoff. */
export class RetryableIndexError extends Error {
  constructor(
    readonly code: IndexErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RetryableIndexError';
  }
}

/**
 * A failure that can never succeed on retry (the record or a document is refused by
 * a mapping, the index was built for another model): the job fails at once.
 */
export class UnrecoverableIndexError extends UnrecoverableError {
  constructor(
    readonly code: IndexErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message);
    if (options?.cause !== undefined) this.cause = options.cause;
    this.name = 'UnrecoverableIndexError';
  }
}

/** Error types OpenSearch answers with that go away by themselves. */
const TRANSIENT_TYPES = new Set([
  'cluster_block_exception', // write block set by a running reindex
  'es_rejected_execution_exception',
  'rejected_execution_exception',
  'circuit_breaking_exception',
  'unavailable_shards_exception',
  'no_shard_available_action_exception',
  'process_cluster_event_timeout_exception',
]);

/** Is an HTTP status or OpenSearch error type worth retrying? */
export function isTransient(status: number | undefined, type?: string): boolean {
  if (type && TRANSIENT_TYPES.has(type)) return true;
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

interface ClientErrorShape {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: { error?: { type?: string; reason?: string } | string } };
}

/**
 * Turns anything the OpenSearch client threw into a {@link RetryableIndexError} or an
 * {@link UnrecoverableIndexError}; indexer errors pass through unchanged.
 */
export function classifyStoreError(err: unknown, what: string): Error {
  if (err instanceof RetryableIndexError || err instanceof UnrecoverableIndexError) return err;
  const e = (err ?? {}) as ClientErrorShape;
  if (e.name === 'ConnectionError' || e.name === 'TimeoutError' || e.name === 'NoLivingConnectionsError') {
    return new RetryableIndexError('store_unavailable', `${what}: ${e.name}: ${e.message}`, { cause: err });
  }
  if (e.name === 'ResponseError') {
    const status = e.meta?.statusCode;
    const body = e.meta?.body?.error;
    const type = typeof body === 'object' ? body?.type : undefined;
    const reason = typeof body === 'object' ? `${body?.type}: ${body?.reason}` : (body ?? e.message);
    const message = `${what}: ${status} ${reason}`;
    return isTransient(status, type)
      ? new RetryableIndexError('store_unavailable', message, { cause: err })
      : new UnrecoverableIndexError('store_rejected', message, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Runs one store call and classifies whatever it throws. */
export async function storeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw classifyStoreError(err, what);
  }
}
