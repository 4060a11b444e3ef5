// CORS of the creator tool server and its metadata: browser MCP clients must read `WWW-Authenticate` to start signing in.
import type { RequestHandler, Response } from 'express';
import { createError } from '../../errors.js';

/** Request headers an MCP client sends (Streamable HTTP, the 2025 and 2026 revisions) and the credential headers REST reads. */
const ALLOWED_HEADERS = ['authorization', 'x-api-key', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'last-event-id'];

/** Response headers a browser client must read: the challenge (where to sign in) and the session id of the protocol. */
export const EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id';

/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The `scheme://host[:port]` of an `Origin` header; undefined for `null`, garbage and schemes other than http(s). */
function parsedOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function allowOrigin(res: Response, origin: string, methods: string): void {
  res.vary('Origin');
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.setHeader('Access-Control-Allow-Methods', methods);
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
  res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
}

/**
 * CORS for `BASE/mcp`: a browser `Origin` must be the API's own origin or one of `allowedOrigins` (exactly), else 403
 * `origin_forbidden` before anything is read (DNS-rebinding protection, as on the channel tool servers). An allowed
 * origin gets the CORS headers on every answer, a 401 included, and its preflight (OPTIONS) a 204. No `Origin` (MCP
 * clients outside a browser send none) passes without CORS headers; an OPTIONS without one is answered 204 with `Allow`.
 * Credentials are headers, never cookies, so `Access-Control-Allow-Credentials` is not sent.
 */
export function creatorCors({ publicBaseUrl, allowedOrigins }: { publicBaseUrl: string; allowedOrigins: readonly string[] }): RequestHandler {
  const allowed = new Set([new URL(publicBaseUrl).origin, ...allowedOrigins]);
  return (req, res, next) => {
    const header = req.get('origin');
    if (header !== undefined) {
      const origin = parsedOrigin(header);
      if (origin === undefined || !allowed.has(origin)) throw createError('origin_forbidden');
      allowOrigin(res, origin, 'POST, OPTIONS');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', 'POST, OPTIONS');
      res.status(204).end();
      return;
    }
    next();
  };
}

/**
 * CORS for the metadata document: public, credential-free JSON that every browser client of any origin must read
 * before it can sign in (its origin is not known to us yet), so `*`; its preflight (an MCP client sends
 * `MCP-Protocol-Version`) is a 204.
 */
export function metadataCors(): RequestHandler {
  return (req, res, next) => {
    if (req.get('origin') !== undefined) allowOrigin(res, '*', 'GET, HEAD, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', 'GET, HEAD, OPTIONS');
      res.status(204).end();
      return;
    }
    next();
  };
}
