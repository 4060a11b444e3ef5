// One outbound POST (webhook deliveries) under the safe fetcher's rules: scheme and every address checked, the checked
// address pinned for the connection, one deadline for the whole exchange, redirects never followed, and no more of the
// answer read than a few kB.
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { checkedAddresses, parseHttpUrl, pinnedLookup, toHeaders } from './connect.js';
import type { SafeFetchOptions } from './safe-fetch.js';
import { FetchError } from './errors.js';

/** Bytes of an answer kept (for logs); the rest is not read. */
export const POST_RESPONSE_MAX_BYTES = 4096;

export interface SafePostOptions extends Pick<SafeFetchOptions, 'allowPrivate' | 'isAllowedAddress' | 'signal' | 'ca'> {
  /** The whole exchange, up to the answer's head and the bytes kept of its body; default 10 000. */
  timeoutMs?: number;
  /** Identifying User-Agent, always sent. */
  userAgent: string;
  /** Request headers besides user-agent, content-type and content-length. */
  headers?: Record<string, string>;
  /** Default `application/json`. */
  contentType?: string;
  /** Bytes of the answer's body kept; default {@link POST_RESPONSE_MAX_BYTES}. */
  maxResponseBytes?: number;
}

export interface PostResponse {
  /** Any status, 3xx included: a redirect is an answer, not a place to go. */
  status: number;
  headers: Headers;
  /** At most `maxResponseBytes` of the (undecoded) body. */
  body: Buffer;
  /** True when the body went on past what was kept. */
  truncated: boolean;
}

/** Sends the request to the checked addresses and reads at most `max` bytes of the answer, then lets the socket go. */
function exchange(
  url: URL,
  addresses: LookupAddress[],
  headers: Record<string, string>,
  body: Buffer,
  max: number,
  signal: AbortSignal,
  ca: SafePostOptions['ca'],
): Promise<PostResponse> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    // agent: false → a fresh connection per request, so no pooled socket outlives the address check it was made under.
    const req = mod.request(url, { method: 'POST', headers, agent: false, lookup: pinnedLookup(addresses) as never, ...(ca === undefined ? {} : { ca }) });
    const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      const finish = () => resolve({ status: res.statusCode ?? 0, headers: toHeaders(res), body: Buffer.concat(chunks), truncated });
      res.on('data', (chunk: Buffer) => {
        const room = max - kept;
        if (chunk.length > room) {
          if (room > 0) chunks.push(chunk.subarray(0, room));
          kept = max;
          truncated = true;
          // Enough is known (the status); the rest of a large or endless answer is never read.
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      res.once('end', finish);
      res.once('error', reject);
    });
    req.end(body);
  });
}

/**
 * POSTs `body` to `url` once. Returns the answer's status, whatever it is (a 3xx is returned, never followed), with at
 * most `maxResponseBytes` of its body. Throws FetchError for a refused URL or address (`bad_url`, `scheme`,
 * `private_address`), a transport failure (`network`) or the deadline (`timeout`).
 */
export async function postBytes(
  url: string,
  body: Buffer | string,
  { timeoutMs = 10_000, userAgent, headers = {}, contentType = 'application/json', maxResponseBytes = POST_RESPONSE_MAX_BYTES, signal, ca, ...rules }: SafePostOptions,
): Promise<PostResponse> {
  const target = parseHttpUrl(url, undefined, 'posted to');
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchError('timeout', target.href, `${target.href}: no answer within ${timeoutMs} ms`, { limit: timeoutMs })), timeoutMs);
  const onOuter = () => controller.abort(signal!.reason);
  if (signal?.aborted) onOuter();
  else signal?.addEventListener('abort', onOuter, { once: true });
  try {
    const addresses = await checkedAddresses(target, rules);
    if (controller.signal.aborted) throw controller.signal.reason;
    const sent: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = value;
    Object.assign(sent, { 'content-type': contentType, 'content-length': String(payload.length), 'user-agent': userAgent });
    return await exchange(target, addresses, sent, payload, maxResponseBytes, controller.signal, ca);
  } catch (err) {
    if (controller.signal.aborted) throw controller.signal.reason;
    if (err instanceof FetchError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new FetchError('network', target.href, `${target.href}: ${code ?? (err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onOuter);
  }
}
