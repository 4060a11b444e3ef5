// The transcription, embeddings and named-entity clients follow no redirect: a 307/308 from the configured service would re-send
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
import { createNerClient, NerError } from '../../pipeline/enrich/ner.js';

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
  let oversized: Server;
  let oversizedUrl: string;
  let oversizedSent = 0;
  let redirects = 0;
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
      redirects++;
      req.on('end', () => res.writeHead(req.url?.includes('embeddings') ? 308 : 307, { location: `${elsewhereUrl}${req.url}` }).end());
    });
    serviceUrl = await listen(service);
    // An entities answer that never ends: 1 MiB chunks, no Content-Length, until the client stops reading.
    oversized = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"entities": [[');
        const chunk = `${'{"text":"Adam Smith","label":"PERSON","start":0,"end":10},'.repeat(18_000)}`;
        const more = () => {
          while (oversizedSent < 64 * 1024 ** 2 && res.write(chunk)) oversizedSent += chunk.length;
          if (oversizedSent < 64 * 1024 ** 2 && !res.destroyed) res.once('drain', more);
          else res.end(']]}');
        };
        more();
      });
    });
    oversizedUrl = await listen(oversized);
  });

  after(async function () {
    for (const s of [service, elsewhere, oversized]) {
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

  it('fails a named-entity request the service redirects, not retried, and sends the texts nowhere else', async function () {
    const before = redirects;
    const err = await createNerClient({ url: serviceUrl, retries: 3, minBackoffMs: 10, timeoutMs: 5000 })(['Adam Smith spoke.'], { language: 'en' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NerError);
    expect((err as NerError).code).to.equal('ner_redirected');
    expect((err as NerError).message).to.contain('307');
    expect(redirects - before, 'asked once: a redirect is not retried').to.equal(1);
    expect(received, 'requests where the redirect pointed').to.deep.equal([]);
  });

  it('refuses a named-entity answer over its bound, reading no more of it than that', async function () {
    const err = await createNerClient({ url: oversizedUrl, retries: 0, timeoutMs: 10_000 })(['Adam Smith spoke.'], { language: 'en' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NerError);
    expect((err as NerError).code).to.equal('ner_too_large');
    expect((err as NerError).message).to.contain(`over ${8 * 1024 ** 2} bytes`);
    expect(oversizedSent, 'the server was stopped well before its 64 MiB').to.be.below(32 * 1024 ** 2);
  });
});
