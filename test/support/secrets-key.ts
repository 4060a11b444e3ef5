// A random SECRETS_KEY for a suite: the value a child process is given, and the keyring it makes.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/load.js';
import { keyringOf, type Keyring } from '../../pipeline/webhooks/sealed.js';

export interface TestSecretsKey {
  /** SECRETS_KEY as a child process is given it (base64). */
  value: string;
  /** Its id, as stored beside each secret it seals. */
  id: string;
  keyring: Keyring;
}

/** A new random key (and, with `previous`, the keyring holding that one as SECRETS_KEY_PREVIOUS). */
export function testSecretsKey({ previous }: { previous?: TestSecretsKey } = {}): TestSecretsKey {
  const value = randomBytes(32).toString('base64');
  const keyring = keyringOf(loadConfig({ SECRETS_KEY: value, ...(previous ? { SECRETS_KEY_PREVIOUS: previous.value } : {}) }).secrets)!;
  return { value, id: keyring.current.id, keyring };
}
