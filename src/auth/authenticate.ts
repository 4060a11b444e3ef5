// Turns the request's credential into a Principal: API key (checked against the store on every call) or OAuth token.
import type { Request, RequestHandler } from 'express';
import { createError } from '../errors.js';
import { hashApiKey, isWellFormedApiKey, looksLikeApiKey } from './api-keys.js';
import type { TokenVerifier } from './jwt.js';
import type { Principal } from './principal.js';
import type { Queries } from '../store/queries.js';

/** True when the request carries any credential header (valid or not). */
export function credentialPresented(headers: { 'x-api-key'?: unknown; authorization?: unknown }): boolean {
  return headers['x-api-key'] !== undefined || headers.authorization !== undefined;
}

/** Cause of an `invalid_api_key` refused after a store lookup (well-formed, but no such key, or revoked): what the per-IP guard counts. */
export const KEY_NOT_FOUND = new Error('no such API key, or it is revoked');

/** The value of an `Authorization: Bearer <value>` header; undefined for any other header or none. */
const bearerValue = (authorization: unknown): string | undefined => (typeof authorization === 'string' ? /^Bearer +([^\s]+) *$/i.exec(authorization)?.[1] : undefined);

/** True when the request's credential is an API key, so resolving it may cost a store lookup. */
export function presentsApiKey(headers: { 'x-api-key'?: unknown; authorization?: unknown }): boolean {
  if (headers['x-api-key'] !== undefined) return true;
  const bearer = bearerValue(headers.authorization);
  return bearer !== undefined && looksLikeApiKey(bearer);
}

/** The OAuth token of an `Authorization: Bearer <value>` header whose value is not an API key; undefined otherwise. */
export function presentedToken(headers: { authorization?: unknown }): string | undefined {
  const bearer = bearerValue(headers.authorization);
  return bearer !== undefined && !looksLikeApiKey(bearer) ? bearer : undefined;
}

/**
 * The credential (`key:<hash>`) of the well-formed API key the request presents, found without a store lookup;
 * undefined for no key, a token, or a key whose checksum is wrong (refused without a lookup anyway).
 */
export function presentedKeyCredential(headers: { 'x-api-key'?: unknown; authorization?: unknown }): string | undefined {
  const bearer = bearerValue(headers.authorization);
  const value = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'].trim() : bearer !== undefined && looksLikeApiKey(bearer) ? bearer : undefined;
  return value !== undefined && isWellFormedApiKey(value) ? `key:${hashApiKey(value)}` : undefined;
}

async function principalFor(
  { apiKey, authorization }: { apiKey: string | undefined; authorization: string | undefined },
  { queries, verifier, prefetch }: { queries: Queries; verifier: TokenVerifier; prefetch: (credential: string) => void },
): Promise<Principal & { credential?: string }> {
  if (apiKey === undefined && authorization === undefined) return { kind: 'anonymous', userId: null };
  if (apiKey !== undefined && authorization !== undefined) throw createError('multiple_credentials');
  let value: string;
  if (authorization !== undefined) {
    const bearer = bearerValue(authorization);
    if (bearer === undefined) throw createError('unsupported_authorization');
    value = bearer;
  } else {
    value = apiKey!.trim();
  }
  // x-api-key only ever carries keys; a Bearer value is a key when it has the brand prefix.
  if (apiKey !== undefined || looksLikeApiKey(value)) {
    // A bad checksum is refused without touching the store: typos and scanners' noise cost nothing.
    if (!isWellFormedApiKey(value)) throw createError('invalid_api_key');
    const hash = hashApiKey(value);
    const credential = `key:${hash}`;
    // Started in the same tick, the route's reads share the key lookup's round trip.
    prefetch(credential);
    const record = await queries.apiKeyByHash(hash);
    if (!record || record.revokedAt) throw createError('invalid_api_key', { cause: KEY_NOT_FOUND });
    return { kind: 'api_key', userId: record.userId, keyId: record.keyId, credential };
  }
  const userId = await verifier.verify(value);
  const credential = `sub:${userId}`;
  prefetch(credential);
  return { kind: 'oauth', userId, credential };
}

/**
 * Resolves the credential but does not reject yet: the refusal is kept in
 * `req.credentialError` and thrown by {@link requireCredential} after the rate limiter,
 * so callers guessing keys are limited (per IP) like everyone else.
 */
export function resolveCredential({
  verifier,
  appliesTo,
  prefetch,
}: {
  verifier: TokenVerifier;
  /** Paths that take a credential; matched on the raw path, so an undecodable URL still reaches the limiter. */
  appliesTo: (path: string) => boolean;
  /**
   * Starts the store reads the route will need (through `req.queries`, whose reads are
   * made once per request), so they overlap the credential's: called only for a
   * well-formed API key, just before its lookup, or for a verified token. Never for a
   * request without a credential or with a malformed one: those cost the store nothing.
   * `credential` names the credential presented (`key:<hash>` or `sub:<token subject>`),
   * not yet checked when it is a key.
   */
  prefetch?: (req: Request, credential: string) => void;
}): RequestHandler {
  return async (req, _res, next) => {
    if (!appliesTo(req.path)) return next();
    try {
      const { credential, ...principal } = await principalFor(
        { apiKey: req.get('x-api-key'), authorization: req.get('authorization') },
        { queries: req.queries, verifier, prefetch: (presented) => prefetch?.(req, presented) },
      );
      req.principal = principal as Principal;
      req.credential = credential;
    } catch (error) {
      req.credentialError = error;
    }
    next();
  };
}

/**
 * Gate of a data endpoint: rethrows a refused credential; lets anonymous callers through
 * only when the deployment reads published content anonymously and the endpoint allows it.
 */
export function requireCredential({ allowAnonymous }: { allowAnonymous: boolean }): RequestHandler {
  return (req, _res, next) => {
    if (req.credentialError) throw req.credentialError;
    if (!req.principal) throw new Error('resolveCredential() must run before requireCredential()');
    if (req.principal.kind === 'anonymous' && !allowAnonymous) throw createError('credential_missing');
    next();
  };
}
