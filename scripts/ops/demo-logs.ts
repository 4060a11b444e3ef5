// Where the demo's logs go: every structured line (the demo's, its pipeline's, the API's requests) into files under
// `.cache/demo/logs/` (DEMO_LOG_DIR), and only warnings and errors to the terminal, as one readable line each. The
// terminal is for the demo's own lines: the key, the curl commands, each spoken episode going queued → live.
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { createLogger } from '../../core/ground/logger.js';

/** The folder of the demo's log files: DEMO_LOG_DIR, else `<cache>/demo/logs`. */
export function demoLogDir(cacheDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.DEMO_LOG_DIR || path.join(cacheDir, 'demo', 'logs');
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };

/** One pino JSON line as a person reads it: `demo: warning: the demo pipeline did not close cleanly (reason)`. */
export function terminalLine(json: string): string {
  try {
    const line = JSON.parse(json) as { level?: number; name?: string; msg?: string; err?: { message?: string } };
    const reason = line.err?.message ? ` (${line.err.message})` : '';
    return `${line.name ?? 'demo'}: ${LEVEL_NAMES[line.level ?? 40] ?? 'warning'}: ${line.msg ?? ''}${reason}\n`;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
}

/** A stream pino can write to that prints each line readably on stderr. */
function terminal(): DestinationStream {
  return { write: (json: string) => void process.stderr.write(terminalLine(json)) };
}

/**
 * A logger of the demo: every line at `level` and above into `<dir>/demo.log` (JSON, appended), warnings and errors
 * on the terminal too. `terminalLevel` may be raised (never lowered below warn: info is the file's).
 */
export function demoLogger(dir: string, { name, level = 'info', terminalLevel = 'warn' }: { name: string; level?: Level; terminalLevel?: Level }): Logger {
  mkdirSync(dir, { recursive: true });
  const file = pino.destination({ dest: path.join(dir, 'demo.log'), append: true, sync: true });
  const destination = pino.multistream([
    { level, stream: file },
    { level: terminalLevel, stream: terminal() },
  ]);
  return createLogger({ name, level, destination });
}

/** A file descriptor appending to `<dir>/api.log`, for the API process's stdout and stderr. */
export function apiLogFd(dir: string): number {
  mkdirSync(dir, { recursive: true });
  return openSync(path.join(dir, 'api.log'), 'a');
}

/** The last `count` lines of `<dir>/api.log`, as a person reads them: for the API exiting before the demo ends. */
export function apiLogTail(dir: string, count = 10): string {
  try {
    const lines = readFileSync(path.join(dir, 'api.log'), 'utf8').trimEnd().split('\n').slice(-count);
    return lines.map((l) => (l.startsWith('{') ? terminalLine(l) : `${l}\n`)).join('');
  } catch {
    return '';
  }
}
