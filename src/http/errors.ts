// The one place errors become responses: JSON `{ error, code, requestId }`, never HTML, never a stack trace.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { createError, type ApiError } from '../errors.js';
import { logFailure } from './log-failure.js';
import { bearerChallenge, scopeChallenge } from '../auth/challenge.js';
import { credentialPresented } from '../auth/presented.js';
import type { Logger } from '../../core/ground/logger.js';
import type { ErrorBody } from '../../core/contract/shapes.js';

/** The body of every error response, the HTTP parser's refusals included: the error's additive fields, then the sentence, code, request id and parameter at fault. */
export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    ...error.extra,
    error: error.message,
    code: error.code,
    requestId,
    ...(error.parameter !== undefined ? { parameter: error.parameter } : {}),
  };
}

/** Last route: nothing matched. */
export function routeNotFound(): RequestHandler {
  return () => {
    throw createError('route_not_found');
  };
}

/** Renders anything thrown; 401s get the Bearer challenge, a missing scope its scope challenge, 5xx are logged with their cause. */
export function renderErrors({ publicBaseUrl, log }: { publicBaseUrl: string; log: Logger }): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = logFailure(req.log ?? log, err, 'request failed');
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
    res.status(error.status).json(errorBody(error, req.requestId));
  };
}
