// Issue 11 on the small world: requests that reached a 500, a store budget a search overran, key guessing that cost lookups, and what Node answers before Express.
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createApp } from '../../src/app.js';
import { madeUpKey } from '../support/api-tokens.js';
import { loadConfig } from '../../core/config/load.js';
import { jsonClientErrors } from '../../src/http/client-error.js';
import { createLogger } from '../../core/ground/logger.js';
import { createRedisClient } from '../../core/store/redis.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { useApiWorld } from '../support/api-world.js';
import { inspectingRelay, rawExchange, until } from '../support/api-net.js';
import { createApiMetrics } from '../../src/metrics/api-metrics.js';

/** A request carrying an API-key lookup to the store: a GET of the key's record, or an `_mget` item naming the keys index. */
const KEY_LOOKUP = /-api-keys\/_doc\/|"_index":"[^"]*-api-keys"/;

/** The body of a raw HTTP/1.1 response, parsed as JSON. */
function jsonBodyOf(response: string): { code?: string } {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}

describe('hostile input and budgets: no 500 for input, one store budget, cheap key guessing, JSON before Express', function () {
  this.timeout(60_000);
  const world = useApiWorld();

  describe('a query of many distinct words', function () {
    it('answers a 1,000-character query of 330 distinct words with 200, fast or not (the engine refused its 1,650 clauses)', async function () {
      const A = 'abcdefghijklmnopqrstuvwxyz0123456789';
      const words = Array.from({ length: 330 }, (_, i) => A[Math.floor(i / 36)]! + A[i % 36]!);
      const query = ['tomatoes', ...words].join(' ');
      expect(query.length).to.be.at.most(1000);
      for (const fast of ['true', 'false']) {
        const res = await world.api.request(`/api/v1/channels/alpha/search?fast=${fast}&query=${encodeURIComponent(query)}`, { headers: world.memberHeaders });
        expect(res.status, `fast=${fast}: ${res.text.slice(0, 200)}`).to.equal(200);
        expect(res.body.query, 'the answer echoes the query as asked').to.equal(query);
        expect(res.body.episodes.length, 'the first words still find their episodes').to.be.greaterThan(0);
      }
    });
  });

  describe('path casing', function () {
    it('routes case-sensitively: another casing of a known path is a JSON 404 route_not_found, never a 500', async function () {
      for (const path of [
        '/API/v1/channels',
        '/Api/V1/channels',
        '/api/V1/channels',
        '/api/v1/Channels',
        '/API/channels',
        '/api/v1/channels/alpha/Episodes',
        '/api/v1/channels/alpha/SEARCH?q=tomatoes',
        '/api/v1/Episodes/ep_a01/transcript',
        '/HEALTHZ',
        '/api/v1/OpenAPI.json',
      ]) {
        const res = await world.api.request(path, { headers: world.memberHeaders });
        expect(res.status, `${path}: ${res.text.slice(0, 120)}`).to.equal(404);
        expect(res.body.code, path).to.equal('route_not_found');
      }
    });
  });

  describe('the store budget of a search', function () {
    it('spends one OPENSEARCH_TIMEOUT_MS over both round trips of a search: 503 within the budget, not 200 after twice it', async function () {
      // Each _msearch is held back 600 ms: one fits a 1,000 ms budget, two do not.
      const relay = await inspectingRelay(new URL(world.api.config.opensearchUrl), { delay: /_msearch/, delayMs: 600 });
      const api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, OPENSEARCH_URL: relay.url, OPENSEARCH_TIMEOUT_MS: '1000' } });
      try {
        const res = await api.request('/api/v1/channels/alpha/search?q=tomatoes', { headers: world.memberHeaders });
        expect(res.status, res.text.slice(0, 200)).to.equal(503);
        expect(res.body.code).to.equal('store_unavailable');
        expect(res.headers['retry-after']).to.equal('5');
        // One timeout per round trip would answer 200 after 1,200 ms (the status says it did not); this bound, twice the
        // budget, only catches a refusal that waited for both round trips anyway, and leaves a busy machine its slack.
        expect(res.ms, 'answered once the budget ran out, not after both round trips').to.be.below(2 * 1000);
      } finally {
        await api.close();
        await relay.close();
      }
    });
  });

  describe('admission control of searches', function () {
    it("refuses searches past SEARCH_CONCURRENCY running and SEARCH_QUEUE waiting at once, no store round trip: the key's own overflow 429 too_many_searches, another caller 503 search_busy, both with Retry-After", async function () {
      // Each _msearch is held back until released: the admitted search keeps its place, for certain, while the others arrive.
      const ownerKey = (await world.store.key('u_owner')).key;
      const relay = await inspectingRelay(new URL(world.api.config.opensearchUrl), { hold: /_msearch/, count: KEY_LOOKUP });
      // The gate's counts, as /metrics reports them: how the test knows a search is waiting, instead of sleeping.
      const metrics = createApiMetrics();
      const admission = async () => {
        const { values } = await metrics.registry.getSingleMetric('cca_search_admission')!.get();
        return Object.fromEntries(values.map((v) => [v.labels.state, v.value]));
      };
      const queueWaitMs = 10_000;
      const api = await startApi({
        env: {
          INDEX_PREFIX: world.store.prefix,
          OPENSEARCH_URL: relay.url,
          OPENSEARCH_TIMEOUT_MS: '10000',
          SEARCH_CONCURRENCY: '1',
          SEARCH_QUEUE: '1',
          SEARCH_QUEUE_WAIT_MS: String(queueWaitMs),
        },
        metrics,
      });
      try {
        const search = (q: string) => api.request(`/api/v1/channels/alpha/search?q=${q}`, { headers: world.memberHeaders });
        const running = search('tomatoes');
        await until(() => relay.held > 0, "the running search's _msearch in the store's hands");
        const waiting = search('soil');
        await until(async () => (await admission()).waiting === 1, 'one search waiting in the gate');
        expect((await admission()).running).to.equal(1);
        // The gate sees a search by any of its routes: the unversioned alias with a trailing slash too.
        const refused = await Promise.all([search('compost'), api.request('/api/channels/alpha/search/?q=seeds', { headers: world.memberHeaders, unchecked: true })]);
        // Another caller, holding no place, finds the share full: the service's limit, not its own flood.
        const other = await api.request('/api/v1/channels/alpha/search?q=beans', { headers: { 'x-api-key': ownerKey } });
        // Lists and transcripts are not behind the gate.
        expect((await api.request('/api/v1/channels/alpha/episodes', { headers: world.memberHeaders })).status).to.equal(200);
        expect(relay.held, 'all of that answered while the running search still held its place').to.be.greaterThan(0);
        for (const [res, code] of [...refused.map((r) => [r, 'too_many_searches'] as const), [other, 'search_busy'] as const]) {
          expect(res.status, res.text.slice(0, 200)).to.equal(code === 'search_busy' ? 503 : 429);
          expect(res.body.code).to.equal(code);
          expect(res.headers['retry-after']).to.equal('1');
          // A refusal after queueing would take the whole SEARCH_QUEUE_WAIT_MS (the place is held until released below).
          expect(res.ms, 'refused at once, not after waiting in the queue').to.be.below(queueWaitMs / 2);
        }
        relay.release();
        expect((await running).status, 'the running search').to.equal(200);
        expect((await waiting).status, 'the waiting search, run when the place was free').to.equal(200);
        expect(relay.counted, 'key lookups: only the two admitted searches and the list reached the store').to.equal(3);
      } finally {
        await api.close();
        await relay.close();
      }
    });
  });

  describe('/healthz', function () {
    it('answers without waiting for Redis: a stalled rate-limit store slows rate-limited requests, not the liveness probe', async function () {
      // Rate-limit commands held back until the end: the limiter gives up after the client's 500 ms command timeout and fails open.
      const RATE_LIMIT_COMMAND = /evalsha|script/i;
      const relay = await inspectingRelay(new URL(world.api.config.redisUrl), { hold: RATE_LIMIT_COMMAND, count: RATE_LIMIT_COMMAND });
      const api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, REDIS_URL: relay.url.replace('http:', 'redis:') } });
      try {
        const limited = await api.request('/api/v1/openapi.json');
        expect(limited.ms, 'the stalled Redis holds a rate-limited request').to.be.at.least(450);
        // The probe's own traffic, not its time: a probe that went through the limiter would send Redis a command and wait on it.
        const sent = relay.counted;
        const health = await api.request('/healthz');
        expect(health.status).to.equal(200);
        expect(relay.counted - sent, 'rate-limit commands the probe sent').to.equal(0);
        expect(health.headers.ratelimit, 'not rate limited').to.equal(undefined);
      } finally {
        await api.close();
        await relay.close();
      }
    });
  });

  describe('guessing API keys', function () {
    it('answers an IP past FAILED_KEY_LOOKUPS_PER_IP unknown keys with 429 and Retry-After; each made-up key costs its one lookup and nothing else; the valid key passes', async function () {
      const relay = await inspectingRelay(new URL(world.api.config.opensearchUrl), { count: KEY_LOOKUP });
      const api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, OPENSEARCH_URL: relay.url, FAILED_KEY_LOOKUPS_PER_IP: '3' } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) {
          const headers: Record<string, string> = i % 2 ? { 'x-api-key': madeUpKey(i) } : { authorization: `Bearer ${madeUpKey(i)}` };
          const res = await api.request('/api/v1/channels', { headers });
          statuses.push(res.status);
          if (res.status === 429) {
            expect(res.body.code).to.equal('rate_limited');
            expect(Number(res.headers['retry-after'])).to.be.within(1, 60);
          }
        }
        expect(statuses).to.deep.equal([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
        // Round 2: no lockout of valid keys. The lookup is what tells a valid key apart, so each key is looked up once.
        expect(relay.counted, 'key lookups that reached the store').to.equal(10);
        expect((await api.request('/api/v1/channels', { headers: world.memberHeaders })).status, "the IP's valid key").to.equal(200);
        expect((await api.request('/healthz')).status).to.equal(200);
        expect((await api.request('/api/v1/channels')).status).to.equal(401);
      } finally {
        await api.close();
        await relay.close();
      }
    });

    it('does not count valid keys or malformed ones against the IP, however many arrive at once', async function () {
      const api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, FAILED_KEY_LOOKUPS_PER_IP: '2' } });
      try {
        const burst = await Promise.all(Array.from({ length: 40 }, () => api.request('/api/v1/channels', { headers: world.memberHeaders })));
        expect(burst.map((r) => r.status)).to.deep.equal(Array(40).fill(200));
        for (let i = 0; i < 5; i++) {
          expect((await api.request('/api/v1/channels', { headers: world.memberHeaders })).status).to.equal(200);
          expect((await api.request('/api/v1/channels', { headers: { 'x-api-key': 'svc_nonsense' } })).status).to.equal(401);
        }
      } finally {
        await api.close();
      }
    });
  });

  describe("requests Node answers before Express (the entry point's own server, createApiServer)", function () {
    let api: ApiHarness;
    let port: number;

    before(async function () {
      // Short timeouts (checked as often), so that a request that stops half-way times out in the test.
      api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, OPENSEARCH_TIMEOUT_MS: '20000', HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '800' } });
      port = Number(new URL(api.baseUrl).port);
    });

    after(async function () {
      await api?.close();
    });

    it('answers headers that never finish with a JSON 408 request_timeout, not a 400 "URL could not be decoded"', async function () {
      const response = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      expect(response).to.match(/^HTTP\/1\.1 408 /);
      expect(response).to.match(/\r\nContent-Type: application\/json/);
      expect(response).to.match(/\r\nX-Content-Type-Options: nosniff\r\n/);
      expect(jsonBodyOf(response).code).to.equal('request_timeout');
    });

    it('answers a body that never finishes within HTTP_REQUEST_TIMEOUT_MS with a JSON 408 request_timeout', async function () {
      const response = await rawExchange(port, 'POST /channels/alpha/mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":');
      expect(response).to.match(/^HTTP\/1\.1 408 /);
      expect(jsonBodyOf(response).code).to.equal('request_timeout');
    });

    it('cuts slow headers at HTTP_REQUEST_TIMEOUT_MS when that is the shorter of the two', async function () {
      // Headers allowed a minute, the whole request 400 ms: the request's bound applies to its headers too.
      const strict = await startApi({ env: { INDEX_PREFIX: world.store.prefix, HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '400' } });
      try {
        const response = await rawExchange(Number(new URL(strict.baseUrl).port), 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', { timeoutMs: 10_000 });
        expect(response).to.match(/^HTTP\/1\.1 408 /);
        expect(jsonBodyOf(response).code).to.equal('request_timeout');
      } finally {
        await strict.close();
      }
    });

    it('answers CONNECT with a JSON 405 and Allow, not a silently closed socket', async function () {
      const response = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      expect(response).to.match(/^HTTP\/1\.1 405 /);
      expect(response).to.match(/\r\nAllow: GET, HEAD, OPTIONS\r\n/);
      expect(jsonBodyOf(response).code).to.equal('method_not_allowed');
    });
  });

  describe('a client error on a socket whose response has started', function () {
    // A real server with the JSON client-error handler, whose one route starts a response and holds it open
    // (as a long transcript still being written does): what goes wrong next on the same socket must not land inside it.
    let server: Server;
    let port: number;
    const held = new Set<ServerResponse>();

    before(async function () {
      server = createHttpServer({ headersTimeout: 300, requestTimeout: 0, connectionsCheckingInterval: 50 }, (req, res) => {
        if (req.url !== '/held') return void res.end('fresh');
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('partial ');
        held.add(res);
      });
      jsonClientErrors(server, { log: createLogger({ level: 'silent' }) });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    after(async function () {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** Sends a request, waits for the start of its response, then sends `next` on the same socket; resolves with all that came back. */
    const exchange = (next: string) =>
      new Promise<string>((resolve, reject) => {
        const socket: Socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (c: Buffer) => {
          const first = text === '';
          text += c.toString('latin1');
          if (first) socket.write(next);
        });
        socket.on('close', () => resolve(text));
        socket.on('error', () => undefined);
        socket.setTimeout(5000, () => {
          socket.destroy();
          reject(new Error(`the server kept the connection open; got ${JSON.stringify(text.slice(0, 200))}`));
        });
        socket.write('GET /held HTTP/1.1\r\nHost: localhost\r\n\r\n');
      });

    for (const [what, next] of [
      ['malformed data', 'NOT HTTP AT ALL\r\n\r\n'],
      ['a follow-up request whose headers never finish (header timeout)', 'GET /again HTTP/1.1\r\nHost: localhost\r\nX-Slow: '],
    ] as const) {
      it(`writes nothing into the started response when ${what} follows on its socket: it cuts the connection`, async function () {
        const received = await exchange(next);
        expect(received).to.match(/^HTTP\/1\.1 200 /);
        expect(received.split('HTTP/1.1 ').length - 1, `status lines on the connection: ${JSON.stringify(received)}`).to.equal(1);
        expect(received.endsWith('partial '), 'nothing after the part already sent').to.equal(true);
        // The handler finishing its response later on the cut socket is no crash.
        for (const res of held) res.end('x'.repeat(992));
        held.clear();
        expect(await rawExchange(port, 'GET /fresh HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).to.match(/^HTTP\/1\.1 200 [\s\S]*fresh$/);
      });
    }
  });

  describe('JWT_HS_SECRET', function () {
    it('warns at start that HS256 development tokens are accepted', async function () {
      const lines: string[] = [];
      const { pino } = await import('pino');
      const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
      const config = loadConfig({ ...process.env, INDEX_PREFIX: world.store.prefix, JWT_HS_SECRET: 'x'.repeat(32), JWT_ISSUER: 'https://issuer.example' });
      const redis = createRedisClient(config.redisUrl, { log });
      try {
        createApp({ config, client: world.store.client, redis, log });
        expect(lines.join('\n')).to.match(/JWT_HS_SECRET is set.*never set it in production/);
      } finally {
        redis.disconnect();
      }
    });
  });
});
