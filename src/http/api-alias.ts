// `/api/*` is an alias of `/api/v1/*` (decision 18): rewritten once, before routing.
import type { RequestHandler } from 'express';

/** Rewrites `/api/<x>` to `/api/v1/<x>` unless `<x>` already names a version (`v1`, `v2`, …). */
export function unversionedAlias(): RequestHandler {
  return (req, _res, next) => {
    if (/^\/api(\/|\?|$)/.test(req.url) && !/^\/api\/v\d+(\/|$|\?)/.test(req.url)) {
      req.url = `/api/v1${req.url.slice('/api'.length)}`;
    }
    next();
  };
}
