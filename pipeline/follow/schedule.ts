// When to poll next: the configured interval, doubled per consecutive failure up to a ceiling, never before a
// server's `Retry-After` or `Cache-Control: max-age` says (pure arithmetic, unit-tested).

export interface NextPollInput {
  now: number;
  /** The configured interval (FOLLOW_POLL_INTERVAL_SECONDS). */
  intervalSeconds: number;
  /** The ceiling of the backoff (FOLLOW_MAX_BACKOFF_SECONDS). */
  maxBackoffSeconds: number;
  /** Failed polls in a row, this one included (0 after a success). */
  consecutiveFailures: number;
  /** The server's `Retry-After`, ms from now. */
  retryAfterMs?: number | undefined;
  /** The server's `Cache-Control: max-age`, seconds: "do not poll before". */
  maxAgeSeconds?: number | undefined;
}

/** Seconds to wait after `failures` failed polls in a row: interval·2ⁿ⁻¹, capped (never below the interval). */
export function backoffSeconds(intervalSeconds: number, failures: number, maxBackoffSeconds: number): number {
  if (failures <= 0) return intervalSeconds;
  const ceiling = Math.max(intervalSeconds, maxBackoffSeconds);
  // 2^30 already passes any sane ceiling; the cap keeps the power finite.
  return Math.min(ceiling, intervalSeconds * 2 ** Math.min(failures, 30));
}

/**
 * The time of the next poll (ms): the later of the backoff and what the server asked for. A server's wish is
 * honoured up to the backoff ceiling, so a `Retry-After` of a year does not end following.
 */
export function nextPollAt({ now, intervalSeconds, maxBackoffSeconds, consecutiveFailures, retryAfterMs, maxAgeSeconds }: NextPollInput): number {
  const ceilingMs = Math.max(intervalSeconds, maxBackoffSeconds) * 1000;
  const backoffMs = backoffSeconds(intervalSeconds, consecutiveFailures, maxBackoffSeconds) * 1000;
  const asked = Math.min(ceilingMs, Math.max(retryAfterMs ?? 0, (maxAgeSeconds ?? 0) * 1000));
  return now + Math.max(backoffMs, asked);
}

/** `max-age` of a Cache-Control header, seconds; undefined when absent (or `no-cache`/`no-store`, which ask for nothing). */
export function parseMaxAge(cacheControl: string | null | undefined): number | undefined {
  if (!cacheControl) return undefined;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? Number(m[1]) : undefined;
}
