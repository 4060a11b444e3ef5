// The authorization server's signing keys: a JWKS file of private keys, the first signs and every one verifies (rotation), the same file on every API process.
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The algorithms a key may sign with: ES256 (P-256) preferred, RS256 accepted. */
export type SigningAlg = 'ES256' | 'RS256';

/** A private JWK as the file holds it. */
export interface PrivateJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

export interface SigningKeys {
  /** Every key, the signing one first, as oidc-provider's `jwks` option takes them. */
  jwks: { keys: PrivateJwk[] };
  /** The key that signs: the file's first. */
  signing: { kid: string; alg: SigningAlg };
  /** The public half of every key, by `kid`: what the token verifier checks a signature with (no fetch). */
  verification: ReadonlyMap<string, { key: KeyObject; alg: SigningAlg }>;
  /** Cookie signing secrets derived from the keys, the first signs: every process derives the same, and they rotate with the keys. */
  cookieKeys: string[];
}

/** Thrown for a keys file that cannot be used; the message names the file and what is wrong. */
export class SigningKeysError extends Error {
  override name = 'SigningKeysError';
}

function algOf(jwk: JsonWebKey): SigningAlg | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'RS256';
  return undefined;
}

/** Checks one entry of the file: a private P-256 or RSA key (at least 2048 bits) with a `kid`; returns it with `alg` and `use` set. */
function checkedKey(entry: unknown, at: string): PrivateJwk {
  if (entry === null || typeof entry !== 'object') throw new SigningKeysError(`${at}: not a JSON object`);
  const jwk = entry as JsonWebKey & { kid?: unknown; alg?: unknown; use?: unknown };
  if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new SigningKeysError(`${at}: no "kid"`);
  const alg = algOf(jwk);
  if (!alg) throw new SigningKeysError(`${at} (kid ${jwk.kid}): only EC P-256 (ES256) and RSA (RS256) keys are accepted`);
  if (jwk.alg !== undefined && jwk.alg !== alg) throw new SigningKeysError(`${at} (kid ${jwk.kid}): "alg" ${String(jwk.alg)} does not fit a ${jwk.kty} key`);
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new SigningKeysError(`${at} (kid ${jwk.kid}): "use" must be sig`);
  if (typeof jwk.d !== 'string') throw new SigningKeysError(`${at} (kid ${jwk.kid}): a public key; the file holds private keys (the server signs with them)`);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (error) {
    throw new SigningKeysError(`${at} (kid ${jwk.kid}): not a usable key (${(error as Error).message})`);
  }
  if (alg === 'RS256' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new SigningKeysError(`${at} (kid ${jwk.kid}): an RSA key needs at least 2048 bits`);
  return { ...jwk, kid: jwk.kid, alg, use: 'sig' };
}

/** The keys of a JWKS document (`{ keys: [...] }`), checked; `source` names it in errors. */
export function parseSigningKeys(document: unknown, source: string): SigningKeys {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new SigningKeysError(`${source}: expected a JWKS document {"keys": [...]} with at least one key`);
  const checked = keys.map((entry, i) => checkedKey(entry, `${source} key ${i + 1}`));
  const kids = new Set<string>();
  for (const { kid } of checked) {
    if (kids.has(kid)) throw new SigningKeysError(`${source}: kid ${kid} appears twice`);
    kids.add(kid);
  }
  const first = checked[0]!;
  return {
    jwks: { keys: checked },
    signing: { kid: first.kid, alg: first.alg },
    verification: new Map(checked.map((jwk) => [jwk.kid, { key: createPublicKey({ key: jwk, format: 'jwk' }), alg: jwk.alg }])),
    cookieKeys: checked.map((jwk) => createHmac('sha256', jwk.d!).update('oauth cookies').digest('base64url')),
  };
}

/** Reads and checks the keys file; throws a SigningKeysError naming the file when it cannot be used. */
export function readSigningKeys(file: string): SigningKeys {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SigningKeysError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new SigningKeysError(`${file}: not JSON`);
  }
  return parseSigningKeys(document, file);
}

/** A new private signing key: P-256 (ES256) unless `alg` says RS256, its `kid` the date and a random part (never reused). */
export function newSigningKey(alg: SigningAlg = 'ES256', now = new Date()): PrivateJwk {
  const { privateKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `${now.toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}
