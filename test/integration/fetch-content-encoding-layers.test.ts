// Stacked Content-Encoding layers against a real server on loopback: at most MAX_CONTENT_CODINGS decoders, more are
// refused before any is built (security review 2026-11-27, item 6).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { describeFetchError } from '../../core/ground/outbound/errors.js';
import { downloadToFile, fetchBytes, FetchError, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';
import { MAX_CONTENT_CODINGS } from '../../core/ground/outbound/decode.js';

const LOCAL: SafeFetchOptions = { maxBytes: 1024 * 1024, allowPrivate: true };

/** `text` gzipped `layers` times, and the matching header value. */
function layered(text: string, layers: number): { body: Buffer; encoding: string } {
  let body = Buffer.from(text);
  for (let i = 0; i < layers; i++) body = zlib.gzipSync(body, { level: 1 });
  return { body, encoding: Array.from({ length: layers }, () => 'gzip').join(', ') };
}

async function refusal(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the fetch should have been refused').to.be.instanceOf(FetchError);
  return err as FetchError;
}

describe('safe fetch: stacked content codings', function () {
  this.timeout(20_000);
  let server: Server;
  let base: string;
  let work: string;

  before(async function () {
    work = await mkdtemp(join(tmpdir(), 'fetch-codings-'));
    // Built before any request, so the timing below is the client's alone.
    const bodies = new Map([2, MAX_CONTENT_CODINGS, MAX_CONTENT_CODINGS + 1, 2000].map((n) => [n, layered('the feed body', n)]));
    server = createServer((req, res) => {
      const layers = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('layers'));
      const { body, encoding } = bodies.get(layers)!;
      res.writeHead(200, { 'content-encoding': encoding, 'content-length': String(body.length) }).end(body);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async function () {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await rm(work, { recursive: true, force: true });
  });

  it('decodes two and up to MAX_CONTENT_CODINGS stacked gzip layers', async function () {
    for (const layers of [2, MAX_CONTENT_CODINGS]) {
      const res = await fetchBytes(`${base}/?layers=${layers}`, LOCAL);
      expect(res.body.toString(), `${layers} layers`).to.equal('the feed body');
    }
  });

  it('refuses one layer more than MAX_CONTENT_CODINGS as bad_encoding, not transient, with a sentence', async function () {
    const err = await refusal(fetchBytes(`${base}/?layers=${MAX_CONTENT_CODINGS + 1}`, LOCAL));
    expect(err.code).to.equal('bad_encoding');
    expect(err.transient).to.equal(false);
    expect(err.limit).to.equal(MAX_CONTENT_CODINGS);
    expect(err.message).to.contain(`${MAX_CONTENT_CODINGS + 1} stacked content codings`);
    expect(describeFetchError(err, 'the feed')).to.equal('the feed was sent compressed in a way that is not accepted');
  });

  it('refuses 2,000 stacked layers at once, for a download to a file too, leaving no file', async function () {
    const started = performance.now();
    const err = await refusal(fetchBytes(`${base}/?layers=2000`, { ...LOCAL, timeoutMs: 10_000 }));
    expect(err.code).to.equal('bad_encoding');
    // Decoding them took 16-18 s of CPU in the review; refusing them reads the header only.
    expect(performance.now() - started).to.be.below(3000);
    const target = join(work, 'audio');
    const download = await refusal(downloadToFile(`${base}/?layers=2000`, target, { ...LOCAL, timeoutMs: 10_000 }));
    expect(download.code).to.equal('bad_encoding');
    expect(await readdir(work)).to.deep.equal([]);
  });
});
