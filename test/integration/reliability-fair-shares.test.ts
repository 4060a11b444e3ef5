// Issue 24 on the small world: one MCP request cannot starve members, no lockout of valid keys, Host-less and case probes, Origin, the audience cache, slow headers.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import { madeUpKey } from '../support/api-tokens.js';
import { loadConfig } from '../../core/config/load.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { useWorldStore } from '../support/api-world.js';
import { inspectingRelay, settling, until } from '../support/api-net.js';
import { withHeldStore as heldStoreRun, type HeldStore } from '../support/held-store.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';

/** A store request that reads a channel (by slug, id or domain) or searches: channel or search work. */
const CHANNEL_OR_SEARCH = /-channels[/"]|_msearch/;
const HOST = 'alpha.creators.example.com';
/** The store the relays stand in front of. */
const storeUrl = () => new URL(loadConfig(process.env).opensearchNodes[0]!);

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });
const searchCall = (id: number, query = 'tomatoes') => rpc(id, 'tools/call', { name: 'search', arguments: { query, fast: true } });

interface RawAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  ms: number;
}

/** One POST to an MCP path with `Host` (and any header) set, answered as JSON; an aborted `hangUp` hangs up before the answer. */
function postMcp(api: ApiHarness, path: string, message: unknown, { headers = {}, hangUp }: { headers?: Record<string, string>; hangUp?: AbortSignal } = {}): Promise<RawAnswer> {
  const url = new URL(api.baseUrl);
  const body = JSON.stringify(message);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent: false,
        headers: { host: HOST, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined, ms: Date.now() - started }));
      },
    );
    req.on('error', (err) => (hangUp?.aborted ? resolve({ status: 0, body: undefined, ms: Date.now() - started }) : reject(err)));
    req.end(body);
    hangUp?.addEventListener('abort', () => req.destroy());
  });
}

/** Writes `request` on a raw socket and collects the answer until the server closes. */
function rawExchange(port: number, request: string, timeoutMs = 5000): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.on('error', () => undefined);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(text.slice(0, 200))}`));
    });
    socket.write(request);
  });
}

const jsonBodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { code?: string };

describe('fair shares: MCP cannot starve members, no lockout of valid keys, exact MCP routes, Origin, audience cache, slow headers', function () {
  this.timeout(60_000);
  const world = useWorldStore();
  const apis: ApiHarness[] = [];
  let memberHeaders: Record<string, string>;

  before(async function () {
    memberHeaders = { 'x-api-key': (await world.store.key('u_member')).key };
  });
  after(async function () {
    for (const api of apis) await api.close();
  });

  // A request's store budget far above what a loaded machine needs: no test here is about the budget, and a 503 at the
  // default 1.5 s would fail one for a reason it does not name.
  async function start(env: Record<string, string> = {}, options: Parameters<typeof startApi>[0] = {}): Promise<ApiHarness> {
    const api = await startApi({ ...options, env: { INDEX_PREFIX: world.store.prefix, CHANNEL_BASE_DOMAIN: 'creators.example.com', OPENSEARCH_TIMEOUT_MS: '20000', ...env } });
    apis.push(api);
    return api;
  }

  /** A held store (test/support/held-store.ts) under an API with a small gate: 2 running and 4 waiting per share, 10 s to wait. */
  const withHeldStore = (held: RegExp, env: Record<string, string>, body: (api: ApiHarness, store: HeldStore) => Promise<void>) =>
    heldStoreRun(
      storeUrl(),
      held,
      (relayUrl, metrics) =>
        start({ OPENSEARCH_URL: relayUrl, OPENSEARCH_TIMEOUT_MS: '20000', SEARCH_CONCURRENCY: '2', SEARCH_QUEUE: '4', SEARCH_QUEUE_WAIT_MS: '10000', ...env }, { metrics }),
      body,
    );

  describe('MCP amplification', function () {
    it('refuses a JSON-RPC batch with a JSON-RPC error before any call runs: 100 searches in one POST cost the store nothing', async function () {
      const relay = await inspectingRelay(storeUrl(), { count: /_msearch/ });
      try {
        const api = await start({ OPENSEARCH_URL: relay.url });
        const batch = Array.from({ length: 100 }, (_, i) => searchCall(i + 1));
        const answer = await postMcp(api, '/mcp', batch);
        expect(answer.status).to.equal(400);
        expect(answer.body).to.deep.include({ jsonrpc: '2.0', id: null });
        expect(answer.body.error.code).to.equal(-32600);
        expect(answer.body.error.message).to.match(/batch/i);
        expect(relay.counted, 'searches that reached the store').to.equal(0);
        // One call per POST still works.
        const single = await postMcp(api, '/mcp', searchCall(1));
        expect(single.status).to.equal(200);
        expect(single.body.result.isError).to.not.equal(true);
        expect(relay.counted).to.equal(2); // the legs, then hydration
      } finally {
        await relay.close();
      }
    });

    it('keeps a place for members: 30 parallel anonymous MCP searches leave a member REST search unqueued and answered', async function () {
      // Every _msearch held back until released: each anonymous search holds its place until then.
      await withHeldStore(/_msearch/, { SEARCH_ANONYMOUS_CONCURRENCY: '2', SEARCH_ANONYMOUS_QUEUE: '4' }, async (api, store) => {
        store.hold();
        const flood = settling(Array.from({ length: 30 }, (_, i) => postMcp(api, '/mcp', searchCall(i + 1))));
        // The anonymous share full (2 running, 4 waiting) and the rest of the flood answered.
        const floodAtGate = async () => {
          const { running, waiting } = await store.gate();
          return running === 2 && waiting === 4 && flood.settled === 24;
        };
        await until(floodAtGate, 'the anonymous share full and the rest of the flood refused');
        const member = api.request('/api/v1/channels/alpha/search?q=tomatoes&fast=true', { headers: memberHeaders });
        // Queued behind the flood, it would wait (for ever here: nothing is released until it runs); with its own share it runs at once.
        await until(async () => (await store.gate()).running === 3, "the member's search running beside the flood");
        expect((await store.gate()).waiting, 'the flood still waiting').to.equal(4);
        store.release();
        const answered = await member;
        const answers = await flood.all;
        expect(answered.status, answered.text.slice(0, 200)).to.equal(200);
        expect(answered.body.episodes.length).to.be.greaterThan(0);
        const busy = answers.filter((a) => a.body?.result?.isError && /Too many searches/.test(a.body.result.content[0].text));
        expect(busy.length, 'the flood past its own share is refused').to.equal(24);
        expect(answers.filter((a) => a.body?.result && !a.body.result.isError).length, 'the anonymous share still serves').to.equal(6);
      });
    });

    it('limits anonymous MCP per client IP with its own budget, smaller than a key: past MCP_RATE_LIMIT_MAX a 429, members unaffected', async function () {
      const api = await start({ MCP_RATE_LIMIT_MAX: '3', RATE_LIMIT_MAX: '50', TRUST_PROXY: 'loopback', INDEX_PREFIX: world.store.prefix, RATE_LIMIT_WINDOW_SECONDS: '60' });
      const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await postMcp(api, '/mcp', rpc(i, 'tools/list'), { headers: { 'x-forwarded-for': ip } })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
      const other = await postMcp(api, '/mcp', rpc(9, 'tools/list'), { headers: { 'x-forwarded-for': '198.51.100.250' } });
      expect(other.status, 'another address has its own budget').to.equal(200);
      const member = await api.request('/api/v1/channels/alpha/search?q=tomatoes&fast=true', { headers: { ...memberHeaders, 'x-forwarded-for': ip } });
      expect(member.status, 'a key from the same IP has its own bucket').to.equal(200);
    });

    it('abandons the search of a client that hung up: the store request in flight is cancelled, REST and MCP', async function () {
      await withHeldStore(/_msearch/, {}, async (api, store) => {
        // A key's first request verifies it (no search beside the lookup); the next one is the one cut.
        expect((await api.request('/api/v1/channels', { headers: memberHeaders })).status).to.equal(200);
        store.hold();
        const url = new URL(api.baseUrl);
        const rest = new AbortController();
        const cut = new Promise<void>((resolve) => {
          const req = httpRequest({ host: url.hostname, port: url.port, path: '/api/v1/channels/alpha/search?q=tomatoes&fast=true', headers: memberHeaders, agent: false });
          req.on('error', () => resolve());
          req.end();
          rest.signal.addEventListener('abort', () => req.destroy());
        });
        // Each client hangs up once its search is in the relay's hands (held there until released).
        await until(() => store.held === 1, 'the REST search held');
        rest.abort();
        await cut;
        await until(() => store.abandoned === 1, 'the REST search cancelled');
        const mcp = new AbortController();
        const hungUp = postMcp(api, '/mcp', searchCall(1), { hangUp: mcp.signal });
        await until(() => store.held === 2, 'the MCP search held');
        mcp.abort();
        await hungUp;
        await until(() => store.abandoned === 2, 'the MCP search cancelled');
        expect(store.abandoned, 'held-back searches whose sender hung up before they reached the store').to.equal(2);
        // Nothing was left holding a place.
        await until(async () => (await store.gate()).running === 0, 'every place given back');
        expect(await store.gate()).to.deep.equal({ running: 0, waiting: 0 });
        store.release();
        expect((await api.request('/api/v1/channels/alpha/search?q=soil&fast=true', { headers: memberHeaders })).status).to.equal(200);
      });
    });
  });

  describe('key guessing', function () {
    it('throttles only failing lookups: past FAILED_KEY_LOOKUPS_PER_IP made-up keys get 429, the valid key from the same IP gets 200, and no made-up key causes channel or search work', async function () {
      const relay = await inspectingRelay(storeUrl(), { count: CHANNEL_OR_SEARCH });
      try {
        const api = await start({ OPENSEARCH_URL: relay.url, FAILED_KEY_LOOKUPS_PER_IP: '3', RATE_LIMIT_MAX: '1000' });
        const statuses: number[] = [];
        for (let i = 0; i < 8; i++) {
          const res = await api.request('/api/v1/channels/alpha/search?q=tomatoes', { headers: { 'x-api-key': madeUpKey(i) } });
          statuses.push(res.status);
          if (res.status === 429) {
            expect(res.body.code).to.equal('rate_limited');
            expect(Number(res.headers['retry-after'])).to.be.within(1, 60);
          }
        }
        expect(statuses).to.deep.equal([401, 401, 401, 429, 429, 429, 429, 429]);
        expect(relay.counted, 'channel reads and searches caused by made-up keys').to.equal(0);
        // The member behind the same IP is let through, every time.
        for (let i = 0; i < 3; i++) {
          const res = await api.request('/api/v1/channels/alpha/search?q=tomatoes', { headers: memberHeaders });
          expect(res.status, res.text.slice(0, 200)).to.equal(200);
        }
        expect((await api.request('/api/v1/channels/alpha/search?q=tomatoes', { headers: { 'x-api-key': madeUpKey(99) } })).status, 'guessing is still throttled').to.equal(429);
      } finally {
        await relay.close();
      }
    });
  });

  describe('one key flooding the members share', function () {
    it("serves another member's search next: a key with fewer searches waiting takes the newest place of the key with the most", async function () {
      // Every _msearch held back until released: each search holds its place until then.
      await withHeldStore(/_msearch/, { RATE_LIMIT_MAX: '1000' }, async (api, store) => {
        const ownerKey = (await world.store.key('u_owner')).key;
        const search = (key: string, q: string) => api.request(`/api/v1/channels/alpha/search?q=${q}&fast=true`, { headers: { 'x-api-key': key } });
        expect((await search(ownerKey, 'warm')).status, 'both keys have searched here before').to.equal(200);
        expect((await search(memberHeaders['x-api-key']!, 'warm')).status).to.equal(200);
        store.hold();
        const flood = settling(Array.from({ length: 20 }, (_, i) => search(ownerKey, `tomatoes${i}`)));
        const gateIs = async (running: number, waiting: number, refused: number) => {
          const counts = await store.gate();
          return counts.running === running && counts.waiting === waiting && flood.settled === refused;
        };
        await until(() => gateIs(2, 4, 14), "the members' share full of the flood (2 running, 4 waiting) and the rest refused");
        let memberAnswered = false;
        const member = search(memberHeaders['x-api-key']!, 'tomatoes').finally(() => (memberAnswered = true));
        // The member takes the newest waiting place of the flood: the queue stays at 4, one more of the flood refused.
        await until(async () => memberAnswered || (await gateIs(2, 4, 15)), 'the member queued in place of the newest flood search');
        expect(memberAnswered, 'not refused: without fairness the queue is full of the flood, a 503 at once').to.equal(false);
        store.release();
        const answered = await member;
        const answers = await flood.all;
        expect(answered.status, answered.text.slice(0, 200)).to.equal(200);
        // The flood's overflow is its own: 429 (issue 32).
        expect(answers.filter((a) => a.status === 429 && a.body.code === 'too_many_searches').length, 'the flood past its share is refused').to.equal(15);
      });
    });
  });

  describe('made-up keys in the search gate', function () {
    it("queues made-up keys from an IP past its failed-lookup budget, and keys with a wrong checksum, in the anonymous share: a flood of them leaves members' searches their place", async function () {
      // Every key lookup held back until released: a made-up key holds its place in the gate until then.
      await withHeldStore(/api-keys/, { FAILED_KEY_LOOKUPS_PER_IP: '3', RATE_LIMIT_MAX: '1000' }, async (api, store) => {
        const search = (key: string) => api.request('/api/v1/channels/alpha/search?q=tomatoes&fast=true', { headers: { 'x-api-key': key } });
        expect((await search(memberHeaders['x-api-key']!)).status, 'the member has searched here before').to.equal(200);
        for (let i = 0; i < 3; i++) expect((await search(madeUpKey(i))).status).to.equal(401);
        store.hold();
        const wrongChecksum = (i: number) => `${madeUpKey(100 + i).slice(0, -1)}${madeUpKey(100 + i).endsWith('0') ? '1' : '0'}`;
        const flood = settling([...Array.from({ length: 20 }, (_, i) => search(madeUpKey(10 + i))), ...Array.from({ length: 10 }, (_, i) => search(wrongChecksum(i)))]);
        // Every one of the 30 answered, holding a place or waiting for one: the whole flood is at the gate.
        const atGate = async () => {
          const { running, waiting } = await store.gate();
          return flood.settled + running + waiting;
        };
        await until(async () => (await atGate()) === 30, 'the flood at the gate');
        let memberAnswered = false;
        const asked = search(memberHeaders['x-api-key']!).finally(() => (memberAnswered = true));
        await until(async () => memberAnswered || (await atGate()) >= 31, 'the member at the gate');
        expect(memberAnswered, 'the member was not refused while the flood held its places').to.equal(false);
        store.release();
        const member = await asked;
        const answers = await flood.all;
        expect(member.status, member.text.slice(0, 200)).to.equal(200);
        expect(
          answers.every((a) => [401, 429, 503].includes(a.status)),
          'made-up keys are refused',
        ).to.equal(true);
        // One IP's flood in the anonymous share is that caller's own overflow: 429 too_many_searches (issue 32).
        expect(answers.filter((a) => a.status === 429 && a.body.code === 'too_many_searches').length, 'they crowd the anonymous share instead').to.be.at.least(1);
      });
    });
  });

  describe('MCP routes', function () {
    it('answers a request without Host (HTTP/1.0) with a JSON 400 host_missing, not a 500', async function () {
      const api = await start();
      const body = JSON.stringify(rpc(1, 'tools/list'));
      const { text } = await rawExchange(
        Number(new URL(api.baseUrl).port),
        `POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(text).to.match(/^HTTP\/1\.[01] 400 /);
      expect(text).to.match(/\r\ncontent-type: application\/json/i);
      expect(jsonBodyOf(text).code).to.equal('host_missing');
    });

    it('routes MCP paths with their exact case only, as /api is', async function () {
      const api = await start();
      for (const path of ['/MCP', '/Mcp', '/channels/alpha/MCP', '/Channels/alpha/mcp']) {
        const answer = await postMcp(api, path, rpc(1, 'tools/list'));
        // A path of no route, whatever the method (issue 32: the 405 check matches paths as the routes do).
        expect(answer.status, path).to.equal(404);
        expect(answer.body.code, path).to.equal('route_not_found');
        expect(answer.body.result, path).to.equal(undefined);
      }
      expect((await postMcp(api, '/mcp', rpc(1, 'tools/list'))).body.result.tools[0].name).to.equal('search');
    });

    it('refuses a foreign Origin with 403 origin_forbidden (DNS rebinding), allows the channel host, the API host and the configured list', async function () {
      const api = await start({ MCP_ALLOWED_ORIGINS: 'https://console.example.net', PUBLIC_BASE_URL: 'https://api.creators.example.com' });
      const list = (path: string, headers: Record<string, string>) => postMcp(api, path, rpc(1, 'tools/list'), { headers });
      for (const [path, headers] of [
        ['/mcp', { origin: 'http://evil.example' }],
        ['/channels/alpha/mcp', { host: 'evil.example', origin: 'http://evil.example' }],
        ['/mcp', { origin: 'null' }],
        ['/mcp', { origin: 'https://alpha.creators.example.com.evil.example' }],
      ] as const) {
        const answer = await list(path, headers);
        expect([answer.status, answer.body.code], JSON.stringify(headers)).to.deep.equal([403, 'origin_forbidden']);
      }
      for (const [path, headers] of [
        ['/mcp', {}],
        ['/mcp', { origin: 'https://alpha.creators.example.com' }],
        ['/channels/alpha/mcp', { host: '127.0.0.1', origin: 'https://api.creators.example.com' }],
        ['/channels/alpha/mcp', { host: '127.0.0.1', origin: 'https://console.example.net' }],
      ] as const) {
        const answer = await list(path, headers);
        expect(answer.status, JSON.stringify(headers)).to.equal(200);
        expect(answer.body.result.tools).to.have.length(1);
      }
    });
  });

  describe('query-vector cache', function () {
    it('keeps members and anonymous callers apart: a phrase a member searched is embedded again for an MCP caller, then cached for each', async function () {
      const embedder = createHashEmbedder();
      const api = await start({}, { embedder });
      const phrase = `tomatoes in ${Date.now()}`;
      const member = () => api.request(`/api/v1/channels/alpha/search?q=${encodeURIComponent(phrase)}`, { headers: memberHeaders });
      expect((await member()).status).to.equal(200);
      expect(embedder.embeddedCount).to.equal(1);
      expect((await member()).status).to.equal(200);
      expect(embedder.embeddedCount, 'the member hits its own cache').to.equal(1);
      const anonymous = () => postMcp(api, '/mcp', rpc(1, 'tools/call', { name: 'search', arguments: { query: phrase } }));
      expect((await anonymous()).status).to.equal(200);
      expect(embedder.embeddedCount, 'the anonymous caller does not find the member vector').to.equal(2);
      expect((await anonymous()).status).to.equal(200);
      expect(embedder.embeddedCount, 'and hits its own').to.equal(2);
    });
  });

  describe('slow headers', function () {
    it('answers headers that trickle in past HTTP_HEADERS_TIMEOUT_MS with a JSON 408 request_timeout, within a second of the limit', async function () {
      const api = await start({ HTTP_HEADERS_TIMEOUT_MS: '500' });
      const { text, ms } = await rawExchange(Number(new URL(api.baseUrl).port), 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      expect(text).to.match(/^HTTP\/1\.1 408 /);
      expect(jsonBodyOf(text).code).to.equal('request_timeout');
      expect(ms).to.be.within(400, 1800);
    });
  });
});
