// Who may drive the workbench: a loopback Host (a rebound DNS name is refused), a same-origin Origin on every write,
// and the per-run token printed with its URL (kept by the page in an HttpOnly, SameSite=Strict cookie, or sent as a
// header by a script) on everything but the page's own files. The store it reads holds unpublished episodes and its calls overwrite files, so nothing else.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { ErrorCatalogue, ErrorCode } from '../../../core/ground/define-errors.js';

/** The header a script (not the page) sends the token in. */
export const TOKEN_HEADER = 'x-workbench-token';

/** The names the workbench answers to; its socket is bound to 127.0.0.1, the other two are the same machine. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Methods that change nothing: no Origin check (a cross-origin page cannot read their answers anyway). */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Every refusal, by stable code. */
export const GUARD_ERRORS = {
  wrong_host: { status: 421, message: 'this workbench answers only to 127.0.0.1, localhost or [::1] on its port' },
  foreign_origin: { status: 403, message: 'a change must come from the workbench page itself (its Origin), or from a script sending the token header' },
  no_token: { status: 401, message: 'no workbench token: open the URL the workbench printed when it started (scripts: send it in the x-workbench-token header)' },
  wrong_token: { status: 401, message: 'wrong workbench token: open the URL the workbench printed when it started (a restart makes a new one)' },
} as const satisfies ErrorCatalogue & Record<string, { status: number; message: string }>;

export type GuardCode = ErrorCode<typeof GUARD_ERRORS>;

/** A fresh per-run token: 32 random bytes, URL-safe. */
export function newWorkbenchToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The `Host` values accepted on `port` (a browser leaves out `:80`). */
export function loopbackHosts(port: number): string[] {
  return LOOPBACK_NAMES.flatMap((name) => (port === 80 ? [`${name}:80`, name] : [`${name}:${port}`]));
}

/** Whether a `Host` header names this workbench: one of the loopback names with its port, nothing else. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  return host !== undefined && loopbackHosts(port).includes(host.toLowerCase());
}

/** Whether an `Origin` is the page's own: the scheme and the (already checked) Host of this request. */
export function isOwnOrigin(origin: string | undefined, host: string): boolean {
  return origin !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
}

/** Equal tokens, compared in constant time (digests first, so a length difference says nothing either). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined || given === '') return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The cookie's name: cookies are not kept apart by port, so two workbenches on one machine each keep their own. */
export function tokenCookieName(port: number): string {
  return `workbench_token_${port}`;
}

/** One cookie's value from a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The refusal a request gets before any route runs, or null when it may go on. `port` is the port it came in on;
 * `publicPaths` are the only paths served without the token (the page and its files, exactly as spelled: routing is
 * case-insensitive and forgives a trailing slash, so the token is the rule and these the exceptions, not the reverse).
 * An absent Origin on a write is a script (browsers send Origin on every non-GET fetch): it is let through only with
 * the token header, which no page can add to another origin's request, so the ambient cookie alone never allows a
 * write whose origin is unknown.
 */
export function refusalOf(
  req: { method: string; path: string; headers: Record<string, string | string[] | undefined> },
  { token, port, publicPaths }: { token: string; port: number; publicPaths: ReadonlySet<string> },
): GuardCode | null {
  const one = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const host = one('host');
  if (!isLoopbackHost(host, port)) return 'wrong_host';
  const origin = one('origin');
  const header = one(TOKEN_HEADER);
  if (!SAFE_METHODS.has(req.method) && !(origin === undefined ? header !== undefined : isOwnOrigin(origin, host!))) return 'foreign_origin';
  if (!publicPaths.has(req.path)) {
    const given = header ?? cookieValue(one('cookie'), tokenCookieName(port));
    if (given === undefined) return 'no_token';
    if (!tokenMatches(given, token)) return 'wrong_token';
  }
  return null;
}

function refuse(res: Response, code: GuardCode): void {
  const { status, message } = GUARD_ERRORS[code];
  res.status(status).setHeader('Cache-Control', 'no-store').json({ error: message, code });
}

/**
 * The guard, first in the workbench's chain: refuses what `refusalOf` refuses, and turns the printed URL
 * (`/?token=…`) into the cookie, then redirects to `/` so the token leaves the address bar and the history.
 */
export function workbenchGuard({ token, publicPaths }: { token: string; publicPaths: ReadonlySet<string> }): RequestHandler {
  return (req: Request, res: Response, next) => {
    const port = req.socket.localPort ?? 0;
    const code = refusalOf(req, { token, port, publicPaths });
    if (code) return refuse(res, code);
    res.setHeader('Referrer-Policy', 'no-referrer');
    const fromUrl = req.query.token;
    if (req.path === '/' && fromUrl !== undefined) {
      if (typeof fromUrl !== 'string' || !tokenMatches(fromUrl, token)) return refuse(res, 'wrong_token');
      res.setHeader('Set-Cookie', `${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`);
      return res.status(303).setHeader('Cache-Control', 'no-store').setHeader('Location', '/').end();
    }
    next();
  };
}
