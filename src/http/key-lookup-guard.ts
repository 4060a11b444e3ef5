// A cheap per-IP limit in front of credential resolution: an IP that keeps presenting unknown API keys stops costing store lookups.
import { ipKeyGenerator, rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { KEY_NOT_FOUND, presentsApiKey } from '../auth/authenticate.js';
import { createError } from '../errors.js';

/**
 * Counts, per client IP (IPv6 by /56) and in this process's memory, the API keys that a
 * store lookup found unknown or revoked. Anyone can make well-formed keys (the checksum
 * is public), and each costs a lookup; past `max` such failures in a window, requests from
 * that IP that present an API key are refused with 429 before the lookup, valid keys
 * included (which key is valid is what a lookup would tell), until the window ends.
 * Requests without a key and other IPs are not affected. In memory, not Redis: it exists
 * to spare a round trip, so it must not cost one; each API process counts on its own.
 */
export function keyLookupGuard({ max, windowSeconds }: { max: number; windowSeconds: number }): RateLimitRequestHandler {
  return rateLimit({
    windowMs: windowSeconds * 1000,
    limit: max,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    skip: (req) => !presentsApiKey(req.headers),
    // Counted up front, given back unless the lookup found no such key.
    skipSuccessfulRequests: true,
    requestWasSuccessful: (req) => (req.credentialError as { cause?: unknown } | undefined)?.cause !== KEY_NOT_FOUND,
    // Its own request property: the credential limiter after it sets `req.rateLimit`.
    requestPropertyName: 'keyLookupLimit',
    handler: (req, _res, next) => {
      const resetTime = (req as { keyLookupLimit?: { resetTime?: Date } }).keyLookupLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
      next(createError('rate_limited', { headers: { 'Retry-After': String(seconds) } }));
    },
  });
}
