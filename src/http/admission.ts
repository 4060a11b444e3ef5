// Admission control for searches: a few run at once, a few more wait briefly, the rest are refused at once: 429 when the caller is over its share, else 503 search_busy.
import type { Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { createError } from '../errors.js';

/** Seconds a refused search is told to wait: the queue turns over within about a second. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

export interface AdmissionOptions {
  /** Searches running at once. */
  concurrency: number;
  /** Searches that may wait for a place; one more is refused at once. */
  queue: number;
  /** Longest a search waits for a place before it is refused. */
  maxWaitMs: number;
}

/** A semaphore with a bounded, time-limited wait queue, shared fairly between its callers. */
export interface Admission {
  /** Searches holding a place. */
  readonly running: number;
  /** Searches waiting for one. */
  readonly waiting: number;
  /** Searches refused since the gate was made (queue full, wait ran out, caller gone). */
  readonly refused: number;
  /**
   * Resolves with the function that gives the place back (call it exactly once), or rejects
   * (with `Retry-After`) when the queue is full or the wait ran out: 429 `too_many_searches`
   * when the caller is over its own share (see {@link overShare}), else 503 `search_busy`.
   * An aborted `signal` leaves the queue at once (the caller went away; nobody needs the place).
   * `caller` (a credential, a client IP) is whose search it is: see {@link createAdmission}.
   */
  admit(signal?: AbortSignal, caller?: string): Promise<() => void>;
}

interface Waiter {
  caller: string;
  grant(): void;
  /** Leaves the queue with this refusal. */
  refuse(error: Error): void;
}

const busy = (why: string) =>
  createError('search_busy', {
    message: `Too many searches are running (${why}); retry after the delay in Retry-After.`,
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });

/** The caller's own flood: a client error (429), so that monitors alerting on 5xx are not woken by one client. */
const callerOverShare = (why: string) =>
  createError('too_many_searches', {
    message: `Too many searches from this caller at once (${why}); retry after the delay in Retry-After.`,
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });

/**
 * Whether a refused search's caller was over its own share of the running places: it holds at least an equal
 * split of them among the callers holding or awaiting one (itself counted). Then the refusal is its own doing;
 * otherwise other callers or a slow store filled the share.
 */
export function overShare({ held, callers, concurrency }: { held: number; callers: number; concurrency: number }): boolean {
  return held >= Math.ceil(concurrency / Math.max(1, callers));
}

/**
 * Creates the admission gate, fair between callers: a place given back goes to the waiting
 * search whose caller holds the fewest places, then was given one least recently (round robin;
 * the longest-waiting of that caller), and when the
 * queue is full a caller with fewer searches waiting takes the place of the newest search of
 * the caller with the most. One caller's flood fills the gate only while nobody else asks;
 * a single caller is served first come, first served.
 */
export function createAdmission({ concurrency, queue, maxWaitMs }: AdmissionOptions): Admission {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  let running = 0;
  let refused = 0;
  const waiters: Waiter[] = [];
  const holding = new Map<string, number>();
  // When each caller holding or awaiting a place was last given one (a counter): round robin among equals.
  const lastGranted = new Map<string, number>();
  let grants = 0;
  const hold = (caller: string, by: number) => {
    const n = (holding.get(caller) ?? 0) + by;
    if (by > 0) lastGranted.set(caller, ++grants);
    if (n > 0) holding.set(caller, n);
    else {
      holding.delete(caller);
      if (!waiters.some((w) => w.caller === caller)) lastGranted.delete(caller);
    }
  };
  /** Callers holding or awaiting a place, `caller` included. */
  const activeCallers = (caller: string) => new Set([...holding.keys(), ...waiters.map((w) => w.caller), caller]).size;
  /** A refusal: 429 when `caller` (given, and already holding its share) caused it, 503 otherwise. */
  const refuse = (why: string, caller?: string) => {
    refused++;
    if (caller !== undefined && overShare({ held: holding.get(caller) ?? 0, callers: activeCallers(caller), concurrency })) return callerOverShare(why);
    return busy(why);
  };
  /** The waiter a place goes to: its caller holds the fewest places, then was served least recently; the first such in the queue. */
  const rank = (w: Waiter): [number, number] => [holding.get(w.caller) ?? 0, lastGranted.get(w.caller) ?? 0];
  const nextWaiter = (): Waiter | undefined => {
    let best: Waiter | undefined;
    for (const w of waiters) {
      if (!best) best = w;
      else {
        const [[h, g], [bh, bg]] = [rank(w), rank(best)];
        if (h < bh || (h === bh && g < bg)) best = w;
      }
    }
    return best;
  };

  const release = (caller: string) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      hold(caller, -1);
      const next = nextWaiter();
      if (next) {
        waiters.splice(waiters.indexOf(next), 1);
        next.grant(); // the place passes on: `running` stays the same
      } else running--;
    };
  };

  /** When the queue is full: the newest waiter of the caller with the most waiting, if it has more than `caller`. */
  const displaceable = (caller: string): Waiter | undefined => {
    const count = new Map<string, number>();
    for (const w of waiters) count.set(w.caller, (count.get(w.caller) ?? 0) + 1);
    let heaviest: string | undefined;
    for (const [c, n] of count) if (heaviest === undefined || n > count.get(heaviest)!) heaviest = c;
    if (heaviest === undefined || count.get(heaviest)! <= (count.get(caller) ?? 0) + 1) return undefined;
    return waiters.findLast((w) => w.caller === heaviest);
  };

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
    get refused() {
      return refused;
    },
    admit(signal, caller = '') {
      if (signal?.aborted) return Promise.reject(refuse('the request was abandoned'));
      if (running < concurrency) {
        running++;
        hold(caller, 1);
        return Promise.resolve(release(caller));
      }
      if (waiters.length >= queue) {
        const displaced = displaceable(caller);
        if (!displaced) return Promise.reject(refuse(`${running} running, ${waiters.length} waiting`, caller));
        // The caller with the most waiting gives up its newest place: that is its own flood, whatever it holds.
        refused++;
        displaced.refuse(callerOverShare(`${running} running, ${waiters.length} waiting; its place went to another caller`));
      }
      return new Promise((resolve, reject) => {
        const leave = (error: Error) => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        };
        const onAbort = () => leave(refuse('the request was abandoned'));
        const waiter: Waiter = {
          caller,
          grant() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            hold(caller, 1);
            resolve(release(caller));
          },
          refuse: leave,
        };
        const timer = setTimeout(() => leave(refuse(`no place within ${maxWaitMs} ms`, caller)), maxWaitMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}

/** The caller of an anonymous search: its client IP (an IPv6 address by its /56, as the rate limiters count it). */
export const clientAddress = (req: Request): string => `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`;

/** Aborts when the connection closes before the answer is sent: a request still waiting for a place then leaves the queue, a running search stops. */
export function abandoned(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
