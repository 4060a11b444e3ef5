// API key format: `svc_` + 32 base62 chars + a 6-char checksum, so scanners can find and verify keys offline.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { ApiKeyDoc } from '../../core/store/documents.js';

/** Brand prefix: a Bearer value starting with it is an API key, anything else an OAuth token. */
export const API_KEY_PREFIX = 'svc_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/**
 * Checksum of a key body: the first 6 bytes of sha256(body) as a number, mod 62^6, in
 * base62, left-padded with `0`. Detects typos and lets a scanner tell a real key from noise.
 */
export function checksum(body: string): string {
  let n = BigInt(`0x${createHash('sha256').update(body).digest('hex').slice(0, 12)}`) % 62n ** BigInt(CHECKSUM_LENGTH);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/** A new random key. Shown once; only {@link hashApiKey} of it is stored. */
export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
}

/** Public identifier of a stored key (used by `keys revoke`); unrelated to the secret. */
export function generateKeyId(): string {
  return `key_${randomBytes(9).toString('base64url')}`;
}

/** True when the value has the brand prefix (it is meant as an API key, valid or not). */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}

/** True when the value is well-formed and its checksum matches; no store lookup needed to reject it. */
export function isWellFormedApiKey(value: string): boolean {
  const m = KEY_PATTERN.exec(value);
  return m !== null && checksum(m[1]!) === m[2];
}

/** sha256 hex of the whole key: the stored form, and the document id of its record. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Whether a stored key still opens the API at `now`: not revoked and not past its expiry (a key without one never expires). */
export function isKeyUsable(record: Pick<ApiKeyDoc, 'revokedAt' | 'expiresAt'>, now = Date.now()): boolean {
  return !record.revokedAt && (record.expiresAt == null || Date.parse(record.expiresAt) > now);
}
