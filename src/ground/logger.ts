// Structured JSON logging (pino), one logger per process, secrets redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

/** Headers and fields that carry credentials never reach a log line. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'apiKey',
  'key',
  'token',
  // A settings group logged whole (`{ enrich: config.enrich }`, `{ remote: config.embedding.remote }`) keeps its key hidden too.
  '*.apiKey',
];

/**
 * Creates the process logger. Ops scripts log to stderr (`fd: 2`) so that their
 * stdout stays machine-readable (for example `eval "$(npm run -s services -- up)"`).
 */
export function createLogger({ name = 'creator-content-api', level = 'info', fd = 1 }: { name?: string; level?: string; fd?: 1 | 2 } = {}): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' }, base: { name } }, pino.destination({ fd, sync: true }));
}
