// Structured JSON logging (pino), one logger per process, secrets redacted.
import { pino, type DestinationStream, type Logger } from 'pino';

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
  // Webhook signing secrets, alone or in an endpoint logged whole.
  'secret',
  'previousSecret',
  '*.secret',
  '*.previousSecret',
  // The store client's error carries the request it sent (an endpoint's body, a rotation's new secret) in
  // `meta.meta.request`: a refused write must not print it (security review 2026-11-27, item 10).
  'meta.meta.request',
  '*.meta.meta.request',
  // Its answer too: a real-time GET or an update returning `_source` echoes an endpoint, sealed secrets included.
  'meta.body',
  '*.meta.body',
  // Sealed secrets (a new endpoint's, a list of signing secrets) and the sealing keys of a settings group logged whole.
  'sealedSecret',
  '*.sealedSecret',
  'secrets',
  '*.secrets',
];

/**
 * Creates the process logger. Ops scripts log to stderr (`fd: 2`) so that their
 * stdout stays machine-readable (for example `eval "$(npm run -s services -- up)"`).
 */
export function createLogger({
  name = 'creator-content-api',
  level = 'info',
  fd = 1,
  destination,
}: {
  name?: string;
  level?: string;
  fd?: 1 | 2;
  /** Where the lines go instead of `fd` (a file, or the demo's file-and-terminal pair). */
  destination?: DestinationStream;
} = {}): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' }, base: { name } }, destination ?? pino.destination({ fd, sync: true }));
}
