// The safe fetcher against real servers on loopback (node:http and node:https, no mocks): each refusal with its
// code and nothing written, and the good-citizen basics (gzip and br inflated, 304 passed through, User-Agent and
// conditional headers sent).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { downloadToFile, fetchBytes, FetchError, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';
import { runEntry } from '../support/run-entry.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TestServer {
  base: string;
  port: number;
  /** Paths requested, in order. */
  hits: string[];
  server: Server;
}

const servers: Server[] = [];

async function serve(handler: Handler, tls?: { key: string; cert: string }): Promise<TestServer> {
  const hits: string[] = [];
  const wrapped: Handler = (req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  };
  const server = tls ? createTlsServer(tls, wrapped) : createServer(wrapped);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return { base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, hits, server };
}

/** The code a fetch fails with (the test fails if it succeeds). */
async function refusal(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the fetch should have been refused').to.be.instanceOf(FetchError);
  return err as FetchError;
}

const LOCAL: SafeFetchOptions = { maxBytes: 1024 * 1024, allowPrivate: true };

describe('safe fetch: over loopback', function () {
  let work: string;

  before(async function () {
    work = await mkdtemp(join(tmpdir(), 'safe-fetch-'));
  });
  after(async function () {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    await rm(work, { recursive: true, force: true });
  });

  describe('addresses', function () {
    it('refuses a loopback server when private addresses are not allowed, by IP or by name, and sends it nothing', async function () {
      const target = await serve((_req, res) => res.end('secret'));
      for (const url of [`${target.base}/feed.xml`, `http://localhost:${target.port}/feed.xml`, `http://2130706433:${target.port}/`, `http://[::ffff:127.0.0.1]:${target.port}/`]) {
        const err = await refusal(fetchBytes(url, { maxBytes: 1024 }));
        expect(err.code, url).to.equal('private_address');
        expect(err.transient).to.equal(false);
      }
      const file = join(work, 'refused.mp3');
      expect((await refusal(downloadToFile(`${target.base}/a.mp3`, file, { maxBytes: 1024 }))).code).to.equal('private_address');
      expect(target.hits).to.deep.equal([]);
      expect(await readdir(work)).to.deep.equal([]);
    });

    it('re-checks every redirect hop: a first hop allowed by exception, a redirect to another loopback port refused before it is asked', async function () {
      const inner = await serve((_req, res) => res.end('internal admin page'));
      const spellings = [
        `http://127.0.0.1:${inner.port}/admin`,
        `http://2130706433:${inner.port}/admin`,
        `http://[::ffff:7f00:1]:${inner.port}/admin`,
        `http://localhost:${inner.port}/admin`,
      ];
      const outer = await serve((req, res) => res.writeHead(302, { location: spellings[Number(req.url!.slice(1))] }).end());
      // Only the outer server's port is let through: the rule itself is what stops the second hop.
      const onlyOuter = { maxBytes: 1024, isAllowedAddress: (_a: string, port: number) => port === outer.port };
      for (const [i, spelled] of spellings.entries()) {
        const err = await refusal(fetchBytes(`${outer.base}/${i}`, onlyOuter));
        expect(err.code, spelled).to.equal('private_address');
        expect(err.url).to.equal(new URL(spelled).href);
      }
      expect(outer.hits).to.have.length(spellings.length);
      expect(inner.hits).to.deep.equal([]);
      // The control: with the inner port allowed as well, the same redirect is followed to its end.
      const both = await fetchBytes(`${outer.base}/0`, { maxBytes: 1024, isAllowedAddress: () => true });
      expect([both.status, both.body.toString(), both.url]).to.deep.equal([200, 'internal admin page', spellings[0]]);
    });
  });

  describe('redirects', function () {
    let hops: TestServer;
    before(async function () {
      // /hop/N answers a relative redirect to /hop/N-1; /hop/0 is the page.
      hops = await serve((req, res) => {
        const n = Number(req.url!.split('/')[2]);
        if (n > 0) res.writeHead(n % 2 ? 301 : 307, { location: `/hop/${n - 1}` }).end();
        else res.end('landed');
      });
    });

    it('follows at most 5 redirects, each resolved against the hop before, and reports the final URL', async function () {
      const res = await fetchBytes(`${hops.base}/hop/5`, LOCAL);
      expect([res.status, res.body.toString(), res.url]).to.deep.equal([200, 'landed', `${hops.base}/hop/0`]);
    });

    it('refuses a sixth redirect without following it', async function () {
      hops.hits.length = 0;
      const err = await refusal(fetchBytes(`${hops.base}/hop/6`, LOCAL));
      expect(err.code).to.equal('too_many_redirects');
      expect(err.limit).to.equal(5);
      expect(hops.hits).to.deep.equal(['/hop/6', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1']);
    });

    it('refuses a redirect from https to plain http, and the http server is never asked', async function () {
      const key = join(work, '..', `${work.split('/').pop()}-key.pem`);
      const cert = join(work, '..', `${work.split('/').pop()}-cert.pem`);
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const tls = { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
      await rm(key);
      await rm(cert);
      const plain = await serve((_req, res) => res.end('over plain http'));
      const secure = await serve((req, res) => (req.url === '/down' ? res.writeHead(302, { location: `${plain.base}/t.vtt` }).end() : res.end('over tls')), tls);
      // The control: the TLS server is reachable with its certificate trusted.
      expect((await fetchBytes(`${secure.base}/ok`, { ...LOCAL, ca: tls.cert })).body.toString()).to.equal('over tls');
      const err = await refusal(fetchBytes(`${secure.base}/down`, { ...LOCAL, ca: tls.cert }));
      expect(err.code).to.equal('insecure_redirect');
      expect(plain.hits).to.deep.equal([]);
    });
  });

  describe('sizes', function () {
    it('refuses a chunked body without Content-Length once the decoded bytes pass the limit, and stops reading it', async function () {
      let written = 0;
      const endless = await serve((_req, res) => {
        const chunk = Buffer.alloc(64 * 1024, 97);
        const pump = () => {
          while (written < 64 * 1024 ** 2 && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.writeHead(200, { 'content-type': 'text/vtt' });
        pump();
      });
      const err = await refusal(fetchBytes(`${endless.base}/t.vtt`, { ...LOCAL, maxBytes: 1024 * 1024 }));
      expect([err.code, err.limit]).to.deep.equal(['too_large', 1024 * 1024]);
      const file = join(work, 'episode.mp3');
      expect((await refusal(downloadToFile(`${endless.base}/a.mp3`, file, { ...LOCAL, maxBytes: 1024 * 1024 }))).code).to.equal('too_large');
      expect(await readdir(work), 'no file and no partial file left').to.deep.equal([]);
      expect(written, 'bytes the server got to send').to.be.below(32 * 1024 ** 2);
    });

    it('refuses a gzip bomb at the limit while inflating it, and memory stays small', async function () {
      // 256 MB of zeros, about 250 KB compressed, built in pieces so the test itself never holds the inflated size.
      const gzip = zlib.createGzip({ level: 9 });
      const parts: Buffer[] = [];
      gzip.on('data', (b: Buffer) => parts.push(b));
      const zeros = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < 256; i++) if (!gzip.write(zeros)) await new Promise((done) => gzip.once('drain', done));
      await new Promise((done) => gzip.end(done));
      const bomb = Buffer.concat(parts);
      expect(bomb.length).to.be.below(1024 * 1024);
      const server = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) }).end(bomb));

      // The fetch runs in a process of its own: its high-water mark (maxRSS) is this fetch's, not that of whatever
      // ran earlier in this mocha process (a model, a whole library), which would hide a bomb inflated whole.
      const run = await runEntry('test/support/fetch-peak-memory.ts', [`${server.base}/feed.xml`, JSON.stringify({ ...LOCAL, maxBytes: 1024 * 1024 })], {});
      expect(run.code, run.stderr).to.equal(0);
      const got = JSON.parse(run.stdout) as { code?: string; limit?: number; maxRssBeforeKb: number; maxRssAfterKb: number };
      expect([got.code, got.limit]).to.deep.equal(['too_large', 1024 * 1024]);
      // Inflating the whole bomb would raise the child's high-water mark by at least 256 MB.
      const grewMb = (got.maxRssAfterKb - got.maxRssBeforeKb) / 1024;
      expect(grewMb, 'peak memory growth of the fetching process (MB)').to.be.below(64);
    });
  });

  describe('time', function () {
    it('gives up on a server that never answers, and on one whose body never ends, within the whole-request timeout', async function () {
      const silent = await serve(() => undefined);
      const trickle = await serve((_req, res) => {
        res.writeHead(200);
        res.write('WEBVTT\n');
      });
      for (const url of [`${silent.base}/feed.xml`, `${trickle.base}/feed.xml`]) {
        const err = await refusal(fetchBytes(url, { ...LOCAL, timeoutMs: 300 }));
        expect([err.code, err.transient, err.limit], url).to.deep.equal(['timeout', true, 300]);
      }
      expect((await refusal(downloadToFile(`${trickle.base}/a.mp3`, join(work, 'slow.mp3'), { ...LOCAL, timeoutMs: 300 }))).code).to.equal('timeout');
      expect(await readdir(work)).to.deep.equal([]);
    });
  });

  describe('as a good citizen', function () {
    let echo: TestServer;
    before(async function () {
      echo = await serve((req, res) => {
        if (req.url === '/gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('inflated by us'));
        if (req.url === '/br') return void res.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync('brotli too'));
        if (req.url === '/feed.xml' && req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        if (req.url === '/a.mp3') return void res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.alloc(5000, 1));
        if (req.url === '/gone.mp3') return void res.writeHead(404).end('not here');
        if (req.url === '/busy.mp3') return void res.writeHead(429, { 'retry-after': '120' }).end();
        res.writeHead(200, { etag: '"v1"', 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
      });
    });

    it('asks for gzip and br and inflates either', async function () {
      expect((await fetchBytes(`${echo.base}/gzip`, LOCAL)).body.toString()).to.equal('inflated by us');
      expect((await fetchBytes(`${echo.base}/br`, LOCAL)).body.toString()).to.equal('brotli too');
    });

    it('sends its User-Agent and the conditional headers, and passes a 304 through with an empty body', async function () {
      const headers = { 'If-None-Match': '"v0"', 'If-Modified-Since': 'Tue, 24 Nov 2026 10:00:00 GMT' };
      const first = await fetchBytes(`${echo.base}/feed.xml`, { ...LOCAL, userAgent: 'CreatorContentAPI/test (+https://example.test)', headers });
      const seen = JSON.parse(first.body.toString()) as Record<string, string>;
      expect([seen['user-agent'], seen['if-none-match'], seen['if-modified-since'], seen['accept-encoding']]).to.deep.equal([
        'CreatorContentAPI/test (+https://example.test)',
        '"v0"',
        'Tue, 24 Nov 2026 10:00:00 GMT',
        'gzip, deflate, br',
      ]);
      const again = await fetchBytes(`${echo.base}/feed.xml`, { ...LOCAL, headers: { 'If-None-Match': first.headers.get('etag')! } });
      expect([again.status, again.body.length, again.headers.get('etag')]).to.deep.equal([304, 0, '"v1"']);
    });

    it('downloads a 2xx body to its file whole, and a 404 or 429 writes nothing and says when to come back', async function () {
      const file = join(work, 'a.mp3');
      const done = await downloadToFile(`${echo.base}/a.mp3`, file, LOCAL);
      expect([done.status, done.bytes, done.contentType]).to.deep.equal([200, 5000, 'audio/mpeg']);
      expect((await readFile(file)).length).to.equal(5000);
      await rm(file);
      const gone = await refusal(downloadToFile(`${echo.base}/gone.mp3`, file, LOCAL));
      expect([gone.code, gone.status, gone.transient]).to.deep.equal(['http_status', 404, false]);
      const busy = await refusal(downloadToFile(`${echo.base}/busy.mp3`, file, LOCAL));
      expect([busy.code, busy.status, busy.transient, busy.retryAfterMs]).to.deep.equal(['http_status', 429, true, 120_000]);
      expect(await readdir(work)).to.deep.equal([]);
    });

    it('refuses URLs that are not http(s) before any connection', async function () {
      expect((await refusal(fetchBytes('file:///etc/passwd', LOCAL))).code).to.equal('scheme');
      expect((await refusal(fetchBytes('gopher://127.0.0.1/', LOCAL))).code).to.equal('scheme');
      expect((await refusal(fetchBytes('not a url', LOCAL))).code).to.equal('bad_url');
    });
  });
});
