// OAuth access tokens: JWTs verified locally against configured keys (decision 9).
import { readFileSync } from 'node:fs';
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Config } from '../config.js';
import { RETRY_AFTER_SECONDS, createError } from '../errors.js';

/** The scope every token must carry. */
export const REQUIRED_SCOPE = 'creator:read';
const ASYMMETRIC_ALGS = ['RS256', 'ES256'] as const;

export interface TokenVerifier {
  /** The user id (`sub`) of a valid token; throws an ApiError (`invalid_token`, `insufficient_scope`, `jwks_unavailable`) otherwise. */
  verify(token: string): Promise<string>;
  /** Whether any key is configured; without one every token is refused. */
  readonly enabled: boolean;
}

interface Jwk {
  kid?: string;
  kty?: string;
  use?: string;
  alg?: string;
  [k: string]: unknown;
}

/** Public keys from a JWKS document; keys for other uses (`enc`) or of unsupported types are skipped. */
export function keysFromJwks(doc: unknown): { kid: string | undefined; key: KeyObject }[] {
  const keys = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) throw new Error('JWKS document has no "keys" array');
  const out: { kid: string | undefined; key: KeyObject }[] = [];
  for (const jwk of keys as Jwk[]) {
    if (jwk.use && jwk.use !== 'sig') continue;
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') continue;
    out.push({ kid: jwk.kid, key: createPublicKey({ key: jwk as never, format: 'jwk' }) });
  }
  return out;
}

/** Where verification keys come from: a PEM file, a JWKS file, or a JWKS URL fetched lazily and cached. */
function createKeySource(
  { publicKeyFile, jwks }: Config['jwt'],
  { fetchTimeoutMs = 2000, cacheMs = 10 * 60_000, minRefetchMs = 30_000 } = {},
) {
  const fixed: { kid: string | undefined; key: KeyObject }[] = [];
  if (publicKeyFile) fixed.push({ kid: undefined, key: createPublicKey(readFileSync(publicKeyFile, 'utf8')) });
  const remote = jwks && /^https?:\/\//.test(jwks) ? jwks : undefined;
  if (jwks && !remote) fixed.push(...keysFromJwks(JSON.parse(readFileSync(jwks, 'utf8'))));

  let cached: { kid: string | undefined; key: KeyObject }[] = [];
  let fetchedAt = 0;
  /** The last failed fetch and its error, remembered for `minRefetchMs`: a JWKS host that is down is not asked again per request. */
  let failed: { at: number; error: unknown } | undefined;
  let inflight: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    if (failed && Date.now() - failed.at < minRefetchMs) throw failed.error;
    inflight ??= (async () => {
      try {
        const res = await fetch(remote!, { signal: AbortSignal.timeout(fetchTimeoutMs) });
        if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
        cached = keysFromJwks(await res.json());
        fetchedAt = Date.now();
        failed = undefined;
      } catch (error) {
        failed = { at: Date.now(), error };
        throw error;
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  }

  return {
    enabled: fixed.length > 0 || remote !== undefined,
    /** Candidate keys for a token header's `kid`; refetches a remote JWKS when stale or the kid is unknown. */
    async keysFor(kid: string | undefined): Promise<KeyObject[]> {
      const match = (list: typeof fixed) => list.filter((k) => kid === undefined || k.kid === undefined || k.kid === kid).map((k) => k.key);
      if (!remote) return match(fixed);
      const age = Date.now() - fetchedAt;
      const known = match(cached);
      if (fetchedAt === 0 || age > cacheMs || (known.length === 0 && age > minRefetchMs)) {
        try {
          await refresh();
        } catch (error) {
          if (fetchedAt === 0) throw createError('jwks_unavailable', { cause: error, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
          // Keep serving with the keys we have; a rotated-in key is retried after minRefetchMs.
        }
      }
      return [...match(fixed), ...match(cached)];
    },
  };
}

function scopesOf(payload: jwt.JwtPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/**
 * Verifies tokens with RS256/ES256 keys (and HS256 only when `JWT_HS_SECRET` is set, for
 * development). Issuer and audience are always checked: the audience defaults to the
 * API's public base URL (the RFC 9728 `resource`), the issuer to the one configured
 * authorization server. Without an issuer, tokens are refused.
 */
export function createTokenVerifier(
  config: Pick<Config, 'jwt' | 'publicBaseUrl' | 'authorizationServers'>,
  { now = () => Date.now() }: { now?: () => number } = {},
): TokenVerifier {
  const { jwt: settings } = config;
  const keys = createKeySource(settings);
  const hsKey = settings.hsSecret ? createSecretKey(Buffer.from(settings.hsSecret, 'utf8')) : undefined;
  const issuer = settings.issuer ?? (config.authorizationServers.length === 1 ? config.authorizationServers[0] : undefined);
  const audience = settings.audience ?? config.publicBaseUrl;
  const enabled = (keys.enabled || hsKey !== undefined) && issuer !== undefined;
  const invalid = (cause?: unknown) => createError('invalid_token', { cause });

  return {
    enabled,
    async verify(token: string): Promise<string> {
      if (!enabled) throw invalid(new Error('no token verification keys or issuer configured'));
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') throw invalid(new Error('not a JWT'));
      const { alg, kid } = decoded.header;
      let candidates: KeyObject[];
      if ((ASYMMETRIC_ALGS as readonly string[]).includes(alg)) candidates = await keys.keysFor(kid);
      else if (alg === 'HS256' && hsKey) candidates = [hsKey];
      else throw invalid(new Error(`algorithm ${alg} is not accepted`));

      let lastError: unknown = new Error('no key matches the token');
      for (const key of candidates) {
        try {
          const payload = jwt.verify(token, key, {
            algorithms: [alg as jwt.Algorithm],
            issuer,
            audience,
            clockTolerance: settings.clockSkewSeconds,
            clockTimestamp: Math.floor(now() / 1000),
          }) as jwt.JwtPayload;
          if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid(new Error('token has no sub'));
          if (typeof payload.exp !== 'number') throw invalid(new Error('token has no exp'));
          if (!scopesOf(payload).includes(REQUIRED_SCOPE)) throw createError('insufficient_scope');
          return payload.sub;
        } catch (error) {
          if ((error as { code?: string }).code === 'insufficient_scope') throw error;
          lastError = error;
        }
      }
      throw invalid(lastError);
    },
  };
}
