// Several transcription services behind one worker (TRANSCRIBE_URL lists them): each piece goes to the least busy one,
// at most `perService` requests at a time on each, and a service that failed transiently is passed over for a while as
// long as another can take the piece. One pool per worker process: workers on other machines keep their own.
import type { Logger } from '../../core/ground/logger.js';
import { TranscribeError } from './errors.js';

/** What the pool knows of one service. */
export interface ServiceState {
  busy: number;
  /** Until when (epoch ms) it is passed over after a transient failure; 0: never failed. */
  coolUntil: number;
  /** Order of its last start (higher: more recent), so equally busy services take turns. */
  lastStart: number;
}

/**
 * Which service takes the next piece (pure): among those not in `exclude`, the ones not cooling down, else (every one
 * left is cooling) those whose cooldown ends first; of these, the least busy below `perService`, ties going to the one
 * started longest ago. `wait`: every candidate is at capacity; `none`: no service is left to try.
 */
export function pickService(
  states: readonly ServiceState[],
  { perService, now, exclude = new Set<number>() }: { perService: number; now: number; exclude?: ReadonlySet<number> },
): { pick: number } | 'wait' | 'none' {
  const left = states.map((s, i) => ({ s, i })).filter(({ i }) => !exclude.has(i));
  if (left.length === 0) return 'none';
  const healthy = left.filter(({ s }) => s.coolUntil <= now);
  const soonest = Math.min(...left.map(({ s }) => s.coolUntil));
  const candidates = healthy.length > 0 ? healthy : left.filter(({ s }) => s.coolUntil === soonest);
  const free = candidates.filter(({ s }) => s.busy < perService);
  if (free.length === 0) return 'wait';
  free.sort((a, b) => a.s.busy - b.s.busy || a.s.lastStart - b.s.lastStart || a.i - b.i);
  return { pick: free[0]!.i };
}

export interface ServicesOptions {
  /** Requests at once on each service (TRANSCRIBE_CONCURRENCY). Default 1. */
  perService?: number;
  /** How long a service that failed transiently is passed over (longer when it said `Retry-After`). Default 60 s. */
  cooldownMs?: number;
  now?: () => number;
  log?: Logger | undefined;
}

/** The transcription services of one worker process and what each is doing. */
export class TranscribeServices {
  readonly urls: readonly string[];
  readonly perService: number;
  private readonly states: ServiceState[];
  private readonly cooldownMs: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private started = 0;
  private waiters: (() => void)[] = [];

  constructor(urls: readonly string[], { perService = 1, cooldownMs = 60_000, now = Date.now, log }: ServicesOptions = {}) {
    if (urls.length === 0) throw new Error('TranscribeServices needs at least one service URL');
    this.urls = [...urls];
    this.perService = perService;
    this.cooldownMs = cooldownMs;
    this.now = now;
    this.log = log;
    // The turns start at a random service, so workers started together do not all send their first piece to the first.
    const offset = Math.floor(Math.random() * urls.length);
    this.states = urls.map((_, i) => ({ busy: 0, coolUntil: 0, lastStart: ((i - offset + urls.length) % urls.length) - urls.length }));
  }

  /** Requests at once over every service. */
  get capacity(): number {
    return this.urls.length * this.perService;
  }

  /** Requests in flight on each service, in the order of `urls`. */
  busy(): number[] {
    return this.states.map((s) => s.busy);
  }

  /**
   * Runs `request` on a service: the least busy (waiting for a free slot when all are busy). A transient failure
   * (unreachable, 429, 5xx) passes the service over for the cooldown and tries the piece on each other service once;
   * when every service failed it, the last failure is thrown (BullMQ's retry and backoff take over). Any other
   * failure is the piece's own and is thrown at once.
   */
  async run<T>(request: (url: string) => Promise<T>, { signal }: { signal?: AbortSignal | undefined } = {}): Promise<T> {
    const tried = new Set<number>();
    let last: unknown;
    for (;;) {
      const i = await this.acquire(tried, signal);
      if (i === undefined) throw last;
      try {
        return await request(this.urls[i]!);
      } catch (err) {
        if (!(err instanceof TranscribeError) || !err.transient || signal?.aborted) throw err;
        const state = this.states[i]!;
        const coolMs = Math.max(this.cooldownMs, err.retryAfterMs ?? 0);
        state.coolUntil = this.now() + coolMs;
        // Pieces waiting for a busy service are woken when this one is back, not only when the busy one frees a slot. A
        // timer may fire a millisecond before the clock says the cooldown is over: then it waits out the rest.
        const back = (): void => {
          const left = state.coolUntil - this.now();
          if (left > 0) setTimeout(back, left).unref();
          else this.wake();
        };
        setTimeout(back, coolMs).unref();
        tried.add(i);
        last = err;
        if (tried.size < this.urls.length)
          this.log?.warn({ service: i, err: err.message, cooldownMs: state.coolUntil - this.now() }, 'transcription service failed: the piece goes to another one');
      } finally {
        this.release(i);
      }
    }
  }

  private async acquire(tried: ReadonlySet<number>, signal: AbortSignal | undefined): Promise<number | undefined> {
    for (;;) {
      signal?.throwIfAborted();
      const choice = pickService(this.states, { perService: this.perService, now: this.now(), exclude: tried });
      if (choice === 'none') return undefined;
      if (choice !== 'wait') {
        const state = this.states[choice.pick]!;
        state.busy++;
        state.lastStart = ++this.started;
        return choice.pick;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  private release(i: number): void {
    this.states[i]!.busy--;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }
}

const pools = new WeakMap<object, TranscribeServices>();

/**
 * The pool of a configuration's services, one per configuration object (so one per worker process): every job of the
 * worker shares it, and sees what the others have in flight.
 */
export function servicesFor(transcribe: { urls: readonly string[]; concurrency: number }, log?: Logger): TranscribeServices {
  let pool = pools.get(transcribe);
  if (!pool) {
    pool = new TranscribeServices(transcribe.urls, { perService: transcribe.concurrency, log });
    pools.set(transcribe, pool);
  }
  return pool;
}

/** A pool of one: what a caller given a single URL gets (no waiting beyond its own request, no cooldown to skip to). */
export const singleService = (url: string): TranscribeServices => new TranscribeServices([url], { perService: Number.MAX_SAFE_INTEGER });
