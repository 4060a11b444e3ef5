// Security review 2026-11-27 item 4 (a): `downloadToFile`'s rate floor against real servers on loopback. A host that
// trickles, or never answers, is cut after one window as `too_slow` (not transient), nothing is written; a host that
// sends steadily above the floor finishes however many windows it takes.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeFetchError, downloadToFile, FetchError } from '../../core/ground/outbound/safe-fetch.js';

describe('downloadToFile: the rate floor', function () {
  this.timeout(30_000);
  const LOCAL = { allowPrivate: true, maxBytes: 1024 ** 2, timeoutMs: 20_000 };
  const floor = { bytesPerSecond: 4096, windowMs: 300 };
  let work: string;
  let server: Server;
  let base: string;
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  /** Sends `chunk` bytes every `everyMs` until `total` (or for ever). */
  const drip = (res: ServerResponse, chunk: number, everyMs: number, total = Number.POSITIVE_INFINITY) => {
    let sent = 0;
    const timer = setInterval(() => {
      const n = Math.min(chunk, total - sent);
      res.write(Buffer.alloc(n, 0x41));
      sent += n;
      if (sent >= total) {
        clearInterval(timer);
        res.end();
      }
    }, everyMs);
    timers.add(timer);
    res.on('close', () => clearInterval(timer));
  };

  before(async function () {
    work = await mkdtemp(join(tmpdir(), 'rate-floor-'));
    server = createServer((req, res) => {
      open.add(res);
      if (req.url === '/silent.mp3') return;
      res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
      // 1 byte a second: the review's trickle.
      if (req.url === '/trickle.mp3') return drip(res, 1, 1000);
      // 1 KB every 50 ms (20 KB/s) for 24 KB: four windows and more, all above the floor.
      return drip(res, 1024, 50, 24 * 1024);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async function () {
    for (const t of timers) clearInterval(t);
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await rm(work, { recursive: true, force: true });
  });

  const failure = async (p: Promise<unknown>): Promise<FetchError> => {
    try {
      await p;
    } catch (err) {
      expect(err).to.be.instanceOf(FetchError);
      return err as FetchError;
    }
    throw new Error('the download was expected to fail');
  };

  it('cuts a host that trickles, and one that never answers, as too_slow (not transient), writing nothing', async function () {
    for (const path of ['/trickle.mp3', '/silent.mp3']) {
      const err = await failure(downloadToFile(`${base}${path}`, join(work, 'audio'), { ...LOCAL, minRate: floor }));
      expect([err.code, err.transient, err.limit], path).to.deep.equal(['too_slow', false, 4096]);
      expect(describeFetchError(err, 'the audio URL')).to.equal('the audio URL sent its data slower than 4 KB/s, so the download was stopped');
    }
    expect(await readdir(work)).to.deep.equal([]);
  });

  it('lets a steady download above the floor finish over many windows', async function () {
    const done = await downloadToFile(`${base}/steady.mp3`, join(work, 'steady'), { ...LOCAL, minRate: floor });
    expect(done.bytes).to.equal(24 * 1024);
    expect((await readFile(join(work, 'steady'))).length).to.equal(24 * 1024);
  });
});
