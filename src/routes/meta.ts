// Documents served without a credential: the OpenAPI description and the RFC 9728 metadata.
import type { RequestHandler } from 'express';

/** Serves a JSON document built once at start-up. */
export function serveDocument(document: unknown): RequestHandler {
  const body = JSON.stringify(document);
  return (_req, res) => {
    res.type('application/json').send(body);
  };
}
