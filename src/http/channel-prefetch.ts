// Routes that read a channel by slug start that read with the credential's own (one round trip for both).
import type { Request } from 'express';
import type { OperationDef } from '../openapi/operations.js';

/**
 * The operation and decoded slug of a path under `/channels/{slug}/`, among `operations`;
 * undefined for any other path, or a slug the router could not decode either.
 */
export function channelPathParser(operations: readonly OperationDef[]): (path: string) => { op: OperationDef; slug: string } | undefined {
  const paths = operations
    .filter((op) => op.path.includes('/channels/{slug}/'))
    .map((op) => {
      const [before, after] = op.path.split('{slug}') as [string, string];
      return { op, before, after };
    });
  return (path) => {
    for (const { op, before, after } of paths) {
      if (!path.startsWith(before) || !path.endsWith(after)) continue;
      const raw = path.slice(before.length, path.length - after.length);
      if (raw === '' || raw.includes('/')) continue;
      try {
        return { op, slug: decodeURIComponent(raw) };
      } catch {
        return undefined;
      }
    }
    return undefined;
  };
}

/** A channel operation whose request may start its work beside the credential check (the search, see `src/serve/search-service.ts`). */
export interface EarlyOperation {
  operationId: string;
  /** The id the slug named when this credential was last let in, if it was. */
  channelId(credential: string, slug: string): string | undefined;
  start(req: Request, credential: string, slug: string): void;
}

/**
 * For `authenticate`'s `beside`: when the request's path is one of `operations`
 * under `/channels/{slug}/`, starts `req.queries.channelAndOwner(slug)` (not awaited; the
 * route awaits the same read); for a GET of `early.operationId`, with the channel id the
 * credential was last let into, and `early.start` too. A path it does not recognise, or
 * cannot decode, is left to the route's own read.
 */
export function channelPrefetch(operations: readonly OperationDef[], { early }: { early?: EarlyOperation } = {}): (req: Request, credential: string) => void {
  const parse = channelPathParser(operations);
  return (req, credential) => {
    const found = parse(req.path);
    if (!found) return;
    if (early && req.method === 'GET' && found.op.operationId === early.operationId) {
      void req.queries.channelAndOwner(found.slug, { channelId: early.channelId(credential, found.slug) });
      early.start(req, credential, found.slug);
    } else {
      void req.queries.channelAndOwner(found.slug);
    }
  };
}
