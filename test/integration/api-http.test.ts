// HTTP behaviour every endpoint shares: JSON errors, methods, headers, request ids, versioning, hosts, rate limits, probes.
import { expect } from 'chai';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { useApiWorld } from '../support/api-world.js';
import { closedPort, relay } from '../support/api-net.js';

describe('API HTTP behaviour: errors, headers, versions, hosts, rate limits, probes', function () {
  this.timeout(60_000);
  const world = useApiWorld();

  describe('errors are JSON, never HTML', function () {
    it('answers an unknown route with 404 route_not_found', async function () {
      for (const path of ['/', '/nope', '/api/v1/nope', '/api/v2/channels', '/api/v1/channels/alpha/episodes/extra', '/api/v1/episodes/ep_a01']) {
        const res = await world.api.request(path, { headers: world.memberHeaders });
        expect(res.status, path).to.equal(404);
        expect(res.body.code, path).to.equal('route_not_found');
        expect(res.headers['content-type']).to.match(/^application\/json/);
      }
    });

    it('answers other methods with 405 and Allow: GET, HEAD, OPTIONS on known routes, and 404 on unknown ones', async function () {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const path of ['/api/v1/channels', '/api/v1/episodes/ep_a01/transcript']) {
          const res = await world.api.request(path, { method, headers: world.memberHeaders });
          expect(res.status, `${method} ${path}`).to.equal(405);
          expect(res.headers.allow).to.equal('GET, HEAD, OPTIONS');
          expect(res.body.code).to.equal('method_not_allowed');
        }
        const unknown = await world.api.request('/nope', { method, headers: world.memberHeaders });
        expect([unknown.status, unknown.body.code], `${method} /nope`).to.deep.equal([404, 'route_not_found']);
      }
    });

    it('answers HEAD like GET without a body, and OPTIONS with 204 and Allow', async function () {
      const head = await world.api.request('/api/v1/channels', { method: 'HEAD', headers: world.memberHeaders });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      const options = await world.api.request('/api/v1/channels', { method: 'OPTIONS' });
      expect(options.status).to.equal(204);
      expect(options.headers.allow).to.equal('GET, HEAD, OPTIONS');
    });

    it('answers an undecodable URL with 400 malformed_url', async function () {
      for (const path of ['/api/v1/channels/%E0%A4%A/episodes', '/api/v1/episodes/%E0%A4%A/transcript', '/api/v1/channels/%ZZ/search']) {
        const res = await world.api.request(path, { headers: world.memberHeaders });
        expect(res.status, path).to.equal(400);
        expect(res.body.code).to.equal('malformed_url');
      }
      const unknown = await world.api.request('/%E0%A4%A', { headers: world.memberHeaders });
      expect(unknown.status).to.equal(404);
    });

    it('puts the request id in the body and the header', async function () {
      const res = await world.api.request('/nope');
      expect(res.body.requestId).to.equal(res.headers['x-request-id']);
    });
  });

  describe('headers on every response', function () {
    const paths = [
      '/healthz',
      '/readyz',
      '/api/v1/openapi.json',
      '/.well-known/oauth-protected-resource',
      '/api/v1/channels',
      '/api/v1/channels/alpha/episodes',
      '/api/v1/episodes/ep_a01/transcript',
      '/nope',
    ];

    it('sends Cache-Control: private, no-store, X-Request-Id and the RateLimit headers (none on /healthz, which is not rate limited)', async function () {
      for (const path of [...paths, '/api/v1/channels/%E0%A4%A/episodes']) {
        for (const h of [world.memberHeaders, {}]) {
          const res = await world.api.request(path, { headers: h });
          expect(res.headers['cache-control'], path).to.equal('private, no-store');
          expect(res.headers['x-request-id'], path).to.match(/^[A-Za-z0-9._-]{1,128}$/);
          if (path === '/healthz') {
            expect(res.headers.ratelimit, path).to.equal(undefined);
            continue;
          }
          expect(res.headers.ratelimit, path).to.match(/^"\d+-in-1min"; r=\d+; t=\d+$/);
          expect(res.headers['ratelimit-policy'], path).to.match(/^"\d+-in-1min"; q=600; w=60; pk=:[A-Za-z0-9+/=]+:$/);
        }
      }
    });

    it('echoes a sane X-Request-Id and replaces anything else', async function () {
      const sane = await world.api.request('/healthz', { headers: { 'x-request-id': 'abc.DEF_123-x' } });
      expect(sane.headers['x-request-id']).to.equal('abc.DEF_123-x');
      for (const bad of ['has space', 'a'.repeat(129), 'semi;colon', '<script>']) {
        const res = await world.api.request('/nope', { headers: { 'x-request-id': bad } });
        expect(res.headers['x-request-id']).not.to.equal(bad);
        expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        expect(res.body.requestId).to.equal(res.headers['x-request-id']);
      }
    });

    it('sends no deprecation headers while /api/v1 is current', async function () {
      const res = await world.api.request('/api/v1/channels', { headers: world.memberHeaders });
      expect(res.headers).not.to.have.property('deprecation');
      expect(res.headers).not.to.have.property('sunset');
    });

    it('sends Deprecation, Sunset and Link on /api/v1 and its alias once v1 is marked deprecated', async function () {
      const deprecated = await startApi({
        env: {
          INDEX_PREFIX: world.store.prefix,
          API_V1_DEPRECATED_AT: '2026-01-01T00:00:00Z',
          API_V1_SUNSET_AT: '2026-12-31T00:00:00Z',
          API_V1_SUCCESSOR: 'https://api.example.com/api/v2',
        },
      });
      try {
        for (const path of ['/api/v1/channels', '/api/channels', '/api/v1/openapi.json', '/api/v1/nope']) {
          const res = await deprecated.request(path, { headers: world.memberHeaders });
          expect(res.headers.deprecation, path).to.equal(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
          expect(res.headers.sunset, path).to.equal('Thu, 31 Dec 2026 00:00:00 GMT');
          expect(res.headers.link, path).to.equal('<https://api.example.com/api/v2>; rel="successor-version"');
        }
        const health = await deprecated.request('/healthz');
        expect(health.headers).not.to.have.property('deprecation');
      } finally {
        await deprecated.close();
      }
    });
  });

  describe('versions and hosts', function () {
    it('serves /api/* as an alias of /api/v1/*', async function () {
      for (const path of ['/channels', '/channels/alpha/episodes?limit=3', '/episodes/ep_a01/chapters', '/episodes/ep_a01/related', '/openapi.json']) {
        const v1 = await world.api.request(`/api/v1${path}`, { headers: world.memberHeaders });
        const alias = await world.api.request(`/api${path}`, { headers: world.memberHeaders });
        expect(alias.status, path).to.equal(v1.status);
        expect(alias.body, path).to.deep.equal(v1.body);
      }
    });

    it('answers the same paths on a channel subdomain and on a custom domain, with URLs on the channel host', async function () {
      for (const host of ['alpha.creators.example.com', 'show.example.org', 'elsewhere.example.net']) {
        const list = await world.api.request('/api/channels/custom/episodes', { headers: { ...world.memberHeaders, host } });
        expect(list.status, host).to.equal(200);
        expect(list.body.episodes[0].url, host).to.equal('https://show.example.org/episodes/ep_custom1');
        const alpha = await world.api.request('/api/v1/channels/alpha/episodes?limit=1', { headers: { ...world.memberHeaders, host } });
        expect(alpha.body.episodes[0].url).to.match(/^https:\/\/alpha\.creators\.example\.com\/episodes\//);
      }
    });

    it('serves the OpenAPI document without a credential', async function () {
      const res = await world.api.request('/api/v1/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.body.openapi).to.equal('3.1.0');
      expect(res.body.info.version).to.equal('1.0.0');
    });
  });

  describe('rate limits (per credential, shared through Redis)', function () {
    let limited: ApiHarness;
    let twin: ApiHarness;
    const clearCounters = async () => {
      const keys = await world.api.redis.keys(`rl:${world.store.prefix}*`);
      if (keys.length > 0) await world.api.redis.del(...keys);
    };
    before(async function () {
      await clearCounters();
      // Both apps share the prefix, hence the counters: like two API processes behind one balancer.
      const env = { INDEX_PREFIX: world.store.prefix, RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '30' };
      limited = await startApi({ env });
      twin = await startApi({ env });
    });
    after(async function () {
      await limited?.close();
      await twin?.close();
    });
    // Fresh counters for each test: only this suite's keys (other suites share the Redis).
    beforeEach(clearCounters);

    it('answers 429 rate_limited with Retry-After once the quota of a key is spent, across processes', async function () {
      const statuses: number[] = [];
      const apps = [limited, twin, limited, twin];
      for (const app of apps) statuses.push((await app.request('/api/v1/channels', { headers: world.memberHeaders })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
      const res = await limited.request('/api/v1/channels', { headers: world.memberHeaders });
      expect(res.status).to.equal(429);
      expect(res.body.code).to.equal('rate_limited');
      expect(Number(res.headers['retry-after'])).to.be.within(1, 30);
      expect(res.headers.ratelimit).to.match(/; r=0; t=\d+$/);
    });

    it('counts each credential separately, and callers without one per IP', async function () {
      const other = (await world.store.key('u_member')).key;
      for (let i = 0; i < 3; i++) expect((await limited.request('/api/v1/channels', { headers: world.memberHeaders })).status).to.equal(200);
      expect((await limited.request('/api/v1/channels', { headers: world.memberHeaders })).status).to.equal(429);
      expect((await limited.request('/api/v1/channels', { headers: { 'x-api-key': other } })).status, 'another key').to.equal(200);
      expect((await limited.request('/api/v1/openapi.json')).status, 'no credential: the IP bucket').to.equal(200);
    });

    it('limits failed credentials by IP too, so guessing keys is throttled', async function () {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.request('/api/v1/channels', { headers: { 'x-api-key': 'svc_guess' } })).status);
      expect(statuses).to.deep.equal([401, 401, 401, 429]);
    });

    it('counts an OAuth subject as one credential whatever the token', async function () {
      const { createTokenKit } = await import('../support/api-tokens.js');
      const kit = createTokenKit();
      const tokenApi = await startApi({ env: { INDEX_PREFIX: world.store.prefix, RATE_LIMIT_MAX: '2', ...kit.env } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          statuses.push((await tokenApi.request('/api/v1/channels', { headers: { authorization: `Bearer ${kit.sign({ jti: String(i) })}` } })).status);
        }
        expect(statuses).to.deep.equal([200, 200, 429]);
      } finally {
        await tokenApi.close();
        kit.cleanup();
      }
    });

    it('keeps answering without limits (fail open) while Redis is unreachable', async function () {
      const noRedis = await startApi({ env: { INDEX_PREFIX: world.store.prefix, RATE_LIMIT_MAX: '1', REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
      try {
        for (let i = 0; i < 3; i++) {
          const res = await noRedis.request('/api/v1/channels', { headers: world.memberHeaders });
          expect(res.status).to.equal(200);
          expect(res.ms).to.be.lessThan(1000);
          expect(res.headers).not.to.have.property('ratelimit');
        }
        const ready = await noRedis.request('/readyz');
        expect(ready.status).to.equal(503);
        expect(ready.body.checks).to.deep.equal({ opensearch: 'ok', redis: 'unreachable' });
      } finally {
        await noRedis.close();
      }
    });

    it('limits again by itself once Redis is back, without a restart, even if Redis was down at start-up', async function () {
      const link = await relay(new URL(world.api.config.redisUrl));
      const redisUrl = link.url().replace('http:', 'redis:');
      const waitForLimits = async (app: ApiHarness) => {
        for (let i = 0; i < 40; i++) {
          if ((await app.request('/api/v1/channels', { headers: world.memberHeaders })).headers.ratelimit !== undefined) return true;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        return false;
      };
      await link.stop();
      const bornOffline = await startApi({ env: { INDEX_PREFIX: world.store.prefix, RATE_LIMIT_MAX: '100', REDIS_URL: redisUrl } });
      try {
        const open = await bornOffline.request('/api/v1/channels', { headers: world.memberHeaders });
        expect(open.status).to.equal(200);
        expect(open.headers).not.to.have.property('ratelimit');
        await link.start();
        expect(await waitForLimits(bornOffline), 'RateLimit headers within 10 s of Redis coming up').to.equal(true);
        await link.stop();
        expect((await bornOffline.request('/api/v1/channels', { headers: world.memberHeaders })).status, 'fail open again').to.equal(200);
        await link.start();
        expect(await waitForLimits(bornOffline), 'RateLimit headers within 10 s of Redis coming back').to.equal(true);
      } finally {
        await bornOffline.close();
        await link.stop();
      }
    });
  });

  describe('probes', function () {
    it('answers /healthz and /readyz with 200 while both services answer', async function () {
      expect((await world.api.request('/healthz')).body).to.deep.equal({ status: 'ok' });
      expect((await world.api.request('/readyz')).body).to.deep.equal({ status: 'ok', checks: { opensearch: 'ok', redis: 'ok' } });
    });

    it('answers /readyz with 503 JSON naming OpenSearch when it is unreachable, /healthz still 200', async function () {
      const down = await startApi({ env: { INDEX_PREFIX: world.store.prefix, OPENSEARCH_URL: `http://127.0.0.1:${await closedPort()}` } });
      try {
        const ready = await down.request('/readyz');
        expect(ready.status).to.equal(503);
        expect(ready.body).to.include({ code: 'not_ready' });
        expect(ready.body.checks).to.deep.equal({ opensearch: 'unreachable', redis: 'ok' });
        expect(ready.headers['retry-after']).to.equal('5');
        expect((await down.request('/healthz')).status).to.equal(200);
      } finally {
        await down.close();
      }
    });
  });
});
