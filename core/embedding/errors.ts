// The remote embedder's error catalogue: stable codes, and which of them a retry may cure.
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../ground/define-errors.js';

/** Code → whether it is transient (retried with backoff) and its message. */
export const EMBEDDINGS_ERRORS = {
  embeddings_unreachable: { transient: true, message: 'the embeddings service did not answer' },
  embeddings_timeout: { transient: true, message: 'the embeddings service took longer than the timeout' },
  embeddings_busy: { transient: true, message: 'the embeddings service is overloaded (429 or 5xx)' },
  embeddings_rejected: { transient: false, message: 'the embeddings service refused the request' },
  embeddings_bad_answer: { transient: false, message: 'the embeddings service answered something other than one vector per input' },
  embeddings_dimension_changed: { transient: false, message: 'the embeddings service changed its vector dimension' },
} as const satisfies ErrorCatalogue & Record<string, { transient: boolean; message: string }>;

export type EmbeddingsErrorCode = ErrorCode<typeof EMBEDDINGS_ERRORS>;

/** A remote embedding failure, with a stable code; `transient` decides whether it is retried. The message is the code's, then `: <detail>`. */
export class EmbeddingsError extends defineErrors('EmbeddingsError', EMBEDDINGS_ERRORS).Error {
  constructor(code: EmbeddingsErrorCode, detail?: string) {
    super(code, undefined, { detail });
  }
}
