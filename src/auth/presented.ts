// The credential a request presents, read from its headers once: the failed-lookup guard, the search gate, authentication and the limiter all read this one value.
import { hashApiKey, isWellFormedApiKey, looksLikeApiKey } from './api-keys.js';

/** What the request's `X-Api-Key` and `Authorization` headers present, before anything is looked up. */
export type Presented =
  /** No credential header. */
  | { kind: 'none' }
  /**
   * An API key: `X-Api-Key`, or a Bearer value with the brand prefix. When its checksum holds, `hash` is its sha256
   * (the id of its record) and `credential` is `key:<hash>`; otherwise both are undefined and it is refused without a lookup.
   */
  | { kind: 'key'; hash: string; credential: string }
  | { kind: 'key'; hash: undefined; credential: undefined }
  /** Any other Bearer value: an OAuth token, verified by authentication. */
  | { kind: 'bearer'; token: string }
  /** Refused without a lookup: both headers at once, or an `Authorization` that is no Bearer. */
  | { kind: 'invalid'; code: 'multiple_credentials' | 'unsupported_authorization' };

/** The value of an `Authorization: Bearer <value>` header; undefined for any other header or none. */
const bearerValue = (authorization: unknown): string | undefined => (typeof authorization === 'string' ? /^Bearer +([^\s]+) *$/i.exec(authorization)?.[1] : undefined);

/** The key as presented: its hash and credential when its checksum holds (computed here, once per request). */
function presentedKey(value: string): Presented {
  if (!isWellFormedApiKey(value)) return { kind: 'key', hash: undefined, credential: undefined };
  const hash = hashApiKey(value);
  return { kind: 'key', hash, credential: `key:${hash}` };
}

/** Reads the credential headers (Node joins a repeated `X-Api-Key` into one string). */
export function presentedCredential(headers: { 'x-api-key'?: unknown; authorization?: unknown }): Presented {
  const apiKey = headers['x-api-key'];
  const authorization = headers.authorization;
  if (apiKey === undefined && authorization === undefined) return { kind: 'none' };
  if (apiKey !== undefined && authorization !== undefined) return { kind: 'invalid', code: 'multiple_credentials' };
  // x-api-key only ever carries keys; a Bearer value is a key when it has the brand prefix.
  if (apiKey !== undefined) return presentedKey(String(apiKey).trim());
  const bearer = bearerValue(authorization);
  if (bearer === undefined) return { kind: 'invalid', code: 'unsupported_authorization' };
  return looksLikeApiKey(bearer) ? presentedKey(bearer) : { kind: 'bearer', token: bearer };
}

/** True when the request carries any credential header (valid or not): a 401 then says the credential was wrong, not missing. */
export function credentialPresented(headers: { 'x-api-key'?: unknown; authorization?: unknown }): boolean {
  return headers['x-api-key'] !== undefined || headers.authorization !== undefined;
}
