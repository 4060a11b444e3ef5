// The transcription client's error catalogue: every failure keyed by a stable code, whether a retry may help, and the sentence a creator reads.
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../core/ground/define-errors.js';

/** Every failure code, whether it is transient by default, and the creator's sentence. Codes never change meaning. */
export const TRANSCRIBE_ERRORS = {
  no_timings: {
    transient: false,
    message: 'the transcription service answered text without timings: choose a model or response format that returns timed segments (verbose_json)',
  },
  unreachable: { transient: true, message: 'the transcription service could not be reached' },
  http_status: { transient: false, message: 'the transcription service refused the audio' },
  bad_audio: { transient: false, message: 'the audio could not be read (it is not a supported audio file, or it is damaged)' },
  too_long: { transient: false, message: 'the audio is longer than this service transcribes' },
  bad_answer: { transient: false, message: 'the transcription service sent an answer that could not be read' },
  audio_timeout: { transient: false, message: 'reading the audio took far longer than its length allows (it may be damaged)' },
  piece_too_large: { transient: false, message: 'the audio could not be cut into pieces small enough for the transcription service' },
} as const satisfies ErrorCatalogue & Record<string, { transient: boolean; message: string }>;

export type TranscribeErrorCode = ErrorCode<typeof TRANSCRIBE_ERRORS>;

const TRANSCRIBE = defineErrors('TranscribeError', TRANSCRIBE_ERRORS, {
  // A refusal is worded by its status: the creator learns whether it is our key, the file's size, or a busy service.
  words: ({ code, status }) => {
    if (code !== 'http_status' || status === undefined) return undefined;
    if (status === 401 || status === 403) return `the transcription service refused our credentials (HTTP ${status})`;
    if (status === 413) return 'the transcription service refused the audio as too large (HTTP 413)';
    if (status === 429) return 'the transcription service is busy (HTTP 429); it will be retried';
    if (status >= 500) return `the transcription service failed (HTTP ${status}); it will be retried`;
    return `the transcription service refused the audio (HTTP ${status})`;
  },
});

/**
 * A failed transcription: `new TranscribeError(code, message?, { transient?, retryAfterMs?, status?, cause? })`.
 * `transient`: a retry with backoff may succeed (the service was unreachable, answered 429 or 5xx);
 * `retryAfterMs`: the service said when to come back; `status`: the HTTP status it answered, for `http_status`.
 */
export class TranscribeError extends TRANSCRIBE.Error {}

/** A sentence a creator understands, for the episode's `error`: what went wrong, never a stack or a URL. */
export const describeTranscribeError: (err: TranscribeError) => string = TRANSCRIBE.describe;
