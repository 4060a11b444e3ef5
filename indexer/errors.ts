// Indexer error classes: the class decides whether a job is retried (BullMQ's rule).
import { UnrecoverableError } from 'bullmq';
import pRetry from 'p-retry';
import { isTransient, storeFailure } from '../src/store/transient.js';

/** Stable codes of indexer failures, for logs and summaries. */
export type IndexErrorCode =
  | 'store_unavailable'
  | 'store_rejected'
  | 'invalid_record'
  | 'model_mismatch'
  | 'embedding_failed';

/** A transient failure (OpenSearch overloaded or not ready, a write block during reindex, connection loss): retry with backoff. */
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

/**
 * Turns anything the OpenSearch client threw into a {@link RetryableIndexError} or an
 * {@link UnrecoverableIndexError}; indexer errors pass through unchanged. A missing
 * index is unrecoverable: the job cannot succeed until the indices are provisioned.
 */
export function classifyStoreError(err: unknown, what: string): Error {
  if (err instanceof RetryableIndexError || err instanceof UnrecoverableIndexError) return err;
  const failure = storeFailure(err);
  if (!failure) return err instanceof Error ? err : new Error(String(err));
  const message = failure.unreachable ? `${what}: ${failure.reason}` : `${what}: ${failure.status} ${failure.reason}`;
  return isTransient(failure)
    ? new RetryableIndexError('store_unavailable', message, { cause: err })
    : new UnrecoverableIndexError('store_rejected', message, { cause: err });
}

/** Runs one store call and classifies whatever it throws. */
export async function storeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw classifyStoreError(err, what);
  }
}

/**
 * Runs `call` up to `attempts` times while it throws a {@link RetryableIndexError},
 * waiting `baseDelayMs`·2ⁿ between tries; anything else is thrown at once.
 */
export function retryIndexErrors<T>(
  call: () => Promise<T>,
  { attempts, baseDelayMs, onRetry }: { attempts: number; baseDelayMs: number; onRetry?: (err: RetryableIndexError, attempt: number) => void },
): Promise<T> {
  return pRetry(() => call(), {
    retries: attempts - 1,
    factor: 2,
    minTimeout: baseDelayMs,
    shouldRetry: ({ error, attemptNumber }) => {
      if (!(error instanceof RetryableIndexError)) return false;
      onRetry?.(error, attemptNumber);
      return true;
    },
  });
}
