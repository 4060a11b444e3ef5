// Admission control for searches: a few run at once, a few more wait briefly, the rest are refused at once with 503 search_busy.
import type { Request, RequestHandler, Response } from 'express';
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

/** A semaphore with a bounded, time-limited wait queue. */
export interface Admission {
  /** Searches holding a place. */
  readonly running: number;
  /** Searches waiting for one. */
  readonly waiting: number;
  /** Searches refused since the gate was made (queue full, wait ran out, caller gone). */
  readonly refused: number;
  /**
   * Resolves with the function that gives the place back (call it exactly once), or rejects
   * with a 503 `search_busy` (with `Retry-After`) when the queue is full or the wait ran out.
   * An aborted `signal` leaves the queue at once (the caller went away; nobody needs the place).
   */
  admit(signal?: AbortSignal): Promise<() => void>;
}

interface Waiter {
  grant(): void;
}

const busy = (why: string) =>
  createError('search_busy', {
    message: `Too many searches are running (${why}); retry after the delay in Retry-After.`,
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });

/**
 * Creates the admission gate. First come, first served: a place given back goes to the
 * longest-waiting search, so a steady flood cannot starve one that is already queued.
 */
export function createAdmission({ concurrency, queue, maxWaitMs }: AdmissionOptions): Admission {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  let running = 0;
  let refused = 0;
  const waiters: Waiter[] = [];
  const refuse = (why: string) => {
    refused++;
    return busy(why);
  };

  const release = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.shift();
      if (next)
        next.grant(); // the place passes on: `running` stays the same
      else running--;
    };
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
    admit(signal) {
      if (signal?.aborted) return Promise.reject(refuse('the request was abandoned'));
      if (running < concurrency) {
        running++;
        return Promise.resolve(release());
      }
      if (waiters.length >= queue) return Promise.reject(refuse(`${running} running, ${waiters.length} waiting`));
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
          grant() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(release());
          },
        };
        const timer = setTimeout(() => leave(refuse(`no place within ${maxWaitMs} ms`)), maxWaitMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}

/**
 * Middleware holding one place of `admission` for the whole of each request `appliesTo`
 * picks, from before its credential is looked up until its response is done. In front of
 * everything that costs a store round trip, so a refused search costs none, and before
 * the request's store budget starts, so the wait for a place does not eat it.
 */
export function admissionGate(admission: Admission, appliesTo: (req: Request) => boolean): RequestHandler {
  return async (req, res, next) => {
    if (!appliesTo(req)) return next();
    const release = await admission.admit(abandoned(res));
    res.once('finish', release).once('close', release);
    next();
  };
}

/** Aborts when the connection closes before the answer is sent: a request still waiting for a place then leaves the queue, a running search stops. */
export function abandoned(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
