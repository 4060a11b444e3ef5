// What a response body goes through before it is counted: its Content-Encoding layers decoded (a bounded number of
// them) and its decoded bytes capped.
import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { FetchError, formatBytes } from './errors.js';

/**
 * The most stacked codings an answer may carry, as Node's own fetch allows. Each layer is one more decoder: 2,000 gzip
 * layers (a 53 KB body) cost 18 s of CPU (security review 2026-11-27, item 6), and no real server sends more than two.
 */
export const MAX_CONTENT_CODINGS = 5;

/** The decoders for a Content-Encoding list, in the order they apply; unknown codings and too many layers are refused. */
export function decoders(encoding: string | undefined, url: string): Transform[] {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CONTENT_CODINGS) {
    throw new FetchError('bad_encoding', url, `${url}: answered with ${codings.length} stacked content codings, more than the ${MAX_CONTENT_CODINGS} allowed`, {
      limit: MAX_CONTENT_CODINGS,
    });
  }
  // Lenient flushing, as browsers are: a body cut short after complete blocks still yields what it holds.
  const z = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const br = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };
  return codings.reverse().map((c) => {
    if (c === 'gzip' || c === 'x-gzip') return zlib.createGunzip(z);
    if (c === 'deflate') return zlib.createInflate(z);
    if (c === 'br') return zlib.createBrotliDecompress(br);
    throw new FetchError('bad_encoding', url, `${url}: answered with an unsupported Content-Encoding (${c})`);
  });
}

/** Passes bytes through and fails the stream once more than `maxBytes` went by: the cap applies to decoded bytes. */
export function byteLimit(maxBytes: number, url: string): Transform & { bytes: number } {
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      limiter.bytes += chunk.length;
      if (limiter.bytes > maxBytes) return done(new FetchError('too_large', url, `${url}: more than ${formatBytes(maxBytes)}`, { limit: maxBytes }));
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  limiter.bytes = 0;
  return limiter;
}
