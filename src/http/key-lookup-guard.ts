// Key guessing made cheap and slow for the guesser, never for the key's holder: failed lookups are throttled per IP, a key that verifies always passes.
import type { Request, RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { MemoryStore, ipKeyGenerator, type Options } from 'express-rate-limit';
import { credentialPresented, KEY_NOT_FOUND, presentedKeyCredential, presentsApiKey } from '../auth/authenticate.js';
import { createError } from '../errors.js';

/** Keys that verified here (the most recent ones): only their requests start channel reads beside the key's own. */
const VOUCHED_MAX = 10_000;

export interface KeyLookupGuard {
  /** Before credential resolution: notes whether the client's IP is over its budget of failed lookups. */
  check: RequestHandler;
  /** Right after it: counts a key the store did not find, and past the budget turns its 401 into a 429. */
  count: RequestHandler;
  /**
   * Whether a request presenting `credential` may start the route's channel reads (and an
   * early search) beside the key lookup. A key that has not verified here (among the last
   * 10,000 that did) may not: a made-up key is refused before any channel or search work,
   * and a revoked one leaves the list at its first refusal. Tokens are verified before
   * they are asked about, so they always may.
   */
  vouched(req: Request, credential: string): boolean;
  /**
   * Whether a search presenting a credential waits in the members' share of the search gate (after `check`).
   * Not a key with a wrong checksum, nor a key that has not verified here from an IP over its budget of
   * failed lookups: a flood of made-up keys queues in the anonymous share, never in front of members.
   */
  memberShare(req: Request): boolean;
}

/**
 * Counts, per client IP (IPv6 by /56) and in this process's memory, the API keys a store
 * lookup found unknown or revoked. Anyone can make well-formed keys (the checksum is
 * public); each costs one lookup, a GET by id, and nothing else (see `vouched`). Past
 * `max` failures in a window, the IP's failing lookups are answered 429 with Retry-After
 * instead of 401, until the window ends. The key of a member behind the same IP (or the
 * same proxy, with `TRUST_PROXY` off) is still looked up and passes: nobody is refused for
 * someone else's failures. The number of lookups an IP can cause stays bounded by the rate
 * limiter, which counts failed credentials against the IP. In memory, not Redis: it must
 * not cost a round trip; each API process counts on its own.
 */
export function keyLookupGuard({ max, windowSeconds }: { max: number; windowSeconds: number }): KeyLookupGuard {
  // express-rate-limit's store: fixed windows per key, expired entries swept by an unref'd timer.
  const failures = new MemoryStore();
  failures.init({ windowMs: windowSeconds * 1000 } as Options);
  const vouchedFor = new LRUCache<string, true>({ max: VOUCHED_MAX });
  const presented = new WeakMap<Request, string>();
  const overBudget = new WeakMap<Request, number>();
  const ipOf = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const retryAfter = (resetTime: Date | undefined) => (resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowSeconds);
  return {
    check: async (req, _res, next) => {
      if (!presentsApiKey(req.headers)) return next();
      const seen = await failures.get(ipOf(req));
      if (seen && seen.totalHits >= max) overBudget.set(req, retryAfter(seen.resetTime));
      next();
    },
    count: async (req, _res, next) => {
      if (req.credential?.startsWith('key:')) vouchedFor.set(req.credential, true);
      if ((req.credentialError as { cause?: unknown } | undefined)?.cause === KEY_NOT_FOUND) {
        const credential = presented.get(req);
        if (credential) vouchedFor.delete(credential); // revoked since it last verified
        const { totalHits, resetTime } = await failures.increment(ipOf(req));
        const wait = overBudget.get(req) ?? (totalHits > max ? retryAfter(resetTime) : undefined);
        if (wait !== undefined) req.credentialError = createError('rate_limited', { headers: { 'Retry-After': String(wait) }, cause: KEY_NOT_FOUND });
      }
      next();
    },
    memberShare(req) {
      if (!credentialPresented(req.headers)) return false;
      if (!presentsApiKey(req.headers)) return true; // a token: verified without the store
      const credential = presentedKeyCredential(req.headers);
      return credential !== undefined && (vouchedFor.has(credential) || !overBudget.has(req));
    },
    vouched(req, credential) {
      if (!credential.startsWith('key:')) return true;
      presented.set(req, credential);
      return vouchedFor.has(credential);
    },
  };
}
