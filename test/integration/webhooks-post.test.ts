// The outbound POST of webhook deliveries against real loopback servers: redirects answered, never followed; answers
// read no further than a few kB; the address rules; the deadline.
import { createServer, type Server, type ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { FetchError } from '../../core/ground/outbound/errors.js';
import { POST_RESPONSE_MAX_BYTES, postBytes } from '../../core/ground/outbound/post.js';

const UA = 'CreatorContentAPI/test (+http://localhost)';

describe('webhooks: the outbound POST', function () {
  this.timeout(30_000);
  let server: Server;
  let base: string;
  const hits: { path: string; method: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const routes = new Map<string, (res: ServerResponse) => void>();

  before(async function () {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hits.push({ path: req.url ?? '/', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        (routes.get(req.url ?? '/') ?? ((r: ServerResponse) => r.writeHead(204).end()))(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set('/redirect', (res) => res.writeHead(302, { location: `${base}/target` }).end());
    routes.set('/endless', (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Writes until the client goes away.
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    routes.set('/silent', () => undefined);
  });

  after(async function () {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('POSTs the body with its headers, the content type and the User-Agent', async function () {
    const res = await postBytes(`${base}/in`, '{"a":1}', { allowPrivate: true, userAgent: UA, headers: { 'Webhook-Id': 'chg_1' } });
    expect(res.status).to.equal(204);
    const hit = hits.find((h) => h.path === '/in')!;
    expect(hit.method).to.equal('POST');
    expect(hit.body).to.equal('{"a":1}');
    expect(hit.headers['webhook-id']).to.equal('chg_1');
    expect(hit.headers['content-type']).to.equal('application/json');
    expect(hit.headers['user-agent']).to.equal(UA);
  });

  it('returns a redirect as the answer and never requests its Location', async function () {
    const res = await postBytes(`${base}/redirect`, '{}', { allowPrivate: true, userAgent: UA });
    expect(res.status).to.equal(302);
    expect(hits.filter((h) => h.path === '/target')).to.have.length(0);
  });

  it('reads no more than a few kB of an answer, even an endless one', async function () {
    const res = await postBytes(`${base}/endless`, '{}', { allowPrivate: true, userAgent: UA });
    expect(res.status).to.equal(200);
    expect(res.truncated).to.equal(true);
    expect(res.body.length).to.equal(POST_RESPONSE_MAX_BYTES);
  });

  it('refuses a loopback address unless private addresses are allowed, before connecting', async function () {
    const before = hits.length;
    const err = await postBytes(`${base}/in`, '{}', { userAgent: UA }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FetchError).with.property('code', 'private_address');
    expect(hits.length).to.equal(before);
  });

  it('gives up at its deadline when the endpoint does not answer', async function () {
    const err = await postBytes(`${base}/silent`, '{}', { allowPrivate: true, userAgent: UA, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FetchError).with.property('code', 'timeout');
  });
});
