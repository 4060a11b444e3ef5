// Cross-site request forgery, refused twice over: a synchroniser token (csrf-sync, kept in the session, sent as a
// hidden field) on every POST, and the browser's own word on where a POST comes from (Origin, Sec-Fetch-Site).
import type { Request, RequestHandler } from 'express';
import { csrfSync } from 'csrf-sync';

/** The hidden field every console form carries. */
export const CSRF_FIELD = '_csrf';

const sync = csrfSync({
  getTokenFromRequest: (req) => {
    const body = req.body as Record<string, unknown> | undefined;
    return typeof body?.[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : undefined;
  },
  errorConfig: { statusCode: 403, message: 'This form has expired or did not come from this site; reload the page and send it again.', code: 'csrf_invalid' },
});

/** The session's token (made on first use): what a form's hidden field holds. Needs the session middleware. */
export function csrfToken(req: Request): string {
  return sync.generateToken(req);
}

/** Refuses (403) a POST, PUT, PATCH or DELETE whose hidden field does not carry the session's token. */
export const csrfProtection: RequestHandler = sync.csrfSynchronisedProtection;

/** Whether an error is the CSRF refusal. */
export function isCsrfError(err: unknown): boolean {
  return err === sync.invalidCsrfTokenError || (err as { code?: unknown } | undefined)?.code === 'csrf_invalid';
}

/** A refusal of a cross-site request (a foreign Origin, or Sec-Fetch-Site not same-origin). */
export class CrossSiteError extends Error {
  override name = 'CrossSiteError';
  readonly status = 403;
}

/**
 * Refuses a state-changing request a browser says came from elsewhere: `Sec-Fetch-Site` other than `same-origin`, or an
 * `Origin` that is neither the public base URL's nor the request's own (`<scheme>://<Host>`, the scheme of the base
 * URL). A request with neither header (not a browser) is left to the CSRF token.
 */
export function sameOriginOnly(publicBaseUrl: string): RequestHandler {
  const base = new URL(publicBaseUrl);
  return (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const site = req.get('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin') return next(new CrossSiteError(`Sec-Fetch-Site: ${site}`));
    const origin = req.get('origin');
    if (origin !== undefined) {
      const allowed = [base.origin, req.headers.host ? `${base.protocol}//${req.headers.host.toLowerCase()}` : undefined];
      if (!allowed.includes(origin.toLowerCase())) return next(new CrossSiteError(`Origin: ${origin}`));
    }
    next();
  };
}
