// The indexer's error catalogue: every failure of a job, keyed by a stable code, and whether BullMQ retries it (the form of every catalogue: core/ground/define-errors.ts).
import { UnrecoverableError } from 'bullmq';
import pRetry from 'p-retry';
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../core/ground/define-errors.js';
import { isTransient, storeFailure } from '../core/store/transient.js';

/** Every failure code, whether a job failing with it is retried (`transient`), and its default sentence. Codes never change meaning. */
export const INDEX_ERRORS = {
  store_unavailable: { transient: true, message: 'OpenSearch is unreachable, overloaded or write-blocked.' },
  store_rejected: { transient: false, message: 'OpenSearch refused a request or a document.' },
  invalid_record: { transient: false, message: 'A record does not match the library format.' },
  model_mismatch: { transient: false, message: 'The passages index holds vectors of another model; run `npm run reindex`.' },
  embedding_failed: { transient: false, message: 'The embedder returned the wrong number of vectors.' },
} as const satisfies ErrorCatalogue & Record<string, { transient: boolean; message: string }>;

export type IndexErrorCode = ErrorCode<typeof INDEX_ERRORS>;

/** A transient failure (OpenSearch overloaded or not ready, a write block during reindex, connection loss): retry with backoff. */
export class RetryableIndexError extends defineErrors('RetryableIndexError', INDEX_ERRORS).Error {}

/**
 * A failure that can never succeed on retry (the record or a document is refused by
 * a mapping, the index was built for another model): the job fails at once.
 */
export class UnrecoverableIndexError extends defineErrors('UnrecoverableIndexError', INDEX_ERRORS, { Base: UnrecoverableError }).Error {}

/**
 * Shorthand: `throw createIndexError('invalid_record', { message })`. The catalogue decides
 * the class, so a code is always retried, or never. `message` (what failed, and where)
 * defaults to the code's sentence.
 */
export function createIndexError(
  code: IndexErrorCode,
  { message = INDEX_ERRORS[code].message, cause }: { message?: string; cause?: unknown } = {},
): RetryableIndexError | UnrecoverableIndexError {
  return INDEX_ERRORS[code].transient ? new RetryableIndexError(code, message, { cause }) : new UnrecoverableIndexError(code, message, { cause });
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
  return createIndexError(isTransient(failure) ? 'store_unavailable' : 'store_rejected', { message, cause: err });
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
