// Graceful shutdown of the HTTP server: stop accepting, finish in-flight requests, then close the clients.
import type { Server } from 'node:http';
import type { Logger } from '../../core/ground/logger.js';

/**
 * Stops accepting connections, lets in-flight requests finish (idle keep-alive sockets
 * are closed at once), then closes the clients. Requests still running after
 * `graceMs` are cut so a stuck one cannot block a deploy forever.
 */
export async function shutdown(server: Server, { close, log, graceMs = 10_000 }: { close: () => Promise<void>; log: Logger; graceMs?: number }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    log.warn({ graceMs }, 'requests still running after the grace period; closing their connections');
    server.closeAllConnections();
  }, graceMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
  await close();
}
