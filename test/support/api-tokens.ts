// Credentials made in the test: API keys no store holds, and OAuth keys (RSA and EC pairs, public keys in temp PEM/JWKS files) with tokens signed by them, good and bad.
import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { checksum } from '../../src/auth/api-keys.js';

/** A well-formed API key (right checksum) that no store holds; `tag` keeps one suite's keys apart from another's. */
export function madeUpKey(i: number, tag = 'fake'): string {
  const body = `${tag}${String(i).padStart(32 - tag.length, '0')}`;
  return `svc_${body}${checksum(body)}`;
}

export const TEST_ISSUER = 'https://auth.test.example';
export const TEST_AUDIENCE = 'https://api.test.example';

export interface TokenKit {
  /** Environment for the API: PEM public key (RSA), issuer, audience. */
  env: Record<string, string>;
  /** Environment using a JWKS file holding the EC and RSA public keys instead of the PEM. */
  jwksEnv: Record<string, string>;
  rsaPublicPem: string;
  /** A valid RS256 token; `claims` and `options` override the defaults. */
  sign(claims?: Record<string, unknown>, options?: jwt.SignOptions & { key?: 'rsa' | 'ec' | 'other-rsa' }): string;
  /** `alg: none`, no signature. */
  unsigned(claims?: Record<string, unknown>): string;
  /** HS256 signed with the RSA public key PEM as the shared secret (the algorithm-confusion attack). */
  hs256WithPublicKey(claims?: Record<string, unknown>): string;
  /** HS256 with a given secret. */
  hs256(secret: string, claims?: Record<string, unknown>): string;
  cleanup(): void;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function createTokenKit(): TokenKit {
  const dir = mkdtempSync(join(tmpdir(), 'api-jwt-'));
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsaPublicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const pemFile = join(dir, 'jwt-public.pem');
  writeFileSync(pemFile, rsaPublicPem);
  const jwksFile = join(dir, 'jwks.json');
  writeFileSync(
    jwksFile,
    JSON.stringify({
      keys: [
        { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-1', use: 'sig', alg: 'ES256' },
        { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', use: 'sig', alg: 'RS256' },
      ],
    }),
  );
  const base = { JWT_ISSUER: TEST_ISSUER, JWT_AUDIENCE: TEST_AUDIENCE };
  const defaults = (claims: Record<string, unknown>) => ({
    sub: 'u_member',
    scope: 'creator:read',
    iss: TEST_ISSUER,
    aud: TEST_AUDIENCE,
    ...claims,
  });
  const keys: Record<string, { key: KeyObject; algorithm: jwt.Algorithm; kid: string }> = {
    rsa: { key: rsa.privateKey, algorithm: 'RS256', kid: 'rsa-1' },
    ec: { key: ec.privateKey, algorithm: 'ES256', kid: 'ec-1' },
    'other-rsa': { key: otherRsa.privateKey, algorithm: 'RS256', kid: 'rsa-1' },
  };
  const hmacToken = (secret: string | Buffer, claims: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iat: now, exp: now + 300, ...defaults(claims) })}`;
    return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
  };

  return {
    env: { ...base, JWT_PUBLIC_KEY_FILE: pemFile },
    jwksEnv: { ...base, JWT_JWKS: jwksFile },
    rsaPublicPem,
    sign(claims = {}, { key = 'rsa', ...options } = {}) {
      const k = keys[key]!;
      // No `expiresIn` when the claims set `exp`, or when the caller asks for none (`expiresIn: undefined`).
      const expiry = 'exp' in claims || ('expiresIn' in options && options.expiresIn === undefined) ? {} : { expiresIn: options.expiresIn ?? 300 };
      const { expiresIn: _ignored, ...rest } = options;
      const payload = Object.fromEntries(Object.entries(defaults(claims)).filter(([, v]) => v !== undefined));
      return jwt.sign(payload, k.key, { algorithm: k.algorithm, keyid: k.kid, ...expiry, ...rest });
    },
    unsigned(claims = {}) {
      const now = Math.floor(Date.now() / 1000);
      return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iat: now, exp: now + 300, ...defaults(claims) })}.`;
    },
    hs256WithPublicKey(claims = {}) {
      return hmacToken(rsaPublicPem, claims);
    },
    hs256(secret, claims = {}) {
      return hmacToken(secret, claims);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
