// The named-entity client: `POST <url>/v1/entities` of the transcription service (spaCy's en_core_web_sm), in batches, retried while a failure is transient.
import pRetry, { AbortError } from 'p-retry';
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../core/ground/define-errors.js';
import type { Logger } from '../../core/ground/logger.js';
import type { NamedEntity } from './types.js';

/** Code → whether a retry may cure it, and its message. Codes never change meaning. */
export const NER_ERRORS = {
  ner_unreachable: { transient: true, message: 'the named-entity service did not answer' },
  ner_timeout: { transient: true, message: 'the named-entity service took longer than the timeout' },
  ner_busy: { transient: true, message: 'the named-entity service is overloaded (429 or 5xx)' },
  ner_not_served: { transient: false, message: 'the service at this URL serves no named-entity model (started without --ner-model?)' },
  ner_unsupported_language: { transient: false, message: 'the named-entity service has no model for this language' },
  ner_rejected: { transient: false, message: 'the named-entity service refused the request' },
  ner_bad_answer: { transient: false, message: 'the named-entity service answered something other than one entity list per text' },
} as const satisfies ErrorCatalogue & Record<string, { transient: boolean; message: string }>;

export type NerErrorCode = ErrorCode<typeof NER_ERRORS>;

/** A named-entity failure with a stable code; `transient` decides whether it is retried. The message is the code's, then `: <detail>`. */
export class NerError extends defineErrors('NerError', NER_ERRORS).Error {
  constructor(code: NerErrorCode, detail?: string) {
    super(code, undefined, { detail });
  }
}

/** An entity with its character offsets in the text it was found in (`text.slice(start, end)`). */
export interface RecognisedEntity extends NamedEntity {
  start: number;
  end: number;
}

/** `<url>/v1/entities`, unless the URL already names that path. */
export function entitiesEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  return /\/v1\/entities$/.test(base) ? base : `${base}/v1/entities`;
}

/** Texts in order, cut into batches of at most `maxTexts` texts and `maxChars` characters (a longer text goes alone). */
export function batchTexts(texts: readonly string[], { maxTexts, maxChars }: { maxTexts: number; maxChars: number }): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (batch.length > 0 && (batch.length >= maxTexts || chars + text.length > maxChars)) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The entity lists of an answer `{entities: [[{text, label, start, end}]]}`, one per text; throws `ner_bad_answer` otherwise. */
export function readEntities(body: unknown, texts: number): RecognisedEntity[][] {
  const lists = (body as { entities?: unknown } | null)?.entities;
  if (!Array.isArray(lists) || lists.length !== texts) throw new NerError('ner_bad_answer', `expected ${texts} lists, got ${Array.isArray(lists) ? lists.length : 'none'}`);
  return lists.map((list: unknown, i) => {
    if (!Array.isArray(list)) throw new NerError('ner_bad_answer', `entry ${i} is not a list`);
    return list.map((e: unknown) => {
      const { text, label, start, end } = (e ?? {}) as Record<string, unknown>;
      if (typeof text !== 'string' || typeof label !== 'string' || !Number.isInteger(start) || !Number.isInteger(end))
        throw new NerError('ner_bad_answer', `entry ${i} holds an entity without text, label, start and end`);
      return { text, label, start: start as number, end: end as number };
    });
  });
}

/** The service's own message from an OpenAI-shaped error body, and its code. */
function serviceError(text: string): { message: string; code?: string } {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    if (typeof body.error?.message === 'string') return { message: body.error.message.slice(0, 300), ...(typeof body.error.code === 'string' ? { code: body.error.code } : {}) };
  } catch {
    // not JSON
  }
  return { message: text.trim().slice(0, 300) };
}

/** A `RecogniseEntities` (types.ts) whose entities also carry their offsets (assignable wherever the plain one is wanted). */
export type RecogniseWithOffsets = (texts: string[], opts: { language: string; signal?: AbortSignal }) => Promise<RecognisedEntity[][]>;

export interface NerClientOptions {
  /** Base URL of the service (`NER_URL`, else `TRANSCRIBE_URL`); `/v1/entities` is appended. */
  url: string;
  /** Longest one request may take; it is then retried. Default 30 s. */
  timeoutMs?: number;
  /** Retries of a request after a transient failure (unreachable, timeout, 429, 5xx), with exponential backoff. Default 3. */
  retries?: number;
  /** First backoff; it doubles per retry, up to 10 s. Default 500 ms. */
  minBackoffMs?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Characters per request (the service refuses more than 200,000): short requests keep a busy service answering within the timeout. Default 20,000. */
  maxBatchChars?: number;
  log?: Logger | undefined;
}

/**
 * A `RecogniseEntities` over the service: the texts go in batches, in order, each retried with backoff while its
 * failure is transient. A language the service has no model for rejects with `ner_unsupported_language` (not retried);
 * the caller decides that this means "no names".
 */
export function createNerClient({ url, timeoutMs = 30_000, retries = 3, minBackoffMs = 500, batchSize = 64, maxBatchChars = 20_000, log }: NerClientOptions): RecogniseWithOffsets {
  const endpoint = entitiesEndpoint(url);

  async function request(texts: string[], language: string, signal: AbortSignal | undefined): Promise<RecognisedEntity[][]> {
    let res: Response;
    let text: string;
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ texts, language }),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
      text = await res.text();
    } catch (error) {
      if (signal?.aborted) throw new AbortError(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      if (deadline.aborted) throw new NerError('ner_timeout', `${timeoutMs} ms`);
      throw new NerError('ner_unreachable', (error as Error).message);
    }
    if (res.status === 429 || res.status >= 500) throw new NerError('ner_busy', `${res.status} ${serviceError(text).message}`);
    if (!res.ok) {
      const { message, code } = serviceError(text);
      if (code === 'unsupported_language') throw new NerError('ner_unsupported_language', message);
      if (res.status === 404) throw new NerError('ner_not_served', message);
      throw new NerError('ner_rejected', `${res.status} ${message}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new NerError('ner_bad_answer', 'the body is not JSON');
    }
    return readEntities(body, texts.length);
  }

  const withRetries = (texts: string[], language: string, signal: AbortSignal | undefined) =>
    pRetry(
      async () => {
        try {
          return await request(texts, language, signal);
        } catch (error) {
          throw error instanceof NerError && !error.transient ? new AbortError(error) : error;
        }
      },
      {
        retries,
        minTimeout: minBackoffMs,
        maxTimeout: 10_000,
        ...(signal ? { signal } : {}),
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => log?.warn({ err: error.message, attempt: attemptNumber, retriesLeft }, 'named-entity request failed'),
      },
    );

  return async (texts, { language, signal }) => {
    const out: RecognisedEntity[][] = [];
    for (const batch of batchTexts(texts, { maxTexts: batchSize, maxChars: maxBatchChars })) out.push(...(await withRetries(batch, language, signal)));
    return out;
  };
}
