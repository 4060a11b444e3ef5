// What the middleware chain attaches to each request, declared once for every handler.
import type { Logger } from '../../core/ground/logger.js';
import type { Principal } from '../auth/principal.js';
import type { Queries } from '../store/queries.js';
import type { Presented } from '../auth/presented.js';

declare global {
  namespace Express {
    interface Request {
      /** Set by `requestId()`; echoed in `X-Request-Id` and every error body. */
      requestId: string;
      /** `Date.now()` when the request arrived (the store time budget counts from `createQueries`, after the search gate). */
      startedAt: number;
      /** Child logger carrying the request id. */
      log: Logger;
      /** The credential headers as read once (`presentCredential()`), before anything is looked up. */
      presented: Presented;
      /** Store reads of this request, sharing its time budget. */
      queries: Queries;
      /** Who is calling, once `authenticate()` has run and succeeded. */
      principal?: Principal;
      /** The checked credential (`key:<hash>` or `sub:<token subject>`), for what a process remembers per credential. */
      credential?: string;
      /** Why the presented credential was refused, decided once by `authenticate()`; thrown by `requireCredential()` after rate limiting. */
      refusal?: unknown;
    }
  }
}

export {};
