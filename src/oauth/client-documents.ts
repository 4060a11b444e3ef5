// Client ID metadata documents (draft-02) are fetched through the project's safe fetcher: https only, no private address, 5 KiB, 2.5 s, no redirect.
import { fetchBytes, type SafeFetchOptions, type SafeResponse } from '../../core/ground/outbound/safe-fetch.js';

/** How a document is fetched: the safe fetcher, or a test's stand-in that serves one from memory. */
export type FetchDocument = (url: string, options: SafeFetchOptions) => Promise<SafeResponse>;

/** The size oidc-provider allows a client ID metadata document (its `fetchResponseBodyLimits`). */
export const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 2500;

/**
 * oidc-provider's `fetch` option: a WHATWG `fetch` over {@link fetchBytes}. The library's own SSRF guard is an undici
 * dispatcher, which this replaces with ours (every address checked and pinned, the body counted while it streams).
 * Only https is fetched: client ID metadata documents are the one thing this server fetches.
 */
export function documentFetch(fetchDocument: FetchDocument = fetchBytes) {
  return async (url: string | URL, init: { signal?: AbortSignal; headers?: Headers } = {}): Promise<Response> => {
    const href = String(url);
    if (!href.startsWith('https://')) throw new TypeError(`only https documents are fetched, not ${href}`);
    const res = await fetchDocument(href, {
      maxBytes: CLIENT_DOCUMENT_MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 0,
      headers: { accept: 'application/json' },
      userAgent: 'CreatorContentAPI (authorization server)',
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const empty = res.status === 204 || res.status === 304;
    return new Response(empty ? null : new Uint8Array(res.body), { status: res.status, headers: res.headers });
  };
}
