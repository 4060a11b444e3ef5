// X-Request-Id: echo a sane incoming id, otherwise make one; every log line and error body carries it.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../core/ground/logger.js';

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Sets `req.requestId`, `req.startedAt`, a child logger `req.log`, and the response header. */
export function requestId({ log, headerName = 'X-Request-Id' }: { log: Logger; headerName?: string }): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get(headerName);
    req.requestId = incoming !== undefined && SANE_ID.test(incoming) ? incoming : randomUUID();
    req.startedAt = Date.now();
    req.log = log.child({ requestId: req.requestId });
    res.setHeader(headerName, req.requestId);
    next();
  };
}
