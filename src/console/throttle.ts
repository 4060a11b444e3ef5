// The sign-in throttle: failed attempts counted in Redis per account and per client address; past a few, each attempt
// waits longer, then attempts are refused (429) until the window ends. A success clears the account's count.
import type { Redis } from 'ioredis';

export interface ThrottleOptions {
  redis: Redis;
  prefix: string;
  /** Failures of the account before its attempts are slowed (an address: half of {@link maxFailuresPerAddress}). */
  freeFailures: number;
  /** Failures of one account in the window before its attempts are refused. */
  maxFailures: number;
  /** Failures from one address in the window before its attempts are refused. */
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/** What an attempt must do before it may be checked: wait `delayMs`, or stop (`retryAfterSeconds`). */
export type Verdict = { refused: false; delayMs: number } | { refused: true; retryAfterSeconds: number };

/** The first slowed attempt waits this long; each further failure doubles it, up to {@link MAX_DELAY_MS}. */
export const FIRST_DELAY_MS = 250;
export const MAX_DELAY_MS = 8_000;

/** The wait of an attempt after `failures` failures, `free` of them free. */
export function delayAfter(failures: number, free: number): number {
  const over = failures - free;
  return over <= 0 ? 0 : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (over - 1));
}

export function signInThrottle(options: ThrottleOptions) {
  const { redis, prefix, freeFailures, maxFailures, maxFailuresPerAddress, windowSeconds } = options;
  // The account key takes the user id as typed: a guess at an unknown account is counted as one at a real one (the same
  // answers, the same waits), so the throttle tells nobody which accounts exist.
  const accountKey = (userId: string) => `console:${prefix}signin:account:${encodeURIComponent(userId)}`;
  const addressKey = (ip: string) => `console:${prefix}signin:address:${ip}`;

  return {
    /** Whether an attempt for `userId` from `ip` may go ahead now, and after what wait. */
    async check(userId: string, ip: string): Promise<Verdict> {
      const [account, address] = (await redis.mget(accountKey(userId), addressKey(ip))).map((v) => Number(v ?? 0));
      const refusedBy = [account! >= maxFailures ? accountKey(userId) : undefined, address! >= maxFailuresPerAddress ? addressKey(ip) : undefined].filter(
        (k): k is string => k !== undefined,
      );
      if (refusedBy.length > 0) {
        const ttls = await Promise.all(refusedBy.map((k) => redis.ttl(k)));
        return { refused: true, retryAfterSeconds: Math.max(1, ...ttls) };
      }
      // An address (a whole office behind one NAT) gets half its refusal budget before it is slowed.
      return { refused: false, delayMs: Math.max(delayAfter(account!, freeFailures), delayAfter(address!, Math.floor(maxFailuresPerAddress / 2))) };
    },

    /** Counts a failed attempt against the account and the address, each for the window from its first failure. */
    async failed(userId: string, ip: string): Promise<void> {
      const multi = redis.multi();
      for (const key of [accountKey(userId), addressKey(ip)]) multi.set(key, '0', 'EX', windowSeconds, 'NX').incr(key);
      await multi.exec();
    },

    /**
     * Whether a sign-in with no user id typed (an upstream provider's callback) may go ahead from `ip`: only the
     * address's count applies, as in {@link check}.
     */
    async checkAddress(ip: string): Promise<Verdict> {
      const failures = Number((await redis.get(addressKey(ip))) ?? 0);
      if (failures >= maxFailuresPerAddress) return { refused: true, retryAfterSeconds: Math.max(1, await redis.ttl(addressKey(ip))) };
      return { refused: false, delayMs: delayAfter(failures, Math.floor(maxFailuresPerAddress / 2)) };
    },

    /** Counts a failed sign-in without a user id (an identity linked to no account, a refused callback) against the address. */
    async failedAddress(ip: string): Promise<void> {
      await redis.multi().set(addressKey(ip), '0', 'EX', windowSeconds, 'NX').incr(addressKey(ip)).exec();
    },

    /** A correct password: the account's count starts again (the address keeps its own). */
    async succeeded(userId: string): Promise<void> {
      await redis.del(accountKey(userId));
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;
