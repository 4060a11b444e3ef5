// What the middleware chain attaches to each request, declared once for every handler.
import type { Logger } from '../logger.js';
import type { Principal } from '../auth/principal.js';
import type { Queries } from '../store/queries.js';
import type { EarlySearch } from '../search/search.js';

declare global {
  namespace Express {
    interface Request {
      /** Set by `requestId()`; echoed in `X-Request-Id` and every error body. */
      requestId: string;
      /** `Date.now()` when the request arrived; the store time budget counts from it. */
      startedAt: number;
      /** Child logger carrying the request id. */
      log: Logger;
      /** Store reads of this request, sharing its time budget. */
      queries: Queries;
      /** Who is calling, once `resolveCredential()` has run and succeeded. */
      principal?: Principal;
      /** The checked credential (`key:<hash>` or `sub:<token subject>`), for what a process remembers per credential. */
      credential?: string;
      /** A search started beside the credential and channel checks (`startEarlySearch`), used only when they agree. */
      earlySearch?: EarlySearch;
      /** Why the presented credential was refused; thrown by `requireCredential()` after rate limiting. */
      credentialError?: unknown;
      /** Query parameters after validation, typed and with defaults (`validateParams()`). */
      validQuery: Record<string, unknown>;
    }
  }
}

export {};
