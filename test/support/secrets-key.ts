// A random SECRETS_KEY for a suite: the value a child process is given, and the keyring it makes.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../core/config/load.js';
import { keyringOf, type Keyring } from '../../pipeline/webhooks/sealed.js';

export interface TestSecretsKey {
  /** SECRETS_KEY as a child process is given it (base64). */
  value: string;
  /** The variables a child process is given: SECRETS_KEY, and SECRETS_KEY_PREVIOUS when there is one. */
  env: Record<string, string>;
  /** Its id, as stored beside each secret it seals. */
  id: string;
  keyring: Keyring;
}

/** A new random key (and, with `previous`, the keyring holding that one as SECRETS_KEY_PREVIOUS). */
export function testSecretsKey({ previous }: { previous?: TestSecretsKey } = {}): TestSecretsKey {
  const value = randomBytes(32).toString('base64');
  const env = { SECRETS_KEY: value, ...(previous ? { SECRETS_KEY_PREVIOUS: previous.value } : {}) };
  const keyring = keyringOf(loadConfig(env).secrets)!;
  return { value, env, id: keyring.current.id, keyring };
}
