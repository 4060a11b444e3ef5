// The transcription and embeddings clients follow no redirect: a 307/308 from the configured service would re-send
// the audio or the texts, with the key, to wherever it points (security review 2026-11-27, item 16). Loopback servers
// stand in for the service and for where it redirects.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { uploadAudio } from '../../pipeline/transcribe/request.js';
import { TranscribeError } from '../../pipeline/transcribe/errors.js';
import { createRemoteEmbedder } from '../../core/embedding/openai.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('remote services: redirects', function () {
  this.timeout(30_000);
  let work: string;
  let elsewhere: Server;
  let service: Server;
  let serviceUrl: string;
  const received: { path: string; authorization: string | undefined; bytes: number }[] = [];

  before(async function () {
    work = await mkdtemp(join(tmpdir(), 'no-redirect-'));
    elsewhere = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        received.push({ path: req.url ?? '', authorization: req.headers.authorization, bytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"index":0,"embedding":[1,0]}],"text":"x","words":[]}');
      });
    });
    const elsewhereUrl = await listen(elsewhere);
    service = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url?.includes('embeddings') ? 308 : 307, { location: `${elsewhereUrl}${req.url}` }).end());
    });
    serviceUrl = await listen(service);
  });

  after(async function () {
    for (const s of [service, elsewhere]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await rm(work, { recursive: true, force: true });
  });

  it('fails an upload the service redirects, and sends the audio nowhere else', async function () {
    const file = join(work, 'piece-0001.mp3');
    await writeFile(file, Buffer.alloc(4096, 1));
    const err = await uploadAudio(file, { url: serviceUrl, model: 'whisper-1', apiKey: 'sk-test', timeoutMs: 5000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(TranscribeError);
    expect((err as TranscribeError).message).to.contain('redirect');
    expect(received, 'requests where the redirect pointed').to.deep.equal([]);
  });

  it('fails the embeddings probe the service redirects, and sends the texts nowhere else', async function () {
    const err = await createRemoteEmbedder({ url: serviceUrl, model: 'm', apiKey: 'sk-test', retries: 0, timeoutMs: 5000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(received, 'requests where the redirect pointed').to.deep.equal([]);
  });
});
