// Requests Node's HTTP layer answers before Express sees them (oversize URL or headers, garbage, timeouts, CONNECT) still get the JSON error body.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_ERRORS, createError, type ApiErrorCode } from '../errors.js';
import type { Logger } from '../../core/ground/logger.js';
import { errorBody } from './errors.js';
import { ALLOW } from './methods.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * The server's timeouts, set explicitly rather than left to Node's defaults: a client that
 * trickles its headers (slowloris) is cut off after `headersTimeoutMs`, a whole request after
 * `requestTimeoutMs`, each with a JSON 408 (see {@link jsonClientErrors}). Node checks them
 * every `connectionsCheckingInterval`, by default 30 s, which would let a slow client hold its
 * socket that much longer: a second, or the header timeout if shorter.
 */
export function httpServerOptions({ headersTimeoutMs, requestTimeoutMs }: { headersTimeoutMs: number; requestTimeoutMs: number }): ServerOptions {
  return {
    headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
  };
}

/** The parser's or server's error code → ours. */
function codeFor(err: NodeJS.ErrnoException): ApiErrorCode {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'request_too_large';
  // headersTimeout / requestTimeout ran out before the request was complete.
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADER_TIMEOUT') return 'request_timeout';
  return 'malformed_url';
}

/** A whole HTTP/1.1 response with our error body, closing the connection. */
function errorResponse(code: ApiErrorCode, extraHeaders = ''): { text: string; requestId: string } {
  const { status } = API_ERRORS[code];
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(createError(code), requestId));
  const text =
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: private, no-store\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `X-Request-Id: ${requestId}\r\n` +
    extraHeaders +
    'Connection: close\r\n\r\n' +
    body;
  return { text, requestId };
}

/**
 * Node answers a parse failure with a bare `431`/`400`/`408` and no body, and drops a
 * `CONNECT` without a word; this writes our error shape instead and closes the connection,
 * as Node would: `request_too_large` (431) for a URL or headers over the 16 KB parser
 * limit, `request_timeout` (408) when the request did not arrive within the server's
 * header or request timeout, `malformed_url` (400) otherwise, and `method_not_allowed`
 * (405) for `CONNECT`. When a response to an earlier request on the socket has started,
 * nothing is written (it would land inside that response): the socket is destroyed.
 */
export function jsonClientErrors(server: Server, { log }: { log?: Logger } = {}): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The peer is gone, or a response already started on this socket: nothing can be written.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const code = codeFor(err);
    const { text, requestId } = errorResponse(code);
    log?.debug({ err: { code: err.code, message: err.message }, requestId }, 'request refused by the HTTP parser');
    socket.end(text);
  });
  // No listener: Node closes the socket without a response. The API is read-only: 405.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    if (!socket.writable) return void socket.destroy();
    socket.end(errorResponse('method_not_allowed', `Allow: ${ALLOW}\r\n`).text);
  });
}
