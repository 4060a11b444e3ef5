// Routes that read a channel by slug start that read with the credential's own (one round trip for both).
import type { Request } from 'express';
import type { OperationDef } from '../openapi/operations.js';

/**
 * For `resolveCredential`'s `prefetch`: when the request's path is one of `operations`
 * under `/channels/{slug}/`, starts `req.queries.channelAndOwner(slug)` (not awaited; the
 * route awaits the same read). The slug is decoded as the router decodes it; a path it
 * does not recognise, or cannot decode, is left to the route's own read.
 */
export function channelPrefetch(operations: readonly OperationDef[]): (req: Request) => void {
  const paths = operations.filter((op) => op.path.includes('/channels/{slug}/')).map((op) => {
    const [before, after] = op.path.split('{slug}') as [string, string];
    return { before, after };
  });
  return (req) => {
    for (const { before, after } of paths) {
      if (!req.path.startsWith(before) || !req.path.endsWith(after)) continue;
      const raw = req.path.slice(before.length, req.path.length - after.length);
      if (raw === '' || raw.includes('/')) continue;
      let slug: string;
      try {
        slug = decodeURIComponent(raw);
      } catch {
        return;
      }
      void req.queries.channelAndOwner(slug);
      return;
    }
  };
}
