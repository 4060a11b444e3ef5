// The one outbound fetcher: every URL a creator gives us (feed, transcript, chapters, audio) is fetched through here,
// with the scheme, every address and every redirect hop checked, the checked address pinned for the connection, and
// the decoded bytes counted while they stream.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { basename, dirname, join } from 'node:path';
import { PassThrough, Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedAddresses, parseHttpUrl, pinnedLookup, toHeaders } from './connect.js';
import { byteLimit, decoders } from './decode.js';
import { FetchError, formatBytes, httpStatusError } from './errors.js';

export { describeFetchError, FetchError, httpStatusError, type FetchErrorCode } from './errors.js';
export { readLocalFile } from './local-file.js';

/** A feed of a few thousand items with show notes is a few MB; more than this is not a feed. */
export const FEED_MAX_BYTES = 16 * 1024 ** 2;
/** A transcript of a ten-hour episode with word times is a few MB; more than this is not a transcript or chapters file. */
export const TRANSCRIPT_MAX_BYTES = 16 * 1024 ** 2;

const DEFAULT_USER_AGENT = 'CreatorContentAPI (feed follower)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that belong to the origin they were meant for and are not carried to another one by a redirect. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface SafeFetchOptions {
  /** Decoded bytes, counted while streaming (gzip/deflate/br inflated by us, counted after). */
  maxBytes: number;
  /** The whole request, body included; default 30 000. */
  timeoutMs?: number;
  /** Default 5; each hop is re-checked (scheme, address); https → http is refused. */
  maxRedirects?: number;
  /**
   * Default false: loopback, private (RFC 1918, ULA), link-local, CGNAT, multicast, unspecified, documentation and
   * metadata (169.254.169.254, fd00:ec2::254) addresses are refused. True for tests and local demos
   * (`OUTBOUND_ALLOW_PRIVATE`).
   */
  allowPrivate?: boolean;
  /**
   * An exception to the address rule for one address and port (`true` lets it through although the rule refuses it).
   * For tests that need exactly one loopback server reachable while the rule holds for everything else.
   */
  isAllowedAddress?: (address: string, port: number) => boolean;
  /** Identifying User-Agent, always sent; default a generic one naming the product. */
  userAgent?: string;
  /** Extra request headers, e.g. If-None-Match, If-Modified-Since. */
  headers?: Record<string, string>;
  /** Aborting it aborts the request; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Certificate authorities trusted for https instead of the system's (tests; a host behind a private CA). */
  ca?: string | Buffer;
}

export interface SafeResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: Headers;
  /** The decoded body (empty for 304). */
  body: Buffer;
}

/** One GET to one checked address set; resolves with the response head. */
function send(url: URL, addresses: LookupAddress[], headers: Record<string, string>, signal: AbortSignal, ca: string | Buffer | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    // agent: false → a fresh connection per request, so no pooled socket outlives the address check it was made under.
    const req = mod.request(url, { method: 'GET', headers, agent: false, lookup: pinnedLookup(addresses) as never, ...(ca === undefined ? {} : { ca }) }, resolve);
    const onAbort = () => req.destroy(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
    req.once('error', reject);
    req.end();
  });
}

/** A request's life: one deadline for the whole of it, and the caller's signal, as one signal. */
function deadline(url: string, timeoutMs: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchError('timeout', url, `${url}: no complete answer within ${timeoutMs} ms`, { limit: timeoutMs })), timeoutMs);
  const onOuter = () => controller.abort(outer!.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    /** The error to throw for `err`: the deadline's or the caller's reason once aborted, else a transport failure. */
    failure(err: unknown, at: string): unknown {
      if (controller.signal.aborted) return controller.signal.reason;
      if (err instanceof FetchError) return err;
      const code = (err as NodeJS.ErrnoException).code;
      return new FetchError('network', at, `${at}: ${code ?? (err as Error).message}`, { cause: err });
    },
    /** Ends the request now with `reason` (a rate floor not met). */
    abort(reason: unknown) {
      controller.abort(reason);
    },
    done() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

interface Opened {
  url: URL;
  res: IncomingMessage;
}

/** `promise`, or the signal's reason as soon as it aborts (a slow DNS answer does not outlive the deadline). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Follows redirects by hand, each hop's scheme and addresses checked, up to the final response head. */
async function openFinal(start: string, opts: SafeFetchOptions, signal: AbortSignal): Promise<Opened> {
  const { maxRedirects = 5, userAgent = DEFAULT_USER_AGENT } = opts;
  let url = parseHttpUrl(start);
  const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['user-agent'] = userAgent;
  for (let hop = 0; ; hop++) {
    const addresses = await untilAborted(checkedAddresses(url, opts), signal);
    const res = await send(url, addresses, headers, signal, opts.ca);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return { url, res };
    res.destroy();
    if (hop >= maxRedirects) throw new FetchError('too_many_redirects', url.href, `${start}: more than ${maxRedirects} redirects`, { limit: maxRedirects });
    const next = parseHttpUrl(location, url);
    if (url.protocol === 'https:' && next.protocol === 'http:') throw new FetchError('insecure_redirect', next.href, `${url.href} redirected to plain http (${next.href})`);
    if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
    url = next;
  }
}

/** The decoding stages for an opened response; the response is let go when its coding is refused. */
function decodeStages({ res, url }: Opened): Transform[] {
  try {
    return decoders(res.headers['content-encoding'], url.href);
  } catch (err) {
    res.destroy();
    throw err;
  }
}

/**
 * The response's body as a plain stream for `pipeline`. Given the IncomingMessage itself, Node 22 and 24's pipeline
 * never settles when a later stage fails after the whole body has arrived (a gzip bomb refused at the cap: the
 * job would hang for good, not even ended by the deadline); through this pass-through the failure ends the pipeline,
 * and ending it lets the response (and its connection) go. A connection that closes before the body is complete is a
 * premature close, as pipeline reports it.
 */
function bodyOf(res: IncomingMessage): PassThrough {
  const body = new PassThrough();
  res.on('error', (err) => body.destroy(err));
  res.on('close', () => {
    if (!res.complete) body.destroy(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  });
  body.on('close', () => res.destroy());
  res.pipe(body);
  return body;
}

/** Refuses early when the server declares an undecoded body larger than the cap (no need to read it to know). */
function checkDeclaredLength(opened: Opened, maxBytes: number): void {
  const { res, url } = opened;
  const declared = Number(res.headers['content-length']);
  const encoded = (res.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new FetchError('too_large', url.href, `${url.href}: ${declared} bytes declared, more than ${formatBytes(maxBytes)}`, { limit: maxBytes });
  }
}

/**
 * GET with the rules of SafeFetchOptions; returns any final status (200, 304, 404, 429…) with its decoded body
 * (empty for 304). Throws FetchError only for refusals and transport failures (and the signal's reason when the
 * caller aborts). Sends `Accept-Encoding: gzip, deflate, br` and inflates the body itself, counting after inflation.
 */
export async function fetchBytes(url: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  const life = deadline(url, opts.timeoutMs ?? 30_000, opts.signal);
  let at = url;
  try {
    const opened = await openFinal(url, opts, life.signal);
    at = opened.url.href;
    checkDeclaredLength(opened, opts.maxBytes);
    const chunks: Buffer[] = [];
    await pipeline(
      [
        bodyOf(opened.res),
        ...decodeStages(opened),
        byteLimit(opts.maxBytes, at),
        new Writable({
          write(chunk: Buffer, _enc, done) {
            chunks.push(chunk);
            done();
          },
        }),
      ],
      { signal: life.signal },
    );
    return { url: at, status: opened.res.statusCode ?? 0, headers: toHeaders(opened.res), body: Buffer.concat(chunks) };
  } catch (err) {
    throw life.failure(err, at);
  } finally {
    life.done();
  }
}

/** A download's rate floor: fewer than `bytesPerSecond × windowMs` bytes in any window (the first from the request on) ends it. */
export interface RateFloor {
  bytesPerSecond: number;
  windowMs: number;
}

/**
 * Checks every `windowMs` that the bytes counted by `count()` grew by the floor's share of the window, else calls
 * `fail` with FetchError `too_slow`: a host sending one byte a second does not hold a download for its whole deadline.
 */
function watchRate(url: () => string, count: () => number, { bytesPerSecond, windowMs }: RateFloor, fail: (err: FetchError) => void): () => void {
  if (bytesPerSecond <= 0) return () => undefined;
  const floor = (bytesPerSecond * windowMs) / 1000;
  let before = 0;
  const timer = setInterval(() => {
    const now = count();
    if (now - before < floor) fail(new FetchError('too_slow', url(), `${url()}: fewer than ${Math.ceil(floor)} bytes in ${windowMs} ms`, { limit: bytesPerSecond }));
    before = now;
  }, windowMs);
  return () => clearInterval(timer);
}

/**
 * Streams a 2xx body to `path`: written to a temporary file beside it and renamed when complete, removed on any
 * failure, so `path` holds a whole body or nothing new. A non-2xx answer is FetchError `http_status` (with `status`
 * and `retryAfterMs`), and nothing is written. An error of the local file (no such folder, disk full) is thrown as it is.
 * `minRate`: the body must arrive at least this fast (FetchError `too_slow`, not transient), the wait for the answer included.
 */
export async function downloadToFile(
  url: string,
  path: string,
  opts: SafeFetchOptions & { minRate?: RateFloor },
): Promise<{ url: string; status: number; bytes: number; contentType: string | null }> {
  const life = deadline(url, opts.timeoutMs ?? 30_000, opts.signal);
  let at = url;
  let received = 0;
  const unwatch = opts.minRate
    ? watchRate(
        () => at,
        () => received,
        opts.minRate,
        (err) => life.abort(err),
      )
    : () => undefined;
  const temp = join(dirname(path), `.${basename(path)}.${randomUUID()}.part`);
  let created = false;
  let localError: unknown;
  try {
    const opened = await openFinal(url, opts, life.signal);
    at = opened.url.href;
    const status = opened.res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      opened.res.destroy();
      throw httpStatusError(at, status, toHeaders(opened.res));
    }
    checkDeclaredLength(opened, opts.maxBytes);
    const limiter = byteLimit(opts.maxBytes, at);
    created = true;
    // Counted as they arrive, before decoding: the floor is about what the host sends.
    const arriving = new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        received += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline([bodyOf(opened.res), arriving, ...decodeStages(opened), limiter, createWriteStream(temp, { flags: 'wx' })], { signal: life.signal });
    await rename(temp, path).catch((err: unknown) => {
      localError = err;
      throw err;
    });
    created = false;
    return { url: at, status, bytes: limiter.bytes, contentType: opened.res.headers['content-type'] ?? null };
  } catch (err) {
    // An error of the local file (no such folder, disk full) is reported as it is, not as a network failure.
    const ours = localError !== undefined || (err as NodeJS.ErrnoException).path === temp;
    throw ours ? err : life.failure(err, at);
  } finally {
    unwatch();
    life.done();
    if (created) await rm(temp, { force: true });
  }
}
