// Requests Node's HTTP parser refuses before Express sees them (oversize URL or headers, garbage) still get the JSON error body.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERRORS } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Node answers a parse failure with a bare `431`/`400` and no body; this writes our error
 * shape instead (`request_too_large` for a URL or headers over the 16 KB parser limit,
 * `malformed_url` otherwise) and closes the connection, as Node would.
 */
export function jsonClientErrors(server: Server, { log }: { log?: Logger } = {}): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The peer is gone (or the response already started): nothing can be written.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 'request_too_large' : 'malformed_url';
    const { status } = ERRORS[code];
    const requestId = randomUUID();
    log?.debug({ err: { code: err.code, message: err.message }, requestId }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: ERRORS[code].message, code, requestId });
    const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: private, no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
