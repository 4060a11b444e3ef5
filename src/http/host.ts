// The host a request was sent to, from its `Host` header only: the channel of a page or of an MCP server is never chosen by `X-Forwarded-Host`.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The host name of the request's `Host` header (lower-cased, port and IPv6 brackets' port dropped), or undefined when
 * there is none. Unlike Express's `req.hostname`, it never reads `X-Forwarded-Host`, even with `TRUST_PROXY` set:
 * pages are cached by shared caches under the URL's host (`public, max-age=60`, varying on `Accept` only), so the
 * channel they show must be the one that host names. A proxy in front passes the client's `Host` on (nginx:
 * `proxy_set_header Host $host`); see docs/pages.md.
 */
export function requestHost(headers: IncomingHttpHeaders): string | undefined {
  const host = headers.host?.trim().toLowerCase();
  if (!host) return undefined;
  // `[::1]:8080` keeps its brackets, as req.hostname does; `a.example.com:8080` loses its port.
  const from = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', from);
  const name = colon === -1 ? host : host.slice(0, colon);
  return name === '' ? undefined : name;
}
