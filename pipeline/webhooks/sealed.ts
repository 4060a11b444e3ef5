// Webhook signing secrets sealed at rest: AES-256-GCM under SECRETS_KEY, a random 96-bit IV per secret, the key's id
// stored beside the ciphertext, the endpoint's id as associated data (a sealed secret copied to another endpoint does
// not open). Pure: the store keeps `sealed:v1:<key id>:<iv>:<ciphertext and tag>`, in the same field a clear one had.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Config } from '../../core/config/load.js';
import { WebhookError } from './errors.js';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** One key: its id and its 32 bytes. */
export interface SealingKey {
  id: string;
  bytes: Buffer;
}

/** The keys a process holds: `current` seals (and opens), `previous` (SECRETS_KEY_PREVIOUS) only opens. */
export interface Keyring {
  current: SealingKey;
  previous?: SealingKey | undefined;
}

/** The keyring of the configuration (SECRETS_KEY, SECRETS_KEY_PREVIOUS); undefined when SECRETS_KEY is unset. */
export function keyringOf(secrets: Config['secrets']): Keyring | undefined {
  const load = (key: NonNullable<Config['secrets']['key']>): SealingKey => ({ id: key.id, bytes: Buffer.from(key.base64, 'base64') });
  if (!secrets.key) return undefined;
  return { current: load(secrets.key), previous: secrets.previousKey ? load(secrets.previousKey) : undefined };
}

/** What the keyring holds, for messages: `SECRETS_KEY is key 1a2b3c4d, SECRETS_KEY_PREVIOUS is unset`. */
export function heldKeys(keyring: Keyring | undefined): string {
  if (!keyring) return 'SECRETS_KEY is unset';
  return `SECRETS_KEY is key ${keyring.current.id}, SECRETS_KEY_PREVIOUS ${keyring.previous ? `is key ${keyring.previous.id}` : 'is unset'}`;
}

const aad = (endpointId: string) => Buffer.from(`webhook-secret:${endpointId}`, 'utf8');

/** Whether a stored value is sealed (else it is a clear secret written before sealing, or nothing). */
export function isSealed(stored: string | null | undefined): stored is string {
  return typeof stored === 'string' && stored.startsWith(PREFIX);
}

/** The id of the key a stored value is sealed under; undefined for a clear one. */
export function sealedKeyId(stored: string | null | undefined): string | undefined {
  return isSealed(stored) ? stored.slice(PREFIX.length).split(':')[0] : undefined;
}

/** Seals `secret` for the endpoint `endpointId` under the keyring's current key, with a fresh random IV. */
export function sealSecret(keyring: Keyring, secret: string, endpointId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.bytes, iv).setAAD(aad(endpointId));
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${keyring.current.id}:${iv.toString('base64url')}:${data.toString('base64url')}`;
}

/**
 * The clear secret of a stored value: opened with the key whose id it names, or returned as it is when it was never
 * sealed (written before sealing; the worker's start and `rotate-key` seal those). Throws WebhookError
 * `secrets_key_unknown` when the keyring lacks that key, `secret_unreadable` when the key does not open it.
 */
export function openSecret(keyring: Keyring | undefined, stored: string, endpointId: string): string {
  if (!isSealed(stored)) return stored;
  const [keyId = '', iv = '', data = ''] = stored.slice(PREFIX.length).split(':');
  const key = [keyring?.current, keyring?.previous].find((k) => k?.id === keyId);
  if (!key) {
    throw new WebhookError(
      'secrets_key_unknown',
      `the secret of ${endpointId} is sealed under key ${keyId}, and ${heldKeys(keyring)}: set SECRETS_KEY (or SECRETS_KEY_PREVIOUS) to the key with id ${keyId}`,
    );
  }
  const bytes = Buffer.from(data, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES }).setAAD(aad(endpointId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new WebhookError(
      'secret_unreadable',
      `the secret of ${endpointId} names key ${keyId}, which this process holds, but that key does not open it: it was altered in the store or copied from another endpoint; rotate the endpoint's secret (\`npm run webhooks -- rotate ${endpointId}\`)`,
      { cause },
    );
  }
}
