// Key guessing made cheap and slow for the guesser, never for the key's holder: failed lookups are throttled per IP, a key that verifies always passes.
import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { MemoryStore, ipKeyGenerator, type Options } from 'express-rate-limit';
import { createError } from '../errors.js';

/** Keys that verified here (the most recent ones): their lookups are not counted in advance, and they keep the members' share from an IP over its budget. */
const VOUCHED_MAX = 10_000;

/** Cause of an `invalid_api_key` refused after a store lookup (well-formed, but no such key, or revoked): what the guard counts. */
export const KEY_NOT_FOUND = new Error('no such API key, or it is revoked');

export interface KeyLookupGuard {
  /**
   * Before the search gate, for a request whose path takes a credential: counts the lookup a key that has not verified
   * here is about to cost as a failure of the client's IP already (given back when the store finds the key), and notes
   * whether the IP is over its budget.
   */
  check(req: Request, res: Response): Promise<void>;
  /**
   * Whether a search waits in the members' share of the search gate (after `check`): only credentials that can be
   * valid. Not a key with a wrong checksum, nor a key that has not verified here from an IP over its budget of failed
   * lookups (lookups in flight included); not an `Authorization` that is no Bearer, nor a token `tokenMayBeValid`
   * rejects (any token while no verifier is configured). A flood of made-up credentials queues in the anonymous share.
   */
  memberShare(req: Request): boolean;
  /**
   * After the lookup: gives back the count of a key the store found, keeps a failed one's, and returns the refusal to
   * answer: `refusal` itself, or past the IP's budget a 429 with Retry-After in place of its 401.
   */
  settle(req: Request, outcome: { credential?: string | undefined; refusal?: unknown }): Promise<unknown>;
}

/**
 * Counts, per client IP (IPv6 by /56) and in this process's memory, the API keys a store lookup found unknown or
 * revoked. Anyone can make well-formed keys (the checksum is public); each costs one lookup, a GET by id, and nothing
 * else: no channel is read before the key verifies. Past `max` failures in a window, the IP's failing lookups are answered 429 with Retry-After
 * instead of 401, until the window ends. The key of a member behind the same IP (or the same proxy, with `TRUST_PROXY`
 * off) is still looked up and passes: nobody is refused for someone else's failures. The number of lookups an IP can
 * cause stays bounded by the rate limiter, which counts failed credentials against the IP. In memory, not Redis: it
 * must not cost a round trip; each API process counts on its own. Reads the credential from `req.presented`.
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
    async check(req, res) {
      const presented = req.presented;
      if (presented.kind !== 'key') return;
      const ip = ipOf(req);
      // A key that verified here lately, or one refused without a lookup (wrong checksum): only read the budget.
      if (presented.credential === undefined || vouchedFor.has(presented.credential)) {
        const seen = await failures.get(ip);
        if (seen && seen.totalHits >= max) overBudget.set(req, retryAfter(seen.resetTime));
        return;
      }
      // Counted from the start: concurrent made-up keys from one IP see each other's lookups, not only finished ones.
      const { totalHits, resetTime } = await failures.increment(ip);
      inFlight.set(req, ip);
      if (totalHits > max) overBudget.set(req, retryAfter(resetTime));
      // Refused before the lookup ended (the gate, a hang-up): the count goes back.
      res.once('close', () => giveBack(req));
    },
    memberShare(req) {
      const presented = req.presented;
      switch (presented.kind) {
        case 'none':
        case 'invalid':
          return false;
        case 'bearer':
          return tokenMayBeValid(presented.token);
        case 'key':
          return presented.credential !== undefined && (vouchedFor.has(presented.credential) || !overBudget.has(req));
      }
    },
    async settle(req, { credential, refusal }) {
      if (credential?.startsWith('key:')) vouchedFor.set(credential, true);
      // Found, or not decided (the store failed): not a failed lookup.
      if ((refusal as { cause?: unknown } | undefined)?.cause !== KEY_NOT_FOUND) {
        giveBack(req);
        return refusal;
      }
      const presented = req.presented;
      if (presented.kind === 'key' && presented.credential) vouchedFor.delete(presented.credential); // revoked since it last verified
      let wait = overBudget.get(req);
      if (inFlight.has(req))
        inFlight.delete(req); // counted in `check` already
      else {
        const { totalHits, resetTime } = await failures.increment(ipOf(req));
        if (wait === undefined && totalHits > max) wait = retryAfter(resetTime);
      }
      return wait === undefined ? refusal : createError('rate_limited', { headers: { 'Retry-After': String(wait) }, cause: KEY_NOT_FOUND });
    },
  };
}
