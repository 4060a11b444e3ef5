// The named-entity client: `POST <url>/v1/entities` of the transcription service (spaCy's en_core_web_sm), in batches, retried while a failure is transient.
import pRetry, { AbortError } from 'p-retry';
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../core/ground/define-errors.js';
import type { Logger } from '../../core/ground/logger.js';
import { NoAnswerError, postOpenAi, providerMessage } from '../../core/ground/openai-protocol.js';
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
  ner_overrun: { transient: false, message: 'the named-entity service stopped these texts at its deadline (504 entities_timeout)' },
  ner_redirected: { transient: false, message: 'the named-entity service answered a redirect, which is not followed (the texts go nowhere else)' },
  ner_too_large: { transient: false, message: 'the named-entity service answered more than the client reads' },
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
  let code: unknown;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
  } catch {
    // not JSON: no code
  }
  return { message: providerMessage(text) ?? '', ...(typeof code === 'string' ? { code } : {}) };
}

/** The service's limit of one text (server.py ENTITIES_MAX_TEXT_CHARS): a longer text is sent in pieces of at most this. */
export const NER_MAX_TEXT_CHARS = 20_000;

/**
 * `text` in pieces of at most `max` characters, each with its offset, cut at the last whitespace of each piece when
 * there is one (so that a name is rarely cut in two). Nothing is dropped: the pieces concatenated are `text`.
 */
export function splitText(text: string, max: number): { text: string; offset: number }[] {
  const pieces: { text: string; offset: number }[] = [];
  let at = 0;
  while (text.length - at > max) {
    const window = text.slice(at, at + max);
    const space = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'));
    const end = at + (space > 0 ? space + 1 : max);
    pieces.push({ text: text.slice(at, end), offset: at });
    at = end;
  }
  pieces.push({ text: text.slice(at), offset: at });
  return pieces;
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
  /** Longest answer read, bytes: a longer one is refused (`ner_too_large`). Default 8 MiB (entity lists of 200,000 characters are far less). */
  maxAnswerBytes?: number;
  log?: Logger | undefined;
}

/**
 * A `RecogniseEntities` over the service: the texts go in batches, in order, each retried with backoff while its
 * failure is transient. A language the service has no model for rejects with `ner_unsupported_language` (not retried);
 * the caller decides that this means "no names".
 */
export function createNerClient({
  url,
  timeoutMs = 30_000,
  retries = 3,
  minBackoffMs = 500,
  batchSize = 64,
  maxBatchChars = 20_000,
  maxAnswerBytes = 8 * 1024 ** 2,
  log,
}: NerClientOptions): RecogniseWithOffsets {
  const endpoint = entitiesEndpoint(url);

  async function request(texts: string[], language: string, signal: AbortSignal | undefined): Promise<RecognisedEntity[][]> {
    let status: number;
    let text: string;
    try {
      // The project's service client: no redirect followed, one deadline over the whole exchange, a bounded read.
      ({ status, text } = await postOpenAi(endpoint, { body: { texts, language }, timeoutMs, signal, maxAnswerBytes }));
    } catch (error) {
      if (signal?.aborted) throw new AbortError(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      if (!(error instanceof NoAnswerError)) throw error;
      if (error.kind === 'timeout') throw new NerError('ner_timeout', `${timeoutMs} ms`);
      if (error.kind === 'redirected') throw new NerError('ner_redirected', error.message);
      if (error.kind === 'too_large') throw new NerError('ner_too_large', error.message);
      throw new NerError('ner_unreachable', error.message);
    }
    if (status === 504 && serviceError(text).code === 'entities_timeout') throw new NerError('ner_overrun', serviceError(text).message);
    if (status === 429 || status >= 500) throw new NerError('ner_busy', `${status} ${serviceError(text).message}`);
    if (status < 200 || status > 299) {
      const { message, code } = serviceError(text);
      if (code === 'unsupported_language') throw new NerError('ner_unsupported_language', message);
      if (status === 404) throw new NerError('ner_not_served', message);
      throw new NerError('ner_rejected', `${status} ${message}`);
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
    // A text over the service's limit goes in pieces; their entities come back at offsets into the whole text.
    const pieces = texts.map((text) => splitText(text, NER_MAX_TEXT_CHARS));
    const flat = pieces.flat().map((p) => p.text);
    const found: RecognisedEntity[][] = [];
    for (const batch of batchTexts(flat, { maxTexts: batchSize, maxChars: maxBatchChars })) found.push(...(await withRetries(batch, language, signal)));
    let next = 0;
    return pieces.map((parts) => parts.flatMap(({ offset }) => found[next++]!.map((e) => ({ ...e, start: e.start + offset, end: e.end + offset }))));
  };
}
