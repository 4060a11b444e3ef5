// The one client core of the OpenAI-compatible services the product calls: embeddings (`/v1/embeddings`), transcription
// (`/v1/audio/transcriptions`) and the enrichment model's chat (`/v1/chat/completions`). Each caller maps the outcomes to
// its own error catalogue; what they share is here: the endpoint, the request (bearer key, no redirect, one deadline
// joined with the caller's cancellation), the provider's message and which statuses are transient
// (`Retry-After` is plain HTTP: ./http-headers.ts).

/** `<url>/v1/<path>`, unless the URL already ends with `path`. */
export function openAiEndpoint(url: string, path: 'embeddings' | 'audio/transcriptions' | 'chat/completions'): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith(`/${path}`) ? base : `${base}/v1/${path}`;
}

/** The provider's own message from an OpenAI-shaped error body (`{error: {message}}`, `{error: "…"}`, `{message}`), else the text; cut to `max`. */
export function providerMessage(text: string, max = 300): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown } | null;
    const message = typeof body?.error === 'string' ? body.error : (body?.error?.message ?? body?.message);
    if (typeof message === 'string') return message.slice(0, max);
  } catch {
    // not JSON: the text itself
  }
  const trimmed = text.trim();
  return trimmed ? trimmed.slice(0, max) : undefined;
}

/** 429 and 5xx: the service is busy or failing, and a later attempt may succeed. */
export const isTransientStatus = (status: number): boolean => status === 429 || status >= 500;

/**
 * A request that got no usable answer: `timeout` when the deadline passed, `redirected` when the service answered a
 * redirect (never followed), `too_large` when the answer passed the caller's `maxAnswerBytes`, `unreachable` otherwise
 * (refused, reset, DNS…).
 */
export class NoAnswerError extends Error {
  override name = 'NoAnswerError';
  constructor(
    readonly kind: 'timeout' | 'unreachable' | 'redirected' | 'too_large',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface OpenAiRequest {
  /** A JSON body (sent as `application/json`) or a multipart form. */
  body: unknown;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string | undefined;
  /** The deadline of the whole exchange, reading the answer included. */
  timeoutMs: number;
  /** The caller's cancellation: thrown as it is (an AbortError), never taken for the service's failure. */
  signal?: AbortSignal | undefined;
  /** The longest answer read, bytes: a longer one is cut off and refused (`too_large`). Unbounded when unset. */
  maxAnswerBytes?: number | undefined;
}

export interface OpenAiAnswer {
  status: number;
  text: string;
  headers: Headers;
}

/** The body as text, refused past `max` bytes (announced or read) without reading further. */
async function readText(res: Response, max: number | undefined): Promise<string> {
  if (max === undefined) return res.text();
  const tooLarge = () => new NoAnswerError('too_large', `the answer is over ${max} bytes`);
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader?.read(); part && !part.done; part = await reader!.read()) {
    size += part.value.byteLength;
    if (size > max) {
      await reader!.cancel();
      throw tooLarge();
    }
    chunks.push(part.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * POSTs to `endpoint` and reads the whole answer (up to `maxAnswerBytes`), whatever its status. No redirect is
 * followed: it would send the body (texts, audio) and the key on to wherever it points, and the configured service
 * answers itself. Throws {@link NoAnswerError} when no usable answer came, or the caller's abort reason when `signal`
 * ended it.
 */
export async function postOpenAi(endpoint: string, { body, apiKey, timeoutMs, signal, maxAnswerBytes }: OpenAiRequest): Promise<OpenAiAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const form = body instanceof FormData;
  const headers: Record<string, string> = { ...(form ? {} : { 'content-type': 'application/json' }), ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  try {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: form ? body : JSON.stringify(body),
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new NoAnswerError('redirected', `the service answered ${res.status} (a redirect): redirects are not followed`);
    }
    return { status: res.status, text: await readText(res, maxAnswerBytes), headers: res.headers };
  } catch (error) {
    if (error instanceof NoAnswerError) throw error;
    signal?.throwIfAborted(); // the caller's cancellation is not the service's failure
    if (timeout.aborted) throw new NoAnswerError('timeout', `no answer within ${timeoutMs} ms`, { cause: error });
    const reason = ((error as Error).cause as Error | undefined)?.message || (error as Error).message;
    throw new NoAnswerError('unreachable', reason, { cause: error });
  }
}
