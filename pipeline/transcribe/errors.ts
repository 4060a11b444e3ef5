// The transcription client's error catalogue: every failure keyed by a stable code, whether a retry may help, and the sentence a creator reads.

/** Every failure code, whether it is transient by default, and the creator's sentence. Codes never change meaning. */
export const TRANSCRIBE_ERRORS = {
  no_timings: {
    transient: false,
    sentence: 'the transcription service answered text without timings: choose a model or response format that returns timed segments (verbose_json)',
  },
  unreachable: { transient: true, sentence: 'the transcription service could not be reached' },
  http_status: { transient: false, sentence: 'the transcription service refused the audio' },
  bad_audio: { transient: false, sentence: 'the audio could not be read (it is not a supported audio file, or it is damaged)' },
  too_long: { transient: false, sentence: 'the audio is longer than this service transcribes' },
  bad_answer: { transient: false, sentence: 'the transcription service sent an answer that could not be read' },
  audio_timeout: { transient: false, sentence: 'reading the audio took far longer than its length allows (it may be damaged)' },
  piece_too_large: { transient: false, sentence: 'the audio could not be cut into pieces small enough for the transcription service' },
} as const satisfies Record<string, { transient: boolean; sentence: string }>;

export type TranscribeErrorCode = keyof typeof TRANSCRIBE_ERRORS;

/**
 * A failed transcription. `transient`: a retry with backoff may succeed (the service was
 * unreachable, answered 429 or 5xx); `retryAfterMs`: the service said when to come back.
 */
export class TranscribeError extends Error {
  readonly code: TranscribeErrorCode;
  readonly transient: boolean;
  readonly retryAfterMs?: number;
  /** The HTTP status the service answered, for `http_status`. */
  readonly status?: number;

  constructor(
    code: TranscribeErrorCode,
    message: string = TRANSCRIBE_ERRORS[code].sentence,
    { transient = TRANSCRIBE_ERRORS[code].transient, retryAfterMs, status, cause }: { transient?: boolean; retryAfterMs?: number; status?: number; cause?: unknown } = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TranscribeError';
    this.code = code;
    this.transient = transient;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    if (status !== undefined) this.status = status;
  }
}

/** A sentence a creator understands, for the episode's `error`: what went wrong, never a stack or a URL. */
export function describeTranscribeError(err: TranscribeError): string {
  if (err.code === 'http_status' && err.status !== undefined) {
    if (err.status === 401 || err.status === 403) return `the transcription service refused our credentials (HTTP ${err.status})`;
    if (err.status === 413) return 'the transcription service refused the audio as too large (HTTP 413)';
    if (err.status === 429) return 'the transcription service is busy (HTTP 429); it will be retried';
    if (err.status >= 500) return `the transcription service failed (HTTP ${err.status}); it will be retried`;
    return `the transcription service refused the audio (HTTP ${err.status})`;
  }
  return TRANSCRIBE_ERRORS[err.code].sentence;
}
