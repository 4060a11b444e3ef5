// Standard Webhooks signing: `whsec_` secrets, and `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` signatures (pure).
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** Random bytes in a new secret: 24, as the reference implementations make them (within the spec's 24–64). */
export const SECRET_BYTES = 24;

/** A new secret: `whsec_` + base64 of {@link SECRET_BYTES} random bytes. */
export function newSecret(random: (n: number) => Buffer = randomBytes): string {
  return PREFIX + random(SECRET_BYTES).toString('base64');
}

/** The key bytes of a secret (`whsec_` optional, as the reference library accepts both). */
export function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error('empty webhook secret');
  return key;
}

/** One `v1,<base64>` signature of a message: HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's bytes. */
export function signature(secret: string, { id, timestamp, body }: { id: string; timestamp: number; body: string }): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` header: one signature per secret, space-separated (during a rotation's grace period both
 * the new and the old secret sign, so a receiver that still has the old one keeps verifying).
 */
export function signatureHeader(secrets: readonly string[], message: { id: string; timestamp: number; body: string }): string {
  return secrets.map((s) => signature(s, message)).join(' ');
}

/** Unix seconds of `at`: the `webhook-timestamp` of an attempt. */
export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
