// Progress of a long run: a bar on a terminal, periodic structured log lines otherwise.
import cliProgress from 'cli-progress';
import type { Logger } from '../core/ground/logger.js';

export interface Progress {
  /** Sets the counters; cheap enough to call on every event. */
  update(done: number, total: number, fields?: Record<string, number>): void;
  stop(): void;
}

/** The other counters, as the bar shows them: ` | 1200 embedded`. */
const extra = (fields: Record<string, number>): string =>
  Object.entries(fields)
    .map(([name, value]) => ` | ${value} ${name}`)
    .join('');

/**
 * A bar on stderr when it is a TTY; otherwise one `info` line with the counters
 * every `intervalMs` (and a last one on stop), so logs of unattended runs show
 * progress without flooding.
 */
export function createProgress({
  label,
  unit = 'episodes',
  log,
  tty = Boolean(process.stderr.isTTY),
  intervalMs = 5000,
}: {
  label: string;
  /** What is counted. */
  unit?: string;
  log: Logger;
  tty?: boolean;
  intervalMs?: number;
}): Progress {
  const started = Date.now();
  let state = { done: 0, total: 0, fields: {} as Record<string, number> };
  let stopped = false;
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit}{extra} | {duration_formatted} (eta {eta_formatted})`,
        stream: process.stderr,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, fields = {}) {
        if (!started) {
          bar.start(total, done, { extra: extra(fields) });
          started = true;
        }
        bar.setTotal(total);
        bar.update(done, { extra: extra(fields) });
      },
      stop() {
        if (started && !stopped) bar.stop();
        stopped = true;
      },
    };
  }
  const line = (msg: string): void => {
    const seconds = (Date.now() - started) / 1000;
    log.info(
      { label, unit, ...state.fields, done: state.done, total: state.total, seconds: Math.round(seconds), perSecond: +(state.done / Math.max(seconds, 0.001)).toFixed(2) },
      msg,
    );
  };
  const timer = setInterval(() => line('progress'), intervalMs);
  timer.unref();
  return {
    update(done, total, fields = {}) {
      state = { done, total, fields };
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      line('progress: done');
    },
  };
}
