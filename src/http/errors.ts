// The one place errors become responses: JSON `{ error, code, requestId }`, never HTML, never a stack trace.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { createError, toApiError } from '../errors.js';
import { bearerChallenge, scopeChallenge } from '../auth/challenge.js';
import { credentialPresented } from '../auth/authenticate.js';
import type { Logger } from '../logger.js';

/** Last route: nothing matched. */
export function routeNotFound(): RequestHandler {
  return () => {
    throw createError('route_not_found');
  };
}

/** Renders anything thrown; 401s get the Bearer challenge, a missing scope its scope challenge, 5xx are logged with their cause. */
export function renderErrors({ publicBaseUrl, log }: { publicBaseUrl: string; log: Logger }): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toApiError(err);
    const reqLog = req.log ?? log;
    // A 500 is our bug: full error. Other 5xx are outages of something we depend on: a warning.
    if (error.status === 500) reqLog.error({ err, code: error.code }, 'request failed');
    else if (error.status > 500) reqLog.warn({ err: error.cause ?? error, code: error.code }, 'request failed');
    if (res.headersSent) {
      // Too late for an error body (a streamed response broke): cut the connection so the client sees a failure.
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    if (error.status === 401) {
      res.setHeader('WWW-Authenticate', bearerChallenge(publicBaseUrl, { credentialPresented: credentialPresented(req.headers) }));
    } else if (error.code === 'insufficient_scope') {
      res.setHeader('WWW-Authenticate', scopeChallenge(publicBaseUrl));
    }
    res.status(error.status).json({
      ...error.extra,
      error: error.message,
      code: error.code,
      requestId: req.requestId,
      ...(error.parameter !== undefined ? { parameter: error.parameter } : {}),
    });
  };
}
