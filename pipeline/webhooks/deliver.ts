// One delivery attempt: the endpoint read again (removed → nothing sent; rotated → the new secret), the change signed
// and POSTed under the outbound rules, the outcome recorded on the endpoint. Errors decide the retry.
import { UnrecoverableError } from 'bullmq';
import type { Logger } from '../../core/ground/logger.js';
import { FetchError } from '../../core/ground/outbound/safe-fetch.js';
import { parseRetryAfter } from '../../core/ground/http-headers.js';
import { postBytes, type SafePostOptions } from '../../core/ground/outbound/post.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { WebhookError } from './errors.js';
import { deliveryBody, deliveryHeaders } from './payload.js';
import type { DeliveryJob } from './queues.js';
import { openSecret, type Keyring } from './sealed.js';
import { answerSnippet, type DeliveryJournal } from './journal.js';
import { getEndpoint, recordAttempt, signingSecrets, type AttemptRecord, type EndpointDoc, type WebhookStoreDeps } from './store.js';

/** The outbound rules of deliveries: OUTBOUND_ALLOW_PRIVATE, the identifying User-Agent, a short timeout. */
export type DeliveryOutbound = Pick<SafePostOptions, 'allowPrivate' | 'isAllowedAddress' | 'userAgent' | 'timeoutMs' | 'ca' | 'maxResponseBytes'>;

export interface DeliverDeps {
  store: WebhookStoreDeps;
  /** Opens the endpoint's sealed secrets (SECRETS_KEY): without it, or without the key a secret names, the attempt fails and is retried. */
  keyring?: Keyring | undefined;
  outbound: DeliveryOutbound;
  /** The timeout of an attempt to an endpoint marked failing (`failingSince`), when shorter than `outbound.timeoutMs`. */
  failingTimeoutMs?: number | undefined;
  log?: Pick<Logger, 'info' | 'warn'> | undefined;
  now?: () => Date;
  /** Where each attempt is written for the endpoint's owner to read (journal.ts); undefined: nowhere. */
  journal?: DeliveryJournal | undefined;
}

export interface DeliveryResult {
  endpointId: string;
  changeId: string;
  /** The 2xx status, or `removed` when the endpoint was gone (nothing sent). */
  status: number | 'removed';
}

/** Statuses whose Retry-After is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** A FetchError as the endpoint's failure: refused addresses are not retried (the rules will not change by waiting). */
function fetchFailure(err: FetchError): WebhookError {
  if (err.code === 'private_address' || err.code === 'scheme' || err.code === 'bad_url') return new WebhookError('refused_address', err.message, { cause: err });
  return new WebhookError('unreachable', err.message, { cause: err });
}

/**
 * An attempt's deadline: shorter for an endpoint already marked failing, so one that hangs costs less of the shared
 * delivery slots (any success clears the mark and gives back the full deadline).
 */
export function attemptTimeout(endpoint: Pick<EndpointDoc, 'failingSince'>, timeoutMs: number | undefined, failingTimeoutMs: number | undefined): number | undefined {
  if (endpoint.failingSince == null || failingTimeoutMs === undefined) return timeoutMs;
  return timeoutMs === undefined ? failingTimeoutMs : Math.min(timeoutMs, failingTimeoutMs);
}

/** What an attempt's outcome is recorded as: the HTTP status, `timeout`, or the failure's code. */
function statusLabel(err: WebhookError): string {
  if (err.status !== undefined) return String(err.status);
  const cause = err.cause;
  if (cause instanceof FetchError && cause.code === 'timeout') return 'timeout';
  return err.code;
}

/**
 * Delivers one change to one endpoint once. Resolves on 2xx (or when the endpoint was removed); throws WebhookError
 * otherwise: `http_status` (any other status, 3xx included, with `retryAfterMs` on 429/503) and `unreachable` are
 * retried by BullMQ; `refused_address` and `bad_url`/`insecure_url` are thrown as UnrecoverableError. The last failed
 * attempt (`lastAttempt`) marks the endpoint failing.
 */
export async function deliverChange(
  { store, keyring, outbound, failingTimeoutMs, log, now = () => new Date(), journal }: DeliverDeps,
  { endpointId, change }: DeliveryJob,
  { lastAttempt = false }: { lastAttempt?: boolean } = {},
): Promise<DeliveryResult> {
  const endpoint = await getEndpoint(store, endpointId);
  if (!endpoint) return { endpointId, changeId: change.id, status: 'removed' };
  const at = now();
  const started = performance.now();
  let answer = '';
  const record = (outcome: Omit<AttemptRecord, 'at' | 'changeId'>) =>
    Promise.all([
      recordAttempt(store, endpointId, { at, changeId: change.id, ...outcome }),
      journal?.add(endpointId, {
        at: at.toISOString(),
        kind: 'change',
        eventId: change.id,
        status: outcome.status,
        ok: outcome.ok,
        latencyMs: Math.round(performance.now() - started),
        answer,
      }),
    ]).catch((err: unknown) => {
      // Bookkeeping only: the delivery's own outcome stands (a reindex's write block, a busy store).
      log?.warn({ err, endpointId }, 'recording a webhook attempt failed');
    });
  let failure: WebhookError;
  try {
    checkEndpointUrl(endpoint.url, { allowPrivate: outbound.allowPrivate === true });
    const body = deliveryBody(change);
    // Opened for this attempt only: a clear secret lives no longer than the signing.
    const secrets = signingSecrets(endpoint, at).map((stored) => openSecret(keyring, stored, endpoint.id));
    const headers = deliveryHeaders({ change, body, secrets, at });
    const res = await postBytes(endpoint.url, body, { ...outbound, timeoutMs: attemptTimeout(endpoint, outbound.timeoutMs, failingTimeoutMs), headers });
    answer = answerSnippet(res.body);
    if (res.status >= 200 && res.status <= 299) {
      await record({ status: String(res.status), ok: true });
      return { endpointId, changeId: change.id, status: res.status };
    }
    const retryAfterMs = RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
    failure = new WebhookError('http_status', `${endpoint.url} answered ${res.status}`, { status: res.status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  } catch (err) {
    if (err instanceof WebhookError) failure = err;
    else if (err instanceof FetchError) failure = fetchFailure(err);
    else throw err;
  }
  const unrecoverable = failure.code === 'refused_address' || failure.code === 'bad_url' || failure.code === 'insecure_url';
  await record({ status: statusLabel(failure), ok: false, exhausted: lastAttempt || unrecoverable });
  log?.warn({ endpointId, changeId: change.id, code: failure.code, status: failure.status, lastAttempt }, 'webhook delivery failed');
  if (unrecoverable) throw new UnrecoverableError(failure.message);
  throw failure;
}
