// A cheap per-IP limit in front of credential resolution: an IP that keeps presenting unknown API keys stops costing store lookups.
import type { RequestHandler } from 'express';
import { MemoryStore, ipKeyGenerator, type Options } from 'express-rate-limit';
import { KEY_NOT_FOUND, presentsApiKey } from '../auth/authenticate.js';
import { createError } from '../errors.js';

/**
 * Counts, per client IP (IPv6 by /56) and in this process's memory, the API keys that a
 * store lookup found unknown or revoked. Anyone can make well-formed keys (the checksum
 * is public), and each costs a lookup; once an IP has `max` such failures in a window,
 * its requests that present an API key are refused with 429 before the lookup, valid keys
 * included (which key is valid is what a lookup would tell), until the window ends.
 * Only failures count, after the fact: any number of concurrent requests with good keys
 * pass. Requests without a key, and other IPs, are not affected. In memory, not Redis: it
 * exists to spare a round trip, so it must not cost one; each API process counts on its own.
 *
 * Returns two middlewares: `check` goes before credential resolution, `count` right after it.
 */
export function keyLookupGuard({ max, windowSeconds }: { max: number; windowSeconds: number }): { check: RequestHandler; count: RequestHandler } {
  // express-rate-limit's store: fixed windows per key, expired entries swept by an unref'd timer.
  const failures = new MemoryStore();
  failures.init({ windowMs: windowSeconds * 1000 } as Options);
  const ipOf = (req: Parameters<RequestHandler>[0]) => ipKeyGenerator(req.ip ?? 'unknown');
  return {
    check: async (req, _res, next) => {
      if (!presentsApiKey(req.headers)) return next();
      const seen = await failures.get(ipOf(req));
      if (!seen || seen.totalHits < max) return next();
      const seconds = seen.resetTime ? Math.max(1, Math.ceil((seen.resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
      next(createError('rate_limited', { headers: { 'Retry-After': String(seconds) } }));
    },
    count: async (req, _res, next) => {
      if ((req.credentialError as { cause?: unknown } | undefined)?.cause === KEY_NOT_FOUND) await failures.increment(ipOf(req));
      next();
    },
  };
}
