// The webhooks' error catalogue: every refusal of the CLI and every failed delivery keyed by a stable code.
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../../core/ground/define-errors.js';

/** Codes and what they mean; codes never change meaning. */
export const WEBHOOK_ERRORS = {
  /** `add --channel` names no channel. */
  unknown_channel: { message: 'no such channel' },
  /** `remove`/`rotate` name no endpoint. */
  unknown_endpoint: { message: 'no such endpoint' },
  /** Not an absolute http(s) URL, or one carrying credentials or a fragment. */
  bad_url: { message: 'not a usable endpoint URL' },
  /** http where https is required: plain http is only for loopback with OUTBOUND_ALLOW_PRIVATE=true. */
  insecure_url: { message: 'plain http is refused' },
  /** The endpoint answered, but not 2xx (a 3xx included: redirects are not followed). */
  http_status: { message: 'the endpoint answered with a non-2xx status' },
  /** The endpoint could not be reached or did not answer in time. */
  unreachable: { message: 'the endpoint could not be reached' },
  /** The endpoint's address is refused by the outbound rules (private, loopback…). */
  refused_address: { message: 'the endpoint resolves to a refused address' },
  /** The store kept failing while the CLI waited. */
  store_busy: { message: 'the store is busy' },
  /** Secrets must be sealed or opened and SECRETS_KEY is unset. */
  secrets_key_missing: { message: 'SECRETS_KEY is unset' },
  /** A secret is sealed under a key this process does not hold (neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS). */
  secrets_key_unknown: { message: 'a secret is sealed under a key not held' },
  /** A sealed secret does not open with the key it names (altered, or copied from another endpoint). */
  secret_unreadable: { message: 'a sealed secret does not open' },
} as const satisfies ErrorCatalogue;

export type WebhookErrorCode = ErrorCode<typeof WEBHOOK_ERRORS>;

/**
 * A refusal or a failed delivery: `new WebhookError(code, message?, { status?, retryAfterMs?, cause? })`. `message` is
 * the one line the CLI prints or a delivery records; `status` the HTTP status of the answer, for `http_status`;
 * `retryAfterMs` how long the endpoint asked us to wait (`Retry-After` on 429/503).
 */
export class WebhookError extends defineErrors('WebhookError', WEBHOOK_ERRORS).Error {}
