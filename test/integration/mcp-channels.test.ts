// The MCP server's channel rules on a small world of our own: custom domains, drafts, the switch, per-IP limits, store failures.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, type Client } from '../../core/store/opensearch.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { inspectingRelay, until } from '../support/api-net.js';
import { createApiTestStore, enrichedEpisode, seedWorld, type ApiTestStore } from '../support/api-fixture.js';
import { connectMcp } from '../support/mcp-client.js';
import { sentRequests, storeTraffic } from '../support/store-traffic.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import type { SearchResult } from '../../core/search/types.js';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: SearchResult };

describe('MCP server: channel rules, switch, rate limit and store failures (small world)', function () {
  this.timeout(60_000);
  let client: Client;
  let store: ApiTestStore;
  let alpha: EpisodeRecord[];
  const apis: ApiHarness[] = [];
  const mcps: McpClient[] = [];

  before(async function () {
    client = createOpenSearchClient({ url: loadConfig(process.env).opensearchUrl, timeoutMs: 30_000 });
    store = await createApiTestStore(client);
    ({ alpha } = await seedWorld(store));
  });

  after(async function () {
    for (const m of mcps) await m.close();
    for (const a of apis) await a.close();
    await store?.drop();
    await client?.close();
  });

  async function start(env: Record<string, string> = {}): Promise<ApiHarness> {
    const api = await startApi({ env: { INDEX_PREFIX: store.prefix, CHANNEL_BASE_DOMAIN: 'creators.example.com', ...env }, client });
    apis.push(api);
    return api;
  }
  async function connect(url: string, options: { host?: string } = {}): Promise<McpClient> {
    const mcp = await connectMcp(url, options);
    mcps.push(mcp);
    return mcp;
  }
  const search = async (mcp: McpClient, args: Record<string, unknown>) => (await mcp.callTool({ name: 'search', arguments: args })) as ToolResult;

  it('serves a channel at its custom domain, citing moments on that domain', async function () {
    const api = await start();
    const result = await search(await connect(`${api.baseUrl}/mcp`, { host: 'show.example.org' }), { query: 'tomatoes', fast: true });
    expect(result.isError).to.not.equal(true);
    expect(result.structuredContent!.episodes.map((e) => e.episodeId)).to.deep.equal(['ep_custom1']);
    for (const s of result.structuredContent!.episodes[0]!.segments) {
      expect(s.url).to.equal(`https://show.example.org/episodes/ep_custom1?t=${s.startMs}`);
    }
  });

  it('returns published episodes only, whatever the status of the others', async function () {
    const api = await start();
    const result = await search(await connect(`${api.baseUrl}/channels/alpha/mcp`), { query: 'tomatoes soil gardening', fast: true, limit: 50 });
    const ids = result.structuredContent!.episodes.map((e) => e.episodeId).sort();
    expect(ids).to.deep.equal(
      alpha
        .filter((e) => e.status === 'published')
        .map((e) => e.id)
        .sort(),
    );
  });

  it('says in its text what was generated from the transcript: a cited generated title, or the generated chapter cited speech is in (decision 27)', async function () {
    const record = enrichedEpisode('ep_enriched', 'ch_alpha');
    await store.episodes([record]);
    const api = await start();
    const mcp = await connect(`${api.baseUrl}/channels/alpha/mcp`);
    const result = await search(mcp, { query: 'compost smells sweet', fast: true, episodeIds: ['ep_enriched'] });
    const [episode] = result.structuredContent!.episodes;
    expect(episode?.episodeId).to.equal('ep_enriched');
    expect(episode!.segments.length).to.be.above(0);
    const text = result.content[0]!.text;
    // Whether search cites generated titles or only the speech they summarise, each citation says what was generated.
    for (const s of episode!.segments) {
      const kind = s.matchedVia.includes('chapter') ? 'Generated chapter title' : s.matchedVia.includes('moment') ? 'Generated key moment' : undefined;
      if (kind) expect(text).to.include(`${kind} (from the transcript, not the creator's): "${s.text}"`);
      else {
        const chapter = record.chapters!.filter((c) => c.startMs <= s.startMs && s.startMs < c.endMs).at(-1)!;
        expect(text).to.include(`${s.url}\n     In the chapter "${chapter.title}", generated from the transcript (not the creator's).`);
      }
    }
    const creators = await search(mcp, { query: 'tomatoes', fast: true, episodeIds: ['ep_a00'] });
    expect(creators.structuredContent!.episodes[0]!.segments.length, "the creator's episode is cited").to.be.above(0);
    expect(creators.content[0]!.text).to.not.include('generated');
  });

  it("answers a free-plan channel's host and slug exactly like an unknown channel's: 404 route_not_found", async function () {
    const api = await start();
    const shape = async (path: string, host: string) => {
      const failure = await connectMcp(`${api.baseUrl}${path}`, { host }).then(
        () => undefined,
        (err: unknown) => err as { code?: number; message?: string },
      );
      // The SDK's message quotes the body: drop the request id, the one part that differs per request.
      return { code: failure?.code, message: failure?.message?.replace(/"requestId":"[^"]+"/, '') };
    };
    const unknown = await shape('/channels/no-such-show/mcp', '127.0.0.1');
    expect(unknown.code).to.equal(404);
    expect(unknown.message).to.include('route_not_found');
    expect(await shape('/channels/free-show/mcp', '127.0.0.1')).to.deep.equal(unknown);
    expect(await shape('/mcp', 'free-show.creators.example.com')).to.deep.equal(unknown);
    expect(await shape('/mcp', 'no-such-show.creators.example.com')).to.deep.equal(unknown);
  });

  it("sends the store the same requests, in the same order, for a free-plan channel's host or slug as for an unknown one's", async function () {
    const api = await start();
    /** The store requests of one refused session start, in order, without the suite's prefix. */
    const sent = async ([path, host]: readonly [string, string]) => {
      let code: number | undefined;
      const traffic = await storeTraffic(
        api.client,
        async () => {
          code = await connectMcp(`${api.baseUrl}${path}`, { host }).then(
            () => undefined,
            (err: unknown) => (err as { code?: number }).code,
          );
        },
        { prefix: store.prefix },
      );
      expect(code, `${host}${path}`).to.equal(404);
      return sentRequests(traffic);
    };
    for (const [freePlan, unknown] of [
      [
        ['/channels/free-show/mcp', '127.0.0.1'],
        ['/channels/no-such-show/mcp', '127.0.0.1'],
      ],
      [
        ['/mcp', 'free-show.creators.example.com'],
        ['/mcp', 'no-such-show.creators.example.com'],
      ],
    ] as const) {
      // Both orders, so that nothing the first leaves behind (a hint, a cache) hides a difference.
      for (const [a, b] of [
        [freePlan, unknown],
        [unknown, freePlan],
      ] as const) {
        const [first, second] = [await sent(a), await sent(b)];
        expect(first.length, 'the store was asked').to.be.greaterThan(0);
        expect(first, `${a.join(' ')} then ${b.join(' ')}`).to.deep.equal(second);
      }
    }
  });

  it('answers OPTIONS, GET and DELETE on an MCP path with 405 and Allow: POST', async function () {
    const api = await start();
    for (const path of ['/mcp', '/channels/alpha/mcp']) {
      for (const method of ['OPTIONS', 'GET', 'DELETE']) {
        const res = await api.request(path, { method, unchecked: true });
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.allow, `${method} ${path}`).to.equal('POST');
      }
    }
  });

  it('answers malformed JSON with a JSON-RPC parse error (400) and an oversized body with 413, never a 500', async function () {
    const api = await start();
    const post = (body: string) =>
      fetch(`${api.baseUrl}/channels/alpha/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(malformed.status).to.equal(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).to.equal(-32700);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(70_000) } } };
    expect((await post(JSON.stringify(call))).status).to.equal(413);
  });

  it('does not exist when switched off (MCP_SERVER=off): the paths answer like any path that has no route', async function () {
    const api = await start({ MCP_SERVER: 'off' });
    for (const path of ['/mcp', '/channels/alpha/mcp', '/no-such-path']) {
      const post = await api.request(path, { method: 'POST', unchecked: true });
      expect([post.status, post.body.code], path).to.deep.equal([404, 'route_not_found']);
      const get = await api.request(path, { unchecked: true });
      expect([get.status, get.body.code], path).to.deep.equal([404, 'route_not_found']);
    }
    const failure = await connectMcp(`${api.baseUrl}/channels/alpha/mcp`).then(
      () => undefined,
      (err: unknown) => err as { code?: number },
    );
    expect(failure?.code).to.equal(404);
  });

  it('rate-limits per client IP, sharing the bucket of anonymous REST calls from that IP', async function () {
    // Counters are shared by every app over this prefix: start from empty ones.
    const redis = new Redis(loadConfig(process.env).redisUrl);
    const counters = await redis.keys(`rl:${store.prefix}*`);
    if (counters.length > 0) await redis.del(...counters);
    redis.disconnect();
    const api = await start({ RATE_LIMIT_MAX: '6', RATE_LIMIT_WINDOW_SECONDS: '60', TRUST_PROXY: 'loopback', ANONYMOUS_READ: 'published' });
    const from = async (ip: string) => {
      const mcp = new SdkClient({ name: 'cca-test', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${api.baseUrl}/channels/alpha/mcp`), { requestInit: { headers: { 'x-forwarded-for': ip } } }));
      mcps.push(mcp);
      return mcp;
    };
    const a = await from('203.0.113.7');
    let refused: { code?: number; message?: string } | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      await search(a, { query: 'tomatoes', fast: true }).catch((err: unknown) => {
        refused = err as { code?: number; message?: string };
      });
    }
    expect(refused, 'a call over the quota is refused').to.not.equal(undefined);
    expect(refused!.code).to.equal(429);
    const rest = await api.request('/api/v1/channels/alpha/search?q=tomatoes', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(rest.status).to.equal(429);
    expect(rest.headers['retry-after']).to.match(/^\d+$/);
    // Another address has its own bucket.
    const b = await from('203.0.113.8');
    expect((await search(b, { query: 'tomatoes', fast: true })).isError).to.not.equal(true);
  });

  it('takes a place in the anonymous share of the admission gate: past SEARCH_ANONYMOUS_CONCURRENCY running and SEARCH_ANONYMOUS_QUEUE waiting, an MCP search is an error result saying so', async function () {
    // Each _msearch held back until released: the first search keeps the only place, for certain, while the second arrives.
    const relay = await inspectingRelay(new URL(loadConfig(process.env).opensearchUrl), { hold: /_msearch/ });
    try {
      // An API of its own on the relay (not the suite's shared store client).
      const api = await startApi({
        env: { INDEX_PREFIX: store.prefix, OPENSEARCH_URL: relay.url, OPENSEARCH_TIMEOUT_MS: '10000', SEARCH_ANONYMOUS_CONCURRENCY: '1', SEARCH_ANONYMOUS_QUEUE: '0' },
      });
      apis.push(api);
      const [first, second] = [await connect(`${api.baseUrl}/channels/alpha/mcp`), await connect(`${api.baseUrl}/channels/alpha/mcp`)];
      const running = search(first, { query: 'tomatoes', fast: true });
      // Its _msearch in the store's hands: it holds the place.
      await until(() => relay.held > 0, "the first search's _msearch");
      const refused = await search(second, { query: 'tomatoes', fast: true });
      expect(relay.held, 'refused while the first search still held its place').to.be.greaterThan(0);
      relay.release();
      expect(refused.isError).to.equal(true);
      // Both clients are one address, which holds the only place: its own overflow (issue 32), told apart from a full share.
      expect(refused.content[0]!.text).to.match(/^Too many searches from this caller at once/);
      expect((await running).isError, 'the search that held the place').to.not.equal(true);
      expect((await search(second, { query: 'tomatoes', fast: true })).isError, 'with the place free again').to.not.equal(true);
    } finally {
      await relay.close();
    }
  });

  it('gives an error result, not a 500, when the store fails inside a search', async function () {
    const api = await start();
    const mcp = await connect(`${api.baseUrl}/channels/alpha/mcp`);
    expect((await search(mcp, { query: 'tomatoes', fast: true })).isError).to.not.equal(true);
    // The passages index goes away behind its alias: the channel is still found, the search fails.
    const res = await client.indices.getAlias({ name: store.aliases.passages });
    await client.indices.delete({ index: Object.keys(res.body) });
    const result = await search(mcp, { query: 'tomatoes', fast: true });
    expect(result.isError).to.equal(true);
    expect(result.content[0]!.text).to.equal('The content store is unavailable; retry shortly.');
  });
});
