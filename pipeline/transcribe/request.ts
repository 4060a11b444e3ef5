// One upload to an OpenAI-compatible `POST /v1/audio/transcriptions`, its failures mapped to TranscribeError codes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TranscribeError } from './errors.js';

/** `<url>/v1/audio/transcriptions`, unless the URL already names that path. */
export function endpointUrl(url: string): string {
  const base = url.replace(/\/+$/, '');
  return /\/audio\/transcriptions$/.test(base) ? base : `${base}/v1/audio/transcriptions`;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The provider's own message from an OpenAI-shaped error body, when it sent one. */
function providerMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    return typeof message === 'string' ? message.slice(0, 300) : undefined;
  } catch {
    return text.trim() ? text.trim().slice(0, 300) : undefined;
  }
}

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

  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(endpointUrl(url), {
      method: 'POST',
      body: form,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      // A redirect would send the audio (and the key) on to wherever it points: the configured service answers itself.
      redirect: 'error',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    text = await res.text();
  } catch (err) {
    signal?.throwIfAborted(); // the caller's cancellation is not the service's failure
    const reason = timeout.aborted ? `it did not answer within ${Math.round(timeoutMs / 1000)} s` : ((err as Error).cause as Error | undefined)?.message || (err as Error).message;
    throw new TranscribeError('unreachable', `the transcription service could not be reached (${reason})`, { cause: err });
  }
  if (!res.ok) {
    const detail = providerMessage(text);
    const transient = res.status === 429 || res.status >= 500;
    throw new TranscribeError('http_status', `the transcription service answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, {
      transient,
      status: res.status,
      retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new TranscribeError('bad_answer', `the transcription service answered HTTP ${res.status} with a body that is not JSON`);
  }
}
