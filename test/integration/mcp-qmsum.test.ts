// The per-channel MCP server over the compact qmsum corpus, through the SDK's own Client and Streamable HTTP transport.
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { CORPUS_DIR, QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';
import { createTokenKit, type TokenKit } from '../support/api-tokens.js';
import { connectMcp } from '../support/mcp-client.js';

type Meta = Pick<EpisodeRecord, 'id' | 'channelId' | 'status' | 'title'>;

function readEpisodes(): Meta[] {
  const dir = join(CORPUS_DIR, 'episodes');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json.gz'))
    .map((f) => {
      const { id, channelId, status, title } = JSON.parse(gunzipSync(readFileSync(join(dir, f))).toString('utf8')) as EpisodeRecord;
      return { id, channelId, status, title };
    });
}

const BASE_DOMAIN = 'creators.example.com';
const QUERY = 'What did Marketing think of installing a new remote control?';

interface SearchContent {
  query: string;
  episodes: { episodeId: string; title: string; url: string; segments: { startMs: number; url: string; text: string }[] }[];
}

/** One raw JSON-RPC POST, as an MCP client's first request looks, with `Host` set. */
function postInitialize(
  baseUrl: string,
  path: string,
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: { code?: string; error?: string } | undefined }> {
  const url = new URL(baseUrl);
  const payload = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent: false,
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('MCP server over the qmsum corpus (SDK client)', function () {
  this.timeout(120_000);
  let api: ApiHarness;
  let kit: TokenKit;
  let episodes: Meta[];
  const clients: Client[] = [];

  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    const { prefix, client, embedder } = await ensureCorpusLoaded();
    kit = createTokenKit();
    api = await startApi({
      env: { INDEX_PREFIX: prefix, CHANNEL_BASE_DOMAIN: BASE_DOMAIN, ANONYMOUS_READ: 'published', ...kit.env },
      client,
      embedder,
    });
    episodes = readEpisodes();
  });

  after(async function () {
    for (const c of clients) await c.close();
    await api?.close();
    kit?.cleanup();
  });

  const connect = async (path: string, host?: string) => {
    const client = await connectMcp(`${api.baseUrl}${path}`, { host });
    clients.push(client);
    return client;
  };
  const search = async (client: Client, args: Record<string, unknown>) => {
    const result = await client.callTool({ name: 'search', arguments: args });
    return result as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: SearchContent };
  };
  const published = (channelId: string) => new Set(episodes.filter((e) => e.channelId === channelId && e.status === 'published').map((e) => e.id));

  it('lists one tool, search, read-only, with query and the REST filters as input and SearchResult as output', async function () {
    const client = await connect('/mcp', `product-meetings.${BASE_DOMAIN}`);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(['search']);
    const [tool] = tools;
    expect(tool!.inputSchema.required).to.deep.equal(['query']);
    expect(Object.keys(tool!.inputSchema.properties ?? {})).to.have.members(['query', 'fast', 'limit', 'episodeIds', 'topicIds', 'personIds', 'entityIds', 'collectionId', 'year']);
    expect(tool!.outputSchema?.properties).to.have.keys('query', 'episodes', 'degraded');
    expect(tool!.annotations?.readOnlyHint).to.equal(true);
    expect(client.getServerVersion()?.name).to.equal('product-meetings-search');
  });

  it('answers search on a channel host with published episodes only, each moment cited by URL, as anonymous REST search does', async function () {
    const client = await connect('/mcp', `product-meetings.${BASE_DOMAIN}`);
    const result = await search(client, { query: QUERY, limit: 10 });
    expect(result.isError, result.content[0]?.text).to.not.equal(true);
    const content = result.structuredContent!;
    expect(content.episodes.length).to.be.greaterThan(0);
    const allowed = published('ch_product-meetings');
    for (const e of content.episodes) {
      expect(allowed.has(e.episodeId), `${e.episodeId} is published in product-meetings`).to.equal(true);
      expect(e.segments.length).to.be.greaterThan(0);
      for (const s of e.segments) {
        expect(s.url).to.equal(`https://product-meetings.${BASE_DOMAIN}/episodes/${e.episodeId}?t=${s.startMs}`);
      }
    }
    // The quotable text names every episode and cites every moment.
    const text = result.content.find((c) => c.type === 'text')!.text;
    for (const e of content.episodes) {
      expect(text).to.include(e.title);
      for (const s of e.segments) expect(text).to.include(s.url);
    }
    // The same pipeline as REST: an anonymous REST search gives the same result.
    const rest = await api.request(`/api/v1/channels/product-meetings/search?query=${encodeURIComponent(QUERY)}&limit=10`);
    expect(rest.status).to.equal(200);
    expect(content).to.deep.equal(rest.body);
  });

  it('serves the same channel at /channels/{slug}/mcp on the main host', async function () {
    const onHost = await search(await connect('/mcp', `research-meetings.${BASE_DOMAIN}`), { query: 'speech recognition results', limit: 3 });
    const onPath = await search(await connect('/channels/research-meetings/mcp'), { query: 'speech recognition results', limit: 3 });
    expect(onPath.structuredContent!.episodes.length).to.be.greaterThan(0);
    expect(onPath.structuredContent).to.deep.equal(onHost.structuredContent);
    expect(onPath.content).to.deep.equal(onHost.content);
  });

  it('never returns a pending, processing, failed or archived episode, which a member finds over REST', async function () {
    const unpublished = episodes.filter((e) => e.channelId === 'ch_product-meetings' && e.status !== 'published');
    expect([...new Set(unpublished.map((e) => e.status))]).to.include.members(['pending', 'processing', 'failed', 'archived']);
    const ids = unpublished.map((e) => e.id);
    const client = await connect('/channels/product-meetings/mcp');
    for (const query of ['remote control', 'project manager meeting', unpublished[0]!.title]) {
      const mcp = await search(client, { query, episodeIds: ids, limit: 50 });
      expect(mcp.isError).to.not.equal(true);
      expect(mcp.structuredContent!.episodes, query).to.deep.equal([]);
      expect(mcp.content[0]!.text).to.match(/^No published episode of Product Design Meetings matches/);
      const member = { authorization: `Bearer ${kit.sign({ sub: 'u_member' })}` };
      const rest = await api.request(`/api/v1/channels/product-meetings/search?query=${encodeURIComponent(query)}&episodeIds=${ids.join(',')}&limit=50`, { headers: member });
      expect(rest.body.episodes.length, `a member finds unpublished episodes for "${query}"`).to.be.greaterThan(0);
    }
  });

  it('gives an error result, not a failed request, for bad arguments', async function () {
    const client = await connect('/channels/product-meetings/mcp');
    for (const [args, field] of [
      [{ query: 'remote', limit: 0 }, 'limit'],
      [{ query: 'remote', limit: 51 }, 'limit'],
      [{ query: '   ' }, 'query'],
      [{}, 'query'],
      [{ query: 'remote', year: 'last year' }, 'year'],
      [{ query: 'remote', episodeIds: 'ep_es2002a,ep_es2002b' }, 'episodeIds'],
      [{ query: 'remote', episodeIds: ['ep es2002a'] }, 'episodeIds'],
      [{ query: 'x'.repeat(1001) }, 'query'],
    ] as const) {
      const result = await search(client, args);
      expect(result.isError, JSON.stringify(args)).to.equal(true);
      expect(result.content[0]!.text, JSON.stringify(args)).to.include(field);
      expect(result.structuredContent).to.equal(undefined);
    }
  });

  it('answers an unknown slug, an unknown channel host and a free-plan channel alike: 404 as for a path that does not exist', async function () {
    const answers = [
      await postInitialize(api.baseUrl, '/channels/no-such-channel/mcp', '127.0.0.1'),
      await postInitialize(api.baseUrl, '/mcp', `no-such-channel.${BASE_DOMAIN}`),
      await postInitialize(api.baseUrl, '/mcp', 'podcast.unknown.example.net'),
      await postInitialize(api.baseUrl, '/mcp', '127.0.0.1'),
      await postInitialize(api.baseUrl, '/channels/free-plan-demo/mcp', '127.0.0.1'),
      await postInitialize(api.baseUrl, '/mcp', `free-plan-demo.${BASE_DOMAIN}`),
    ];
    const shape = (a: (typeof answers)[number]) => ({ status: a.status, code: a.body?.code, error: a.body?.error, type: a.headers['content-type'] });
    for (const a of answers) expect(shape(a)).to.deep.equal(shape(answers[0]!));
    expect(shape(answers[0]!)).to.deep.include({ status: 404, code: 'route_not_found' });
    // And through the SDK: the connection fails with the same 404.
    for (const [path, host] of [
      ['/channels/free-plan-demo/mcp', undefined],
      ['/channels/no-such-channel/mcp', undefined],
    ] as const) {
      const failure = await connectMcp(`${api.baseUrl}${path}`, { host }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).to.be.instanceOf(StreamableHTTPError);
      expect((failure as StreamableHTTPError).code).to.equal(404);
    }
  });

  it('refuses GET and DELETE on the endpoint with 405 and Allow: POST (stateless: no SSE stream, no session)', async function () {
    for (const method of ['GET', 'DELETE']) {
      const res = await api.request('/channels/product-meetings/mcp', { method, unchecked: true });
      expect(res.status).to.equal(405);
      expect(res.headers.allow).to.equal('POST');
      expect(res.body.code).to.equal('method_not_allowed');
    }
  });
});
