// Key rotation for the authorization server's keys file: a new key goes first (it signs from the next start), the old ones stay to verify the tokens they signed.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { newSigningKey, parseSigningKeys, type PrivateJwk, type SigningAlg } from './signing-keys.js';

export interface RotateResult {
  /** The new signing key's id. */
  kid: string;
  /** The ids the file keeps after it, for verification. */
  kept: string[];
  /** The ids removed (`dropOld`). */
  dropped: string[];
  created: boolean;
}

/**
 * Creates `file` with one new key, or puts a new key before the ones it holds. With `dropOld`, only the new key and
 * the one that signed until now stay: tokens signed by older keys (expired by now, if the rotation waited an access
 * token lifetime) stop verifying. Written to a temporary file and renamed, mode 0600: never half a file.
 */
export function rotateKeysFile(file: string, { alg = 'ES256', dropOld = false, now = new Date() }: { alg?: SigningAlg; dropOld?: boolean; now?: Date } = {}): RotateResult {
  const created = !existsSync(file);
  const current: PrivateJwk[] = created ? [] : parseSigningKeys(JSON.parse(readFileSync(file, 'utf8')) as unknown, file).jwks.keys;
  const fresh = newSigningKey(alg, now);
  const kept = dropOld ? current.slice(0, 1) : current;
  const dropped = dropOld ? current.slice(1).map((key) => key.kid) : [];
  const document = { keys: [fresh, ...kept] };
  parseSigningKeys(document, file);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return { kid: fresh.kid, kept: kept.map((key) => key.kid), dropped, created };
}
