// Key guessing made cheap and slow for the guesser, never for the key's holder: failed lookups are throttled per IP, a key that verifies always passes.
import type { Request, RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { MemoryStore, ipKeyGenerator, type Options } from 'express-rate-limit';
import { credentialPresented, KEY_NOT_FOUND, presentedKeyCredential, presentedToken, presentsApiKey } from '../auth/authenticate.js';
import { createError } from '../errors.js';

/** Keys that verified here (the most recent ones): only their requests start channel reads beside the key's own. */
const VOUCHED_MAX = 10_000;

export interface KeyLookupGuard {
  /**
   * Before credential resolution: counts the lookup a key that has not verified here is about to cost as a failure
   * of the client's IP already (given back when the store finds the key), and notes whether the IP is over its budget.
   */
  check: RequestHandler;
  /** Right after it: gives back the count of a key the store found, keeps a failed one's, and past the budget turns its 401 into a 429. */
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
   * Whether a search presenting a credential waits in the members' share of the search gate (after `check`):
   * only credentials that can be valid. Not a key with a wrong checksum, nor a key that has not verified here
   * from an IP over its budget of failed lookups (lookups in flight included); not an `Authorization` that is no
   * Bearer, nor a token `tokenMayBeValid` rejects (any token while no verifier is configured). A flood of
   * made-up credentials queues in the anonymous share, never in front of members.
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
export function keyLookupGuard({
  max,
  windowSeconds,
  tokenMayBeValid = () => false,
}: {
  max: number;
  windowSeconds: number;
  /** Whether a Bearer token could verify, judged without the store or a fetch (see `TokenVerifier.mayBeValid`); default: none can. */
  tokenMayBeValid?: (token: string) => boolean;
}): KeyLookupGuard {
  // express-rate-limit's store: fixed windows per key, expired entries swept by an unref'd timer.
  const failures = new MemoryStore();
  failures.init({ windowMs: windowSeconds * 1000 } as Options);
  const vouchedFor = new LRUCache<string, true>({ max: VOUCHED_MAX });
  const presented = new WeakMap<Request, string>();
  const overBudget = new WeakMap<Request, number>();
  /** Requests whose lookup is counted as a failure in advance: the IP it was counted against. */
  const inFlight = new WeakMap<Request, string>();
  const ipOf = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');
  const retryAfter = (resetTime: Date | undefined) => (resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowSeconds);
  const giveBack = (req: Request) => {
    const ip = inFlight.get(req);
    if (ip === undefined) return;
    inFlight.delete(req);
    void failures.decrement(ip);
  };
  return {
    check: async (req, res, next) => {
      if (!presentsApiKey(req.headers)) return next();
      const ip = ipOf(req);
      const credential = presentedKeyCredential(req.headers);
      // A key that verified here lately, or one refused without a lookup (wrong checksum): only read the budget.
      if (credential === undefined || vouchedFor.has(credential)) {
        const seen = await failures.get(ip);
        if (seen && seen.totalHits >= max) overBudget.set(req, retryAfter(seen.resetTime));
        return next();
      }
      // Counted from the start: concurrent made-up keys from one IP see each other's lookups, not only finished ones.
      const { totalHits, resetTime } = await failures.increment(ip);
      inFlight.set(req, ip);
      if (totalHits > max) overBudget.set(req, retryAfter(resetTime));
      // Refused before the lookup ended (the gate, a hang-up): the count goes back.
      res.once('close', () => giveBack(req));
      next();
    },
    count: async (req, _res, next) => {
      if (req.credential?.startsWith('key:')) vouchedFor.set(req.credential, true);
      const notFound = (req.credentialError as { cause?: unknown } | undefined)?.cause === KEY_NOT_FOUND;
      if (!notFound)
        giveBack(req); // found, or not decided (the store failed): not a failed lookup
      else {
        const credential = presented.get(req);
        if (credential) vouchedFor.delete(credential); // revoked since it last verified
        let wait = overBudget.get(req);
        if (inFlight.has(req))
          inFlight.delete(req); // counted in `check` already
        else {
          const { totalHits, resetTime } = await failures.increment(ipOf(req));
          if (wait === undefined && totalHits > max) wait = retryAfter(resetTime);
        }
        if (wait !== undefined) req.credentialError = createError('rate_limited', { headers: { 'Retry-After': String(wait) }, cause: KEY_NOT_FOUND });
      }
      next();
    },
    memberShare(req) {
      if (!credentialPresented(req.headers)) return false;
      if (!presentsApiKey(req.headers)) {
        // Not a key: a member only with a token that can verify (`Basic …`, garbage, any token without a verifier: anonymous).
        const token = presentedToken(req.headers);
        return token !== undefined && tokenMayBeValid(token);
      }
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
