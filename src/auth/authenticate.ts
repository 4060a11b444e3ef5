// Turns the request's credential into a Principal: API key (checked against the store on every call) or OAuth token.
import type { RequestHandler } from 'express';
import { createError } from '../errors.js';
import type { TokenVerifier } from './jwt.js';
import { KEY_NOT_FOUND, type KeyLookupGuard } from './key-lookup-guard.js';
import type { Principal } from './principal.js';
import { presentedCredential, type Presented } from './presented.js';
import type { Queries } from '../store/queries.js';
import { isKeyUsable } from './api-keys.js';

/** Paths that take a credential; matched on the raw path, so an undecodable URL still reaches the limiter. */
type AppliesTo = (path: string) => boolean;

/**
 * Reads the credential once into `req.presented` (hash and checksum computed here) and, on a path that takes one, asks
 * the failed-lookup guard whether the client's IP is over its budget: before the search gate, which reads both.
 */
export function presentCredential({ guard, appliesTo }: { guard: KeyLookupGuard; appliesTo: AppliesTo }): RequestHandler {
  return async (req, res, next) => {
    req.presented = presentedCredential(req.headers);
    if (appliesTo(req.path)) await guard.check(req, res);
    next();
  };
}

async function principalOf(presented: Presented, { queries, verifier }: { queries: Queries; verifier: TokenVerifier }): Promise<{ principal: Principal; credential?: string }> {
  switch (presented.kind) {
    case 'none':
      return { principal: { kind: 'anonymous', userId: null } };
    case 'invalid':
      throw createError(presented.code);
    case 'key': {
      // A bad checksum is refused without touching the store: typos and scanners' noise cost nothing.
      if (presented.hash === undefined) throw createError('invalid_api_key');
      const record = await queries.apiKeyByHash(presented.hash);
      // An expired key is refused exactly as a revoked one.
      if (!record || !isKeyUsable(record)) throw createError('invalid_api_key', { cause: KEY_NOT_FOUND });
      return { principal: { kind: 'api_key', userId: record.userId, keyId: record.keyId }, credential: presented.credential };
    }
    case 'bearer': {
      const { userId, grantId } = await verifier.verify(presented.token);
      return { principal: { kind: 'oauth', userId, grantId }, credential: `sub:${userId}` };
    }
  }
}

/**
 * Resolves `req.presented` into `req.principal` and `req.credential`, or decides its refusal (`req.refusal`, here
 * and nowhere else: the guard may make a failed key lookup a 429). The refusal is thrown by {@link requireCredential}
 * after the rate limiter, so callers guessing keys are limited (per IP) like everyone else.
 */
export function authenticate({
  verifier,
  guard,
  appliesTo,
  keyUsed,
}: {
  verifier: TokenVerifier;
  guard: KeyLookupGuard;
  appliesTo: AppliesTo;
  /** Told, once the response has been sent, that a key opened the request (its `lastUsedAt`, off the request's path). */
  keyUsed?: ((keyHash: string) => void) | undefined;
}): RequestHandler {
  return async (req, res, next) => {
    if (!appliesTo(req.path)) return next();
    let refusal: unknown;
    try {
      const { principal, credential } = await principalOf(req.presented, { queries: req.queries, verifier });
      req.principal = principal;
      req.credential = credential;
      const hash = req.presented.kind === 'key' ? req.presented.hash : undefined;
      if (principal.kind === 'api_key' && keyUsed && hash !== undefined) res.once('finish', () => keyUsed(hash));
    } catch (error) {
      refusal = error;
    }
    refusal = await guard.settle(req, { credential: req.credential, refusal });
    if (refusal !== undefined) req.refusal = refusal;
    next();
  };
}

/**
 * Gate of a data endpoint: throws the credential's refusal; lets anonymous callers through
 * only when the deployment reads published content anonymously and the endpoint allows it.
 */
export function requireCredential({ allowAnonymous }: { allowAnonymous: boolean }): RequestHandler {
  return (req, _res, next) => {
    if (req.refusal !== undefined) throw req.refusal;
    if (!req.principal) throw new Error('authenticate() must run before requireCredential()');
    if (req.principal.kind === 'anonymous' && !allowAnonymous) throw createError('credential_missing');
    next();
  };
}
