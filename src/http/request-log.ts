// One structured line per request: method, path, status, duration and who called; never a credential.
import type { RequestHandler } from 'express';

export function requestLog(): RequestHandler {
  return (req, res, next) => {
    res.on('finish', () => {
      const p = req.principal;
      req.log.info(
        {
          method: req.method,
          // The path only: query strings may hold search text, which is the caller's business.
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Date.now() - req.startedAt,
          credential: p?.kind,
          keyId: p?.kind === 'api_key' ? p.keyId : undefined,
          userId: p?.userId ?? undefined,
        },
        'request',
      );
    });
    next();
  };
}
