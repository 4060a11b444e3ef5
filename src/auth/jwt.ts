// OAuth access tokens: JWTs verified locally against configured keys (decision 9).
import { readFileSync } from 'node:fs';
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
// jose before jwks-rsa: jwks-rsa require()s jose, which oidc-provider and openid-client import as ES modules. Under
// Node 22.13 a require() of an ES module the loader has linked but not yet run fails (ERR_REQUIRE_CYCLE_MODULE); run
// first here, jose is done when jwks-rsa asks for it (compiled-runtime runs dist/ on that Node).
import 'jose';
import jwksRsa from 'jwks-rsa';
import type { Config } from '../../core/config/load.js';
import { RETRY_AFTER_SECONDS, createError } from '../errors.js';

/** The scope every token must carry. */
export const REQUIRED_SCOPE = 'creator:read';
const ASYMMETRIC_ALGS = ['RS256', 'ES256'] as const;
/** `typ` header values of an access token (compared lower-cased). */
const ACCEPTED_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

/** What a call site accepts: the audience (`aud`) its tokens must name. */
export interface VerifyOptions {
  /** The resource of the call site: `PUBLIC_BASE_URL` for REST (the default, or `JWT_AUDIENCE`), `PUBLIC_BASE_URL/mcp` for the creator tool server. */
  audience?: string;
}

/** A valid token's caller. */
export interface VerifiedToken {
  /** The token's `sub`. */
  userId: string;
  /** The grant a token of this service's own authorization server was issued under (checked on every request); absent for an external issuer's. */
  grantId?: string;
}

/** This service's own authorization server, as the verifier needs it (src/oauth/server.ts makes one). */
export interface LocalIssuer {
  issuer: string;
  keys: { verification: ReadonlyMap<string, { key: KeyObject; alg: string }> };
  /** Whether a grant still stands (one Redis read); throws when Redis cannot answer. */
  grantActive(grantId: string): Promise<boolean>;
}

export interface TokenVerifier {
  /**
   * The caller of a valid token for `audience`; throws an ApiError (`invalid_token`, `insufficient_scope`,
   * `jwks_unavailable`, `store_unavailable`) otherwise. A token of the local issuer costs one Redis read (its grant).
   */
  verify(token: string, options?: VerifyOptions): Promise<VerifiedToken>;
  /** Whether any key is configured; without one every token is refused. */
  readonly enabled: boolean;
  /**
   * Whether `token` could verify, judged without a signature check or any fetch: a verifier is enabled, and it is
   * three base64url parts whose header names an accepted `alg` and `typ` and whose claims name this issuer and
   * (or the local issuer and one of its key ids) and audience and are not expired. The search gate admits to the members' share only such tokens (or keys).
   */
  mayBeValid(token: string, options?: VerifyOptions): boolean;
}

const BASE64URL_PART = /^[A-Za-z0-9_-]+$/;

/** The JSON object a base64url part encodes; undefined when it is not one. */
function jsonPart(part: string): Record<string, unknown> | undefined {
  if (!BASE64URL_PART.test(part)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** How a JWKS URL is fetched and cached. */
export interface JwksOptions {
  /** Give up on one fetch after this long. Default 2 s. */
  fetchTimeoutMs?: number;
  /** How long a key fetched for a `kid` is used before the JWKS is asked again. Default 10 min. */
  cacheMs?: number;
  /** How long a key is used past `cacheMs` while every refetch fails (the JWKS host is down). Default 1 h. */
  maxStaleMs?: number;
  /**
   * How long one fetch, answered or failed, serves every lookup: an unknown `kid` refetches
   * at most this often, and a JWKS host that is down is not asked again per token. Default 30 s.
   */
  minRefetchMs?: number;
}

type JwksDocument = { keys: jwksRsa.JSONWebKey[] };

/** Fetches a JWKS URL; one fetch (its answer or its failure) is shared by every caller for `minRefetchMs`. */
function jwksFetcher(url: string, fetchTimeoutMs: number, minRefetchMs: number): () => Promise<JwksDocument> {
  let last: { at: number; document: Promise<JwksDocument> } | undefined;
  return () => {
    if (last && Date.now() - last.at < minRefetchMs) return last.document;
    const document = fetch(url, { signal: AbortSignal.timeout(fetchTimeoutMs) }).then(async (res) => {
      if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
      return (await res.json()) as JwksDocument;
    });
    last = { at: Date.now(), document };
    return document;
  };
}

/**
 * Where verification keys come from: a PEM file, or a JWKS (file or URL) read through
 * jwks-rsa, which imports the keys, picks one by `kid` and caches it per `kid`.
 */
function createKeySource(
  { publicKeyFile, jwks, jwksMaxStaleSeconds }: Config['jwt'],
  { fetchTimeoutMs = 2000, cacheMs = 10 * 60_000, minRefetchMs = 30_000, maxStaleMs = jwksMaxStaleSeconds * 1000 }: JwksOptions = {},
) {
  const pem = publicKeyFile ? createPublicKey(readFileSync(publicKeyFile, 'utf8')) : undefined;
  const remote = jwks !== undefined && /^https?:\/\//.test(jwks);
  // Checked again here (the configuration refuses it too): keys fetched over plain http from another host could be swapped on the way.
  if (remote && !/^https:\/\//.test(jwks) && !/^http:\/\/(localhost|127\.[\d.]+|\[::1\])(:\d+)?\//.test(jwks)) {
    throw new Error(`JWT_JWKS must be an https URL (http only on loopback), got ${jwks}`);
  }
  // A JWKS file is read once, at start, so a broken one fails the start and not a request.
  const fromFile = jwks && !remote ? (JSON.parse(readFileSync(jwks, 'utf8')) as JwksDocument) : undefined;
  const client = jwks
    ? new jwksRsa.JwksClient({
        jwksUri: jwks,
        fetcher: fromFile ? async () => fromFile : jwksFetcher(jwks, fetchTimeoutMs, minRefetchMs),
        cache: true,
        cacheMaxAge: cacheMs,
        // When a refetch fails, the keys we have keep serving for a bounded time (JWT_JWKS_MAX_STALE_SECONDS), then tokens get 503 jwks_unavailable.
        cacheMaxAgeFallback: maxStaleMs,
      })
    : undefined;

  return {
    enabled: pem !== undefined || client !== undefined,
    /** Candidate keys for a token header's `kid`: the PEM key, and the JWKS key of that `kid`. */
    async keysFor(kid: string | undefined): Promise<KeyObject[]> {
      const keys = pem ? [pem] : [];
      if (!client) return keys;
      try {
        keys.push(createPublicKey((await client.getSigningKey(kid)).getPublicKey()));
      } catch (error) {
        // No key for this kid: the token is invalid, whatever else the JWKS holds.
        if (error instanceof jwksRsa.SigningKeyNotFoundError) return keys;
        throw createError('jwks_unavailable', { cause: error, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
      }
      return keys;
    },
  };
}

function scopesOf(payload: jwt.JwtPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** The parts of a compact JWT, decoded without any check; undefined when it is not one. */
function peek(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !BASE64URL_PART.test(parts[2]!)) return undefined;
  const [header, claims] = [jsonPart(parts[0]!), jsonPart(parts[1]!)];
  return header && claims ? { header, claims } : undefined;
}

/**
 * Verifies tokens with RS256/ES256 keys (and HS256 only when `JWT_HS_SECRET` is set, for
 * development). Issuer and audience are always checked: the audience is the call site's (default the API's public
 * base URL, the RFC 9728 `resource`), the issuer the one configured authorization server, or this service's own
 * (`local`, verified with its keys, no fetch, and its grant checked). Without an issuer, tokens are refused.
 */
export function createTokenVerifier(
  config: Pick<Config, 'jwt' | 'publicBaseUrl' | 'authorizationServers'>,
  { now = () => Date.now(), jwks, local }: { now?: () => number; jwks?: JwksOptions; local?: LocalIssuer | undefined } = {},
): TokenVerifier {
  const { jwt: settings } = config;
  const keys = createKeySource(settings, jwks);
  const hsKey = settings.hsSecret ? createSecretKey(Buffer.from(settings.hsSecret, 'utf8')) : undefined;
  const configured = settings.issuer ?? config.authorizationServers.filter((server) => server !== local?.issuer);
  const issuer = typeof configured === 'string' ? configured : configured.length === 1 ? configured[0] : undefined;
  const restAudience = settings.audience ?? config.publicBaseUrl;
  const externalEnabled = (keys.enabled || hsKey !== undefined) && issuer !== undefined;
  const invalid = (cause?: unknown) => createError('invalid_token', { cause });
  const accepted = new Set<string>([...(keys.enabled ? ASYMMETRIC_ALGS : []), ...(hsKey ? ['HS256'] : [])]);
  const notExpired = (claims: Record<string, unknown>) => typeof claims.exp === 'number' && claims.exp * 1000 > now() - settings.clockSkewSeconds * 1000;
  const names = (claims: Record<string, unknown>, audience: string) => (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).includes(audience);
  const acceptedType = (typ: unknown) => typ === undefined || ACCEPTED_TYPES.has(String(typ).toLowerCase());

  /** Signature, issuer, audience, times, `sub` and scope; the payload of a token that passes. */
  function checked(token: string, key: KeyObject, alg: string, expectedIssuer: string, audience: string): jwt.JwtPayload {
    const payload = jwt.verify(token, key, {
      algorithms: [alg as jwt.Algorithm],
      issuer: expectedIssuer,
      audience,
      clockTolerance: settings.clockSkewSeconds,
      clockTimestamp: Math.floor(now() / 1000),
    }) as jwt.JwtPayload;
    if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid(new Error('token has no sub'));
    if (typeof payload.exp !== 'number') throw invalid(new Error('token has no exp'));
    return payload;
  }

  /** A token of this service's own authorization server: its key by `kid`, and its grant still standing. */
  async function verifyLocal(issuerOf: LocalIssuer, token: string, header: Record<string, unknown>, audience: string): Promise<VerifiedToken> {
    const key = typeof header.kid === 'string' ? issuerOf.keys.verification.get(header.kid) : undefined;
    if (!key || header.alg !== key.alg) throw invalid(new Error(`no signing key ${String(header.kid)} for ${String(header.alg)}`));
    let payload: jwt.JwtPayload;
    try {
      payload = checked(token, key.key, key.alg, issuerOf.issuer, audience);
    } catch (error) {
      throw (error as { code?: string }).code === 'invalid_token' ? error : invalid(error);
    }
    const grantId = payload.grant_id;
    if (typeof grantId !== 'string' || grantId === '') throw invalid(new Error('token has no grant_id'));
    let active: boolean;
    try {
      active = await issuerOf.grantActive(grantId);
    } catch (cause) {
      throw createError('store_unavailable', { cause, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
    }
    if (!active) throw invalid(new Error(`grant ${grantId} was revoked or has expired`));
    if (!scopesOf(payload).includes(REQUIRED_SCOPE)) throw createError('insufficient_scope');
    return { userId: payload.sub!, grantId };
  }

  return {
    enabled: externalEnabled || local !== undefined,
    mayBeValid(token: string, { audience = restAudience }: VerifyOptions = {}): boolean {
      const parts = peek(token);
      if (!parts) return false;
      const { header, claims } = parts;
      if (!acceptedType(header.typ) || !names(claims, audience) || !notExpired(claims)) return false;
      if (local && claims.iss === local.issuer) return typeof header.kid === 'string' && local.keys.verification.get(header.kid)?.alg === header.alg;
      return externalEnabled && accepted.has(String(header.alg)) && claims.iss === issuer;
    },
    async verify(token: string, { audience = restAudience }: VerifyOptions = {}): Promise<VerifiedToken> {
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') throw invalid(new Error('not a JWT'));
      const { alg, typ } = decoded.header;
      // RFC 9068: an access token says `at+jwt`; plain `JWT` is common. Anything else (an ID token's own type, a logout token) is not an access token.
      if (!acceptedType(typ)) throw invalid(new Error(`token type ${String(typ)} is not an access token`));
      if (local && decoded.payload.iss === local.issuer) return verifyLocal(local, token, decoded.header as unknown as Record<string, unknown>, audience);
      if (!externalEnabled) throw invalid(new Error('no token verification keys or issuer configured'));
      let candidates: KeyObject[];
      if ((ASYMMETRIC_ALGS as readonly string[]).includes(alg)) candidates = await keys.keysFor(decoded.header.kid);
      else if (alg === 'HS256' && hsKey) candidates = [hsKey];
      else throw invalid(new Error(`algorithm ${alg} is not accepted`));

      let lastError: unknown = new Error('no key matches the token');
      for (const key of candidates) {
        try {
          const payload = checked(token, key, alg, issuer!, audience);
          if (!scopesOf(payload).includes(REQUIRED_SCOPE)) throw createError('insufficient_scope');
          return { userId: payload.sub! };
        } catch (error) {
          if ((error as { code?: string }).code === 'insufficient_scope') throw error;
          lastError = error;
        }
      }
      throw invalid(lastError);
    },
  };
}
