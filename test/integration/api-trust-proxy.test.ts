// TRUST_PROXY decides whether X-Forwarded-For names the client, hence the rate-limit bucket of anonymous callers behind a reverse proxy.
import { expect } from 'chai';
import { pino } from 'pino';
import { startLocalApi, type LocalApi } from '../../scripts/drills/local-api.js';
import { rawRequest } from '../support/api-harness.js';
import { useWorldStore } from '../support/api-world.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetchWithHost } from '../support/mcp-client.js';

describe('TRUST_PROXY: the client address behind a reverse proxy', function () {
  this.timeout(60_000);
  // One app per test (each its own TRUST_PROXY and logger), all over the one seeded world.
  const world = useWorldStore();
  let api: LocalApi | undefined;
  /** What the app logged at warn and above. */
  let logged: string[];

  afterEach(async function () {
    await api?.close();
    api = undefined;
  });

  /** The app over the test store, anonymous reading on, 10 calls a minute; its counters start empty. */
  async function start(env: Record<string, string> = {}): Promise<LocalApi> {
    logged = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => logged.push(line) });
    api = await startLocalApi({ prefix: world.store.prefix, keys: 0, embedder: false, log, env: { ANONYMOUS_READ: 'published', RATE_LIMIT_MAX: '10', ...env } });
    const counters = await api.redis.keys(`rl:${world.store.prefix}*`);
    if (counters.length > 0) await api.redis.del(...counters);
    return api;
  }

  /** The `r=` (remaining) of each anonymous call, one call per X-Forwarded-For value, in turn. */
  async function remaining(app: LocalApi, forwardedFor: string[]): Promise<number[]> {
    const left: number[] = [];
    for (const value of forwardedFor) {
      const res = await rawRequest(app.baseUrl, '/api/v1/channels/alpha/episodes?limit=1', { headers: { 'x-forwarded-for': value } });
      expect(res.status, value).to.equal(200);
      left.push(Number(/; r=(\d+);/.exec(String(res.headers.ratelimit))?.[1]));
    }
    return left;
  }

  /** express-rate-limit reports its misconfiguration checks (ERR_ERL_…) through our logger. */
  const limiterComplaints = () => logged.filter((line) => /rate limit|ERR_ERL_/.test(line));

  it('ignores X-Forwarded-For when TRUST_PROXY is unset: every anonymous caller shares the proxy bucket', async function () {
    const app = await start();
    expect(await remaining(app, ['203.0.113.1', '203.0.113.2', '203.0.113.1'])).to.deep.equal([9, 8, 7]);
    expect(limiterComplaints()).to.deep.equal([]);
  });

  it('gives each forwarded client its own bucket when the proxy is trusted (TRUST_PROXY=loopback)', async function () {
    const app = await start({ TRUST_PROXY: 'loopback' });
    expect(await remaining(app, ['203.0.113.1', '203.0.113.2', '203.0.113.1'])).to.deep.equal([9, 9, 8]);
    expect(limiterComplaints()).to.deep.equal([]);
  });

  it('with a hop count, keys on the address the proxy appended, so a forged X-Forwarded-For gains no new bucket', async function () {
    const app = await start({ TRUST_PROXY: '1' });
    // The client forges the first entry; the proxy appends the address it saw.
    expect(await remaining(app, ['198.51.100.7, 203.0.113.1', '198.51.100.8, 203.0.113.1', '203.0.113.2'])).to.deep.equal([9, 8, 9]);
    expect(limiterComplaints()).to.deep.equal([]);
  });

  it("never lets X-Forwarded-Host choose the channel, even from a trusted proxy: a page and an MCP server are the Host's", async function () {
    const app = await start({ TRUST_PROXY: 'loopback' });
    const headers = { host: 'alpha.creators.example.com', 'x-forwarded-host': 'free-show.creators.example.com' };
    const page = await rawRequest(app.baseUrl, '/', { headers });
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/<a class="brand" href="\/">Alpha[^<]*<\/a>/);
    // free-show has no tool server (free plan): were the forwarded host read, the session would be refused (404).
    const mcp = new Client({ name: 'cca-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/mcp`), {
      fetch: fetchWithHost(headers.host),
      requestInit: { headers: { 'x-forwarded-host': headers['x-forwarded-host'] } },
    });
    try {
      await mcp.connect(transport);
      expect(mcp.getServerVersion()?.name).to.equal('alpha-search');
    } finally {
      await mcp.close();
    }
  });
});
