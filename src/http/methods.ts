// The API is read-only: on a route's path GET and HEAD are served, OPTIONS is answered, anything else is a 405 (a path without a route is a 404 whatever the method).
import type { RequestHandler } from 'express';
import { createError } from '../errors.js';

export const ALLOW = 'GET, HEAD, OPTIONS';

/** Mounted on the routes' paths after them: 405 JSON with `Allow` for other methods; 204 with `Allow` for OPTIONS (no CORS: this API is called server-side). */
export function allowReadOnly(): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    res.setHeader('Allow', ALLOW);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(createError('method_not_allowed'));
  };
}
