// One upload to an OpenAI-compatible `POST /v1/audio/transcriptions`, its failures mapped to TranscribeError codes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TranscribeError } from './errors.js';
import { parseRetryAfter } from '../../core/ground/http-headers.js';
import { NoAnswerError, isTransientStatus, openAiEndpoint, postOpenAi, providerMessage, type OpenAiAnswer } from '../../core/ground/openai-protocol.js';

const MIME: Readonly<Record<string, string>> = {
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.flac': 'audio/flac',
  '.webm': 'audio/webm',
};

export interface UploadOptions {
  url: string;
  model: string;
  apiKey?: string;
  language?: string | null;
  /** Text just before this piece (the previous piece's tail), so the model keeps names and spelling. */
  prompt?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Posts one audio file as multipart with `response_format=verbose_json` and both timestamp
 * granularities, and returns the parsed JSON answer. Unreachable, timed out, 429 and 5xx are
 * transient; other statuses are not; a body that is not JSON is `bad_answer`.
 */
export async function uploadAudio(file: string, { url, model, apiKey, language, prompt, timeoutMs, signal }: UploadOptions): Promise<unknown> {
  const form = new FormData();
  const name = path.basename(file);
  form.append('file', new Blob([await readFile(file)], { type: MIME[path.extname(name).toLowerCase()] ?? 'application/octet-stream' }), name);
  form.append('model', model);
  form.append('response_format', 'verbose_json');
  form.append('timestamp_granularities[]', 'word');
  form.append('timestamp_granularities[]', 'segment');
  if (language) form.append('language', language);
  if (prompt) form.append('prompt', prompt);

  let answer: OpenAiAnswer;
  try {
    answer = await postOpenAi(openAiEndpoint(url, 'audio/transcriptions'), { body: form, apiKey, timeoutMs, signal });
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err; // the caller's cancellation
    const reason = err.kind === 'timeout' ? `it did not answer within ${Math.round(timeoutMs / 1000)} s` : err.message;
    throw new TranscribeError('unreachable', `the transcription service could not be reached (${reason})`, { cause: err.cause });
  }
  const { status, text, headers } = answer;
  if (status < 200 || status > 299) {
    const detail = providerMessage(text);
    throw new TranscribeError('http_status', `the transcription service answered HTTP ${status}${detail ? `: ${detail}` : ''}`, {
      transient: isTransientStatus(status),
      status,
      retryAfterMs: parseRetryAfter(headers.get('retry-after')),
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new TranscribeError('bad_answer', `the transcription service answered HTTP ${status} with a body that is not JSON`);
  }
}
