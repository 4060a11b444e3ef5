// When a failed delivery is tried again: a fixed, growing schedule with upward jitter, lengthened (never shortened)
// by the endpoint's Retry-After (pure).

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/**
 * Waits before each retry: 30 s, 2 min, 10 min, 1 h, 2 h, 4 h, 8 h, 9 h, about 24.2 h in all before jitter
 * (24.2–26.7 h with it), so an endpoint down for a day still gets every change. Nine attempts in all.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [30 * S, 2 * MIN, 10 * MIN, 1 * H, 2 * H, 4 * H, 8 * H, 9 * H];

/** Upward jitter: each wait is stretched by up to this fraction, so retries of many deliveries do not arrive together. */
export const DEFAULT_JITTER = 0.1;

/** The longest Retry-After honoured; an endpoint asking for more is tried again after this. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 6 * H;

export interface RetryPolicy {
  /** Waits before retry 1, 2, …; attempts in all = its length + 1. */
  schedule?: readonly number[];
  /** 0..1: a wait is `schedule[n] × (1 + jitter × random())`. */
  jitter?: number;
  maxRetryAfterMs?: number;
}

/** Attempts a delivery gets under `schedule`: the first, then one per wait. */
export const attemptsFor = (schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number => schedule.length + 1;

/**
 * The wait before the next attempt, after `attemptsMade` (1 after the first failure). Retry-After (on 429/503) is
 * honoured up to `maxRetryAfterMs`, and only when it asks for longer than the schedule: a small one must not shorten
 * the day the schedule covers.
 */
export function retryDelay(
  attemptsMade: number,
  { retryAfterMs, random = Math.random }: { retryAfterMs?: number | undefined; random?: () => number } = {},
  { schedule = DEFAULT_RETRY_SCHEDULE_MS, jitter = DEFAULT_JITTER, maxRetryAfterMs = DEFAULT_MAX_RETRY_AFTER_MS }: RetryPolicy = {},
): number {
  const base = schedule[Math.min(Math.max(attemptsMade, 1), schedule.length) - 1] ?? 0;
  const jittered = Math.round(base * (1 + jitter * random()));
  const asked = retryAfterMs === undefined ? 0 : Math.min(Math.max(retryAfterMs, 0), maxRetryAfterMs);
  return Math.max(jittered, asked);
}

/** The shortest and longest time from the first attempt to the last, without Retry-After. */
export function retryWindow({ schedule = DEFAULT_RETRY_SCHEDULE_MS, jitter = DEFAULT_JITTER }: RetryPolicy = {}): { minMs: number; maxMs: number } {
  const sum = schedule.reduce((a, b) => a + b, 0);
  return { minMs: sum, maxMs: Math.round(sum * (1 + jitter)) };
}
