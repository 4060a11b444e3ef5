// Credentials, membership and plan on a small world of our own: API keys, OAuth tokens, 401/403/404, anonymous reads, the keys CLI.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createOpenSearchClient, type Client } from '../../core/store/opensearch.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { loadConfig } from '../../core/config/load.js';
import { KeyStoreError, createApiKey, listApiKeys, revokeApiKey } from '../../src/auth/key-store.js';
import { checksum, generateApiKey, hashApiKey } from '../../src/auth/api-keys.js';
import { startApi, type ApiHarness, type ApiResponse } from '../support/api-harness.js';
import { WORLD_CHANNELS, createApiTestStore, seedWorld, type ApiTestStore } from '../support/api-fixture.js';
import { TEST_AUDIENCE, createTokenKit, type TokenKit } from '../support/api-tokens.js';
import { startOidcServer, type OidcServer } from '../support/oidc-server.js';
import { sentRequests, storeTraffic as storeTrafficOf } from '../support/store-traffic.js';

const run = promisify(execFile);
const CHALLENGE = (base: string) => `Bearer realm="api", resource_metadata="${base}/.well-known/oauth-protected-resource", scope="creator:read"`;

describe('API authentication, membership and plans', function () {
  this.timeout(60_000);
  let client: Client;
  let store: ApiTestStore;
  let api: ApiHarness;
  let kit: TokenKit;
  let memberKey: string;
  const base = 'https://api.test.example';

  before(async function () {
    const config = loadConfig(process.env);
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    store = await createApiTestStore(client);
    await seedWorld(store);
    kit = createTokenKit();
    api = await startApi({ env: { INDEX_PREFIX: store.prefix, PUBLIC_BASE_URL: base, ...kit.env } });
    memberKey = (await store.key('u_member')).key;
  });

  after(async function () {
    await api?.close();
    await store?.drop();
    await client?.close();
    kit?.cleanup();
  });

  const get = (path: string, headers: Record<string, string> = {}) => api.request(path, { headers });
  const withoutRequestId = (res: ApiResponse) => res.text.replace(res.body.requestId, '<id>');
  /** Runs `body` with the alpha channel changed in the store, then puts alpha back as seeded, whatever `body` did. */
  async function withAlphaChanged(changes: Partial<ChannelDoc>, body: () => Promise<void>): Promise<void> {
    const alpha = WORLD_CHANNELS[0]!;
    await store.channels([{ ...alpha, ...changes }]);
    try {
      await body();
    } finally {
      await store.channels([alpha]);
    }
  }

  describe('API keys', function () {
    it('reads with x-api-key and with Authorization: Bearer svc_…', async function () {
      for (const headers of [{ 'x-api-key': memberKey }, { authorization: `Bearer ${memberKey}` }, { authorization: `bearer ${memberKey}` }] as Record<string, string>[]) {
        const res = await get('/api/v1/channels', headers);
        expect(res.status, JSON.stringify(headers)).to.equal(200);
        expect(res.body.channels.map((c: { slug: string }) => c.slug)).to.deep.equal(['alpha', 'custom', 'free-show']);
      }
    });

    it('reports apiAccess from each owner plan', async function () {
      const res = await get('/api/v1/channels', { 'x-api-key': memberKey });
      const access = Object.fromEntries(res.body.channels.map((c: { slug: string; apiAccess: boolean }) => [c.slug, c.apiAccess]));
      expect(access).to.deep.equal({ alpha: true, custom: true, 'free-show': false });
      expect(res.body.channels[0]).to.include({ id: 'ch_alpha', title: 'Alpha', providerType: 'youtube' });
    });

    it('fails on the very next request once the key is revoked', async function () {
      const { key, keyId } = await store.key('u_member');
      expect((await get('/api/v1/channels/alpha/episodes?limit=1', { 'x-api-key': key })).status).to.equal(200);
      await revokeApiKey({ client, aliases: store.aliases }, keyId);
      const res = await get('/api/v1/channels/alpha/episodes?limit=1', { 'x-api-key': key });
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('invalid_api_key');
      expect(res.headers['www-authenticate']).to.equal(`${CHALLENGE(base)}, error="invalid_token"`);
    });

    it('refuses a well-formed key that was never issued, and a non-key value in x-api-key', async function () {
      for (const headers of [{ 'x-api-key': generateApiKey() }, { authorization: `Bearer ${generateApiKey()}` }, { 'x-api-key': 'some-old-token' }] as Record<string, string>[]) {
        const res = await get('/api/v1/channels', headers);
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('invalid_api_key');
      }
    });

    it('refuses a key with a bad checksum without a store lookup (it is 401 even with the store unreachable)', async function () {
      const body = memberKey.slice(4, 36);
      const wrong = `svc_${body}${checksum(body) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
      const offline = await startApi({ env: { INDEX_PREFIX: store.prefix, OPENSEARCH_URL: 'http://127.0.0.1:1' } });
      try {
        const bad = await offline.request('/api/v1/channels', { headers: { 'x-api-key': wrong } });
        expect(bad.status).to.equal(401);
        expect(bad.body.code).to.equal('invalid_api_key');
        const good = await offline.request('/api/v1/channels', { headers: { 'x-api-key': memberKey } });
        expect(good.status, 'a well-formed key needs the store').to.equal(503);
      } finally {
        await offline.close();
      }
    });

    it('keeps working when the key owner moves to the free plan: only channel owners decide access', async function () {
      const { key } = await store.key('u_member');
      await store.users([{ id: 'u_member', name: 'Member', plan: 'free' }]);
      try {
        expect((await get('/api/v1/channels/alpha/episodes?limit=1', { 'x-api-key': key })).status).to.equal(200);
      } finally {
        await store.users([{ id: 'u_member', name: 'Member', plan: 'paid' }]);
      }
    });

    it('creates keys only for paid users, lists them without secrets, revokes once', async function () {
      const deps = { client, aliases: store.aliases };
      for (const userId of ['u_free_member', 'u_nobody']) {
        let thrown: unknown;
        try {
          await createApiKey(deps, { userId });
        } catch (error) {
          thrown = error;
        }
        expect(thrown, userId).to.be.instanceOf(KeyStoreError);
      }
      const { key, record } = await createApiKey(deps, { userId: 'u_outsider', name: 'ci' });
      const listed = await listApiKeys(deps, 'u_outsider');
      expect(listed.map((r) => r.keyId)).to.include(record.keyId);
      expect(JSON.stringify(listed)).not.to.include(key);
      expect(listed.find((r) => r.keyId === record.keyId)).to.include({ last4: key.slice(-4), name: 'ci', revokedAt: null });
      const first = await revokeApiKey(deps, record.keyId);
      const second = await revokeApiKey(deps, record.keyId);
      expect(second?.revokedAt).to.equal(first?.revokedAt);
      expect(await revokeApiKey(deps, 'key_unknown')).to.equal(undefined);
    });

    it('has a CLI that prints the new key once on the last line, lists and revokes it, and refuses free users', async function () {
      this.timeout(90_000);
      const env = { ...process.env, INDEX_PREFIX: store.prefix, LOG_LEVEL: 'silent' };
      const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], { env });
      const created = await cli('create', '--user', 'u_outsider', '--name', 'from-cli');
      const lines = created.stdout.trim().split('\n');
      const key = lines.at(-1)!;
      expect(key).to.match(/^svc_[0-9A-Za-z]{38}$/);
      const keyId = /keyId (\S+)/.exec(created.stdout)![1]!;
      expect((await get('/api/v1/channels', { 'x-api-key': key })).status).to.equal(200);
      const listed = await cli('list', '--user', 'u_outsider');
      expect(listed.stdout).to.include(keyId);
      expect(listed.stdout).not.to.include(key);
      await cli('revoke', keyId);
      expect((await get('/api/v1/channels', { 'x-api-key': key })).status).to.equal(401);
      let failure: { code?: number; stderr?: string } = {};
      try {
        await cli('create', '--user', 'u_free_member');
      } catch (error) {
        failure = error as typeof failure;
      }
      expect(failure.code).to.equal(1);
      expect(failure.stderr).to.include('paid plan');
    });
  });

  describe('OAuth access tokens', function () {
    it('reads with an RS256 token whose sub is a member', async function () {
      const res = await get('/api/v1/channels/alpha/episodes?limit=2', { authorization: `Bearer ${kit.sign()}` });
      expect(res.status).to.equal(200);
      expect(res.body.episodes).to.have.length(2);
    });

    const refused: [string, () => string, string][] = [
      ['the wrong audience', () => kit.sign({ aud: 'https://someone-else.example' }), 'invalid_token'],
      ['the wrong issuer', () => kit.sign({ iss: 'https://evil.example' }), 'invalid_token'],
      ['an expired token', () => kit.sign({ exp: Math.floor(Date.now() / 1000) - 3600 }), 'invalid_token'],
      ['a token not valid yet', () => kit.sign({ nbf: Math.floor(Date.now() / 1000) + 3600 }), 'invalid_token'],
      ['alg none', () => kit.unsigned(), 'invalid_token'],
      ['HS256 signed with the RSA public key as secret', () => kit.hs256WithPublicKey(), 'invalid_token'],
      ['a token signed by another key', () => kit.sign({}, { key: 'other-rsa' }), 'invalid_token'],
      ['a malformed token', () => 'abc.def', 'invalid_token'],
    ];
    for (const [what, token, code] of refused) {
      it(`answers 401 ${code} with the challenge for ${what}`, async function () {
        const res = await get('/api/v1/channels', { authorization: `Bearer ${token()}` });
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal(code);
        expect(res.headers['www-authenticate']).to.equal(`${CHALLENGE(base)}, error="invalid_token"`);
      });
    }

    it('answers 403 insufficient_scope with a scope challenge (RFC 6750 §3.1, MCP step-up) to a valid token without creator:read, apart from the plan 403', async function () {
      for (const token of [kit.sign({ scope: 'creator:write profile' }), kit.sign({ scope: undefined })]) {
        for (const path of ['/api/v1/channels', '/api/v1/channels/alpha/search?q=garden']) {
          const res = await get(path, { authorization: `Bearer ${token}` });
          expect(res.status, path).to.equal(403);
          expect(res.body.code).to.equal('insufficient_scope');
          expect(res.headers['www-authenticate']).to.equal(
            `Bearer error="insufficient_scope", scope="creator:read", resource_metadata="${base}/.well-known/oauth-protected-resource", realm="api"`,
          );
        }
      }
      // The plan's 403 carries no challenge: a new token would not help.
      const plan = await get('/api/v1/channels/free-show/episodes', { authorization: `Bearer ${kit.sign()}` });
      expect([plan.status, plan.body.code, plan.headers['www-authenticate']]).to.deep.equal([403, 'plan_required', undefined]);
    });

    it('lists no channels for a valid token of a user who is a member of none', async function () {
      const res = await get('/api/v1/channels', { authorization: `Bearer ${kit.sign({ sub: 'u_outsider' })}` });
      expect(res.status).to.equal(200);
      expect(res.body.channels).to.deep.equal([]);
    });

    it('accepts ES256 tokens from a JWKS file', async function () {
      const jwksApi = await startApi({ env: { INDEX_PREFIX: store.prefix, ...kit.jwksEnv } });
      try {
        const res = await jwksApi.request('/api/v1/channels', { headers: { authorization: `Bearer ${kit.sign({}, { key: 'ec' })}` } });
        expect(res.status).to.equal(200);
      } finally {
        await jwksApi.close();
      }
    });
  });

  describe('missing and malformed credentials', function () {
    it('answers 401 credential_missing with the bare challenge when nothing is presented', async function () {
      for (const path of [
        '/api/v1/channels',
        '/api/v1/channels/alpha/episodes',
        '/api/v1/channels/alpha/search?q=x',
        '/api/v1/episodes/ep_a01/transcript',
        '/api/v1/episodes/ep_a01/chapters',
        '/api/v1/episodes/ep_a01/related',
        '/api/channels',
      ]) {
        const res = await get(path);
        expect(res.status, path).to.equal(401);
        expect(res.body.code).to.equal('credential_missing');
        expect(res.headers['www-authenticate']).to.equal(CHALLENGE(base));
      }
    });

    it('answers 401 to two credentials at once, and to a non-Bearer Authorization scheme', async function () {
      const both = await get('/api/v1/channels', { 'x-api-key': memberKey, authorization: `Bearer ${kit.sign()}` });
      expect(both.status).to.equal(401);
      expect(both.body.code).to.equal('multiple_credentials');
      const basic = await get('/api/v1/channels', { authorization: 'Basic dXNlcjpwYXNz' });
      expect(basic.status).to.equal(401);
      expect(basic.body.code).to.equal('unsupported_authorization');
    });

    it('serves the RFC 9728 metadata document without a credential', async function () {
      const res = await get('/.well-known/oauth-protected-resource');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ resource: base, scopes_supported: ['creator:read'], bearer_methods_supported: ['header'] });
      expect(res.body.authorization_servers).to.be.an('array');
    });
  });

  describe('membership and plan, read at call time', function () {
    const member = () => ({ 'x-api-key': memberKey });
    const outsider = () => ({ authorization: `Bearer ${kit.sign({ sub: 'u_outsider' })}` });

    it('answers a non-member and an unknown slug with byte-identical 404 bodies apart from requestId', async function () {
      for (const suffix of ['episodes', 'search?q=garden']) {
        const notMember = await get(`/api/v1/channels/alpha/${suffix}`, outsider());
        const unknown = await get(`/api/v1/channels/no-such-channel/${suffix}`, outsider());
        const unknownForMember = await get(`/api/v1/channels/no-such-channel/${suffix}`, member());
        expect(notMember.status).to.equal(404);
        expect(withoutRequestId(notMember)).to.equal(withoutRequestId(unknown));
        expect(withoutRequestId(unknown)).to.equal(withoutRequestId(unknownForMember));
        expect(Object.keys(notMember.headers).sort()).to.deep.equal(Object.keys(unknown.headers).sort());
      }
    });

    it('answers a non-member and an unknown episode id with byte-identical 404 bodies, on every episode endpoint', async function () {
      for (const what of ['transcript', 'chapters', 'related']) {
        const notMember = await get(`/api/v1/episodes/ep_a01/${what}`, outsider());
        const unknown = await get(`/api/v1/episodes/ep_nope/${what}`, outsider());
        const archived = await get(`/api/v1/episodes/ep_a07/${what}`, member());
        expect(notMember.status).to.equal(404);
        expect(withoutRequestId(notMember)).to.equal(withoutRequestId(unknown));
        expect(withoutRequestId(archived)).to.equal(withoutRequestId(unknown));
      }
    });

    /**
     * The store requests one GET sent, in order (method, path, `_mget` indices, a digest of the body), without the
     * suite's prefix, with document ids and the ids the compared calls name replaced by one placeholder.
     */
    /** Waits until the key's `lastUsedAt` is stored (src/auth/key-usage.ts writes it after the response). */
    const lastUseWritten = async (key: string) => {
      for (let i = 0; i < 50; i++) {
        const res = await api.client.get({ index: store.aliases['api-keys'], id: hashApiKey(key) });
        if ((res.body._source as { lastUsedAt?: string | null }).lastUsedAt) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("the key's last use was never written");
    };

    const storeRequestsOf = async (path: string, headers: Record<string, string>, ids: readonly string[]) => {
      let status = 0;
      const traffic = await storeTrafficOf(
        api.client,
        async () => {
          status = (await get(path, headers)).status;
        },
        { prefix: store.prefix },
      );
      return { status, sent: sentRequests(traffic, { bodies: { ids } }) };
    };

    // Same store requests, same order, same bodies but for the id named: no extra round trip, no other fields read,
    // tells a channel that exists apart from one that does not (a timing comparison cannot see one 1-3 ms round trip;
    // the sequence can). The response times stay a benchmark's business.
    const CHANNELS = ['alpha', 'no-such-channel'] as const;
    const EPISODES = ['ep_a01', 'ep_nope'] as const;
    for (const [what, nonMember, unknown, ids] of [
      ['a channel list', '/api/v1/channels/alpha/episodes', '/api/v1/channels/no-such-channel/episodes', CHANNELS],
      ['a channel search', '/api/v1/channels/alpha/search?q=garden', '/api/v1/channels/no-such-channel/search?q=garden', CHANNELS],
      ['a change feed', '/api/v1/channels/alpha/changes', '/api/v1/channels/no-such-channel/changes', CHANNELS],
      ['a transcript', '/api/v1/episodes/ep_a01/transcript', '/api/v1/episodes/ep_nope/transcript', EPISODES],
      ['chapters', '/api/v1/episodes/ep_a01/chapters', '/api/v1/episodes/ep_nope/chapters', EPISODES],
      ['related episodes', '/api/v1/episodes/ep_a01/related', '/api/v1/episodes/ep_nope/related', EPISODES],
    ] as const) {
      it(`sends the store the same requests in the same order for a non-member and an unknown id: ${what}`, async function () {
        for (const headers of [outsider(), { 'x-api-key': (await store.key('u_outsider')).key }]) {
          // A key this process has not seen verify is looked up alone once (see "store round trips"): not what is compared here.
          expect((await get('/api/v1/channels', headers)).status).to.equal(200);
          // Nor its last use, written once after that first answer (off the request's path): let it land first.
          if ('x-api-key' in headers) await lastUseWritten(headers['x-api-key']);
          // Both orders, so that nothing one of them leaves behind (a hint, a cache) hides a difference.
          for (const [first, second] of [
            [nonMember, unknown],
            [unknown, nonMember],
          ] as const) {
            const a = await storeRequestsOf(first, headers, ids);
            const b = await storeRequestsOf(second, headers, ids);
            expect([a.status, b.status]).to.deep.equal([404, 404]);
            expect(a.sent.length, 'the store was asked').to.be.greaterThan(0);
            expect(a.sent, `${first} then ${second}`).to.deep.equal(b.sent);
          }
        }
      });
    }

    it('answers 403 plan_required for a free-plan channel to members, 404 to others', async function () {
      for (const path of [
        '/api/v1/channels/free-show/episodes',
        '/api/v1/channels/free-show/search?q=x',
        '/api/v1/episodes/ep_free1/transcript',
        '/api/v1/episodes/ep_free1/chapters',
        '/api/v1/episodes/ep_free1/related',
      ]) {
        const res = await get(path, member());
        expect(res.status, path).to.equal(403);
        expect(res.body.code).to.equal('plan_required');
        expect((await get(path, outsider())).status, path).to.equal(404);
      }
    });

    it('sees a plan change on the very next request', async function () {
      await store.users([{ id: 'u_owner', name: 'Owner', plan: 'free' }]);
      try {
        expect((await get('/api/v1/channels/alpha/episodes', member())).status).to.equal(403);
        const channels = await get('/api/v1/channels', member());
        expect(channels.body.channels.find((c: { slug: string }) => c.slug === 'alpha').apiAccess).to.equal(false);
      } finally {
        await store.users([{ id: 'u_owner', name: 'Owner', plan: 'paid' }]);
      }
      expect((await get('/api/v1/channels/alpha/episodes', member())).status).to.equal(200);
    });

    it('sees a membership change on the next request', async function () {
      await withAlphaChanged({ memberIds: [] }, async () => {
        expect((await get('/api/v1/channels/alpha/episodes', member())).status).to.equal(404);
        expect((await get('/api/v1/episodes/ep_a01/chapters', member())).status).to.equal(404);
      });
      expect((await get('/api/v1/channels/alpha/episodes', member())).status).to.equal(200);
    });

    it('sees a change of owner on the next request, plan included', async function () {
      expect((await get('/api/v1/channels/alpha/search?q=garden', member())).status).to.equal(200);
      await withAlphaChanged({ ownerId: 'u_free_owner' }, async () => {
        for (const path of ['/api/v1/channels/alpha/search?q=garden', '/api/v1/channels/alpha/episodes']) {
          const res = await get(path, member());
          expect(res.status, path).to.equal(403);
          expect(res.body.code).to.equal('plan_required');
        }
      });
      expect((await get('/api/v1/channels/alpha/search?q=garden', member())).status).to.equal(200);
    });

    it('lets the owner read without being listed as a member', async function () {
      const res = await get('/api/v1/channels/alpha/episodes', { authorization: `Bearer ${kit.sign({ sub: 'u_owner' })}` });
      expect(res.status).to.equal(200);
    });
  });

  describe('store round trips of a channel search', function () {
    /** What the API asked of the store while `call` ran, in order: `sent` and `answered` per request, with `_mget` documents. */
    const storeTraffic = (call: () => Promise<unknown>) => storeTrafficOf(api.client, call, { prefix: store.prefix });

    const sentAll = (traffic: Awaited<ReturnType<typeof storeTraffic>>) => traffic.filter((t) => t.event === 'sent').map((t) => t.what);
    /** One GET, with what the API asked of the store while it ran. */
    async function tracedGet(path: string, headers: Record<string, string>): Promise<{ res: ApiResponse; traffic: Awaited<ReturnType<typeof storeTraffic>> }> {
      let res: ApiResponse | undefined;
      const traffic = await storeTraffic(async () => {
        res = await get(path, headers);
      });
      return { res: res!, traffic };
    }

    /** What was sent after the first `round` answers and before the next one: the requests that shared a round trip. */
    const sentInRound = (traffic: Awaited<ReturnType<typeof storeTraffic>>, round: number) => {
      const answers = traffic.flatMap((t, i) => (t.event === 'answered' ? [i] : []));
      return traffic
        .slice(round === 0 ? 0 : answers[round - 1]! + 1, answers[round] ?? traffic.length)
        .filter((t) => t.event === 'sent')
        .map((t) => (t.docs ? `${t.what} [${[...t.docs].sort().join(',')}]` : t.what))
        .sort();
    };

    it('looks a key up alone before anything else: a made-up key costs one GET, no channel read and no search', async function () {
      const { res, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', { 'x-api-key': generateApiKey() });
      expect(res.status).to.equal(401);
      expect(sentAll(traffic)).to.deep.equal(['POST /_mget']);
      expect(traffic.find((t) => t.what === 'POST /_mget')?.docs).to.deep.equal(['api-keys']);
    });

    it('reads the channel and its owner in one round trip once the key verified, then searches, for a key not let into the channel yet', async function () {
      const { key } = await store.key('u_member');
      // Another key's search lets this process know alpha's owner (read beside the channel from then on).
      expect((await get('/api/v1/channels/alpha/search?q=garden', { 'x-api-key': memberKey })).status).to.equal(200);
      const { res, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', { 'x-api-key': key });
      expect(res.status).to.equal(200);
      expect(sentInRound(traffic, 0), 'the key alone first').to.deep.equal(['POST /_mget [api-keys]']);
      expect(sentInRound(traffic, 1), 'then the channel and its owner').to.deep.equal(['POST /_mget [users]', 'POST /channels/_search']);
      // Then the legs; the other key's search left what it showed in the hydration cache, so no second `_msearch`.
      expect(sentAll(traffic).slice(3)).to.deep.equal(['POST /_msearch']);
    });

    it('sends the legs beside the channel check for a key this process already let into the channel', async function () {
      const headers = { 'x-api-key': memberKey };
      const first = await get('/api/v1/channels/alpha/search?q=garden', headers);
      expect(first.status).to.equal(200);
      const { res: second, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', headers);
      expect(second.status).to.equal(200);
      expect(sentInRound(traffic, 0), 'the key alone first').to.deep.equal(['POST /_mget [api-keys]']);
      expect(sentInRound(traffic, 1), 'then the channel, its owner and the legs together').to.deep.equal(['POST /_mget [users]', 'POST /_msearch', 'POST /channels/_search']);
      expect(sentAll(traffic)).to.have.length(4);
      expect(second.body).to.deep.equal(first.body);
    });

    it('answers 404 for a slug its channel no longer carries, though the key was let in under it, and searches the new slug', async function () {
      const headers = { 'x-api-key': memberKey };
      expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(200);
      await withAlphaChanged({ slug: 'alpha-renamed' }, async () => {
        const { res, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', headers);
        expect(res.status).to.equal(404);
        expect(res.body.code).to.equal('channel_not_found');
        expect(sentAll(traffic)).to.include('POST /channels/_search');
        expect((await get('/api/v1/channels/alpha-renamed/search?q=garden', headers)).status).to.equal(200);
      });
      expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(200);
    });

    it('answers a revoked key 401 after its lookup alone, though it was let into the channel: no channel read, no search', async function () {
      const { key, keyId } = await store.key('u_member');
      const headers = { 'x-api-key': key };
      expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(200);
      await revokeApiKey({ client, aliases: store.aliases }, keyId);
      const { res: refused, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', headers);
      expect(refused.status).to.equal(401);
      expect(refused.body.code).to.equal('invalid_api_key');
      expect(sentAll(traffic)).to.deep.equal(['POST /_mget']);
    });

    it('answers a member removed since the last search with the 404 alone, and sends no search for them again', async function () {
      const headers = { 'x-api-key': memberKey };
      expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(200);
      await withAlphaChanged({ memberIds: [] }, async () => {
        const refused = await get('/api/v1/channels/alpha/search?q=garden', headers);
        expect(refused.status).to.equal(404);
        expect(refused.body.code).to.equal('channel_not_found');
        const again = await storeTraffic(async () => {
          expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(404);
        });
        expect(sentAll(again)).to.not.include('POST /_msearch');
      });
      expect((await get('/api/v1/channels/alpha/search?q=garden', headers)).status).to.equal(200);
    });

    it('searches again, over the channel as read now, when it changed since the key was let in', async function () {
      const headers = { 'x-api-key': memberKey };
      const before = await get('/api/v1/channels/alpha/search?q=garden', headers);
      expect(before.status).to.equal(200);
      const urls = (res: ApiResponse) => JSON.stringify(res.body.episodes).match(/https:\/\/[^/"]+/g) ?? [];
      expect(urls(before)).to.have.length.above(0);
      expect(urls(before).every((u) => u.startsWith('https://alpha.'))).to.equal(true);
      await withAlphaChanged({ customDomain: 'moved.example.org' }, async () => {
        const { res: after, traffic } = await tracedGet('/api/v1/channels/alpha/search?q=garden', headers);
        expect(after.status).to.equal(200);
        expect(urls(after)).to.have.length.above(0);
        expect(urls(after).every((u) => u === 'https://moved.example.org')).to.equal(true);
        expect(sentAll(traffic).filter((w) => w === 'POST /_msearch').length).to.be.at.least(2); // the early one, then the one shown
      });
    });
  });

  describe('ANONYMOUS_READ=published', function () {
    let anon: ApiHarness;
    before(async function () {
      anon = await startApi({ env: { INDEX_PREFIX: store.prefix, ANONYMOUS_READ: 'published', ...kit.env } });
    });
    after(async () => anon?.close());

    it('reads published episodes only, without a credential', async function () {
      const res = await anon.request('/api/v1/channels/alpha/episodes?limit=100');
      expect(res.status).to.equal(200);
      expect(res.body.episodes.length).to.be.greaterThan(0);
      expect(res.body.episodes.every((e: { status: string }) => e.status === 'published')).to.equal(true);
      const drafts = await anon.request('/api/v1/channels/alpha/episodes?status=queued');
      expect(drafts.body.episodes).to.deep.equal([]);
    });

    it('answers 404 for an unpublished or archived episode, 200 for a published one', async function () {
      expect((await anon.request('/api/v1/episodes/ep_a01/transcript')).status).to.equal(200);
      for (const id of ['ep_a02', 'ep_a04', 'ep_a07']) {
        const res = await anon.request(`/api/v1/episodes/${id}/transcript`);
        expect(res.status, id).to.equal(404);
        expect(res.body.code).to.equal('episode_not_found');
      }
    });

    it('still needs a credential for the channel list, and still refuses a bad credential', async function () {
      expect((await anon.request('/api/v1/channels')).status).to.equal(401);
      const bad = await anon.request('/api/v1/channels/alpha/episodes', { headers: { authorization: `Bearer ${kit.unsigned()}` } });
      expect(bad.status).to.equal(401);
      const badKey = await anon.request('/api/v1/channels/alpha/episodes', { headers: { 'x-api-key': 'svc_nope' } });
      expect(badKey.status).to.equal(401);
    });

    it('answers 403 on channels whose owner has no API access', async function () {
      expect((await anon.request('/api/v1/channels/free-show/episodes')).status).to.equal(403);
    });

    it('gives members with a credential the full creator view', async function () {
      const res = await anon.request('/api/v1/channels/alpha/episodes?status=queued', { headers: { 'x-api-key': memberKey } });
      expect(res.body.episodes.length).to.be.greaterThan(0);
    });
  });

  describe('a real authorization server: oidc-provider issuing RFC 9068 at+jwt tokens, verified through its JWKS URL', function () {
    let oidc: OidcServer;
    let oauthApi: ApiHarness;
    const token = (scope: string | undefined, resource = base) => oidc.token({ resource, scope });
    const bearer = async (path: string, accessToken: string) => oauthApi.request(path, { headers: { authorization: `Bearer ${accessToken}` } });

    before(async function () {
      // The client id is the token's `sub` (RFC 9068 §2.2 for client credentials): the world's member.
      oidc = await startOidcServer({ clientId: 'u_member' });
      // The audience is the API's public base URL, the `resource` of its RFC 9728 document; the issuer the one server advertised there.
      oauthApi = await startApi({ env: { INDEX_PREFIX: store.prefix, PUBLIC_BASE_URL: base, OAUTH_AUTHORIZATION_SERVERS: oidc.issuer, JWT_JWKS: oidc.jwksUri } });
    });
    after(async function () {
      await oauthApi?.close();
      await oidc?.close();
    });

    it('reads and searches with a client-credentials token for this resource with creator:read', async function () {
      const accessToken = await token('creator:read');
      const header = JSON.parse(Buffer.from(accessToken.split('.')[0]!, 'base64url').toString('utf8')) as { typ?: string };
      expect(header.typ, 'an RFC 9068 access token').to.equal('at+jwt');
      const list = await bearer('/api/v1/channels/alpha/episodes?limit=2', accessToken);
      expect(list.status, list.text.slice(0, 200)).to.equal(200);
      expect(list.body.episodes).to.have.length(2);
      const found = await bearer('/api/v1/channels/alpha/search?q=garden', accessToken);
      expect(found.status, found.text.slice(0, 200)).to.equal(200);
    });

    it('refuses a token the same server issued for another resource (audience) with 401 invalid_token', async function () {
      const res = await bearer('/api/v1/channels', await token('creator:read', 'https://other-api.test.example'));
      expect([res.status, res.body.code]).to.deep.equal([401, 'invalid_token']);
      expect(res.headers['www-authenticate']).to.equal(`${CHALLENGE(base)}, error="invalid_token"`);
    });

    it('answers a token without creator:read with 403 insufficient_scope and a challenge naming the scope to ask for', async function () {
      for (const scope of ['creator:write', undefined]) {
        const res = await bearer('/api/v1/channels/alpha/episodes', await token(scope));
        expect([res.status, res.body.code], String(scope)).to.deep.equal([403, 'insufficient_scope']);
        expect(res.headers['www-authenticate']).to.match(/^Bearer error="insufficient_scope", scope="creator:read"/);
      }
    });
  });

  describe('the audience defaults to the public base URL', function () {
    it('accepts a token for the resource advertised in the metadata document', async function () {
      const env = { INDEX_PREFIX: store.prefix, PUBLIC_BASE_URL: TEST_AUDIENCE, JWT_ISSUER: kit.env.JWT_ISSUER!, JWT_PUBLIC_KEY_FILE: kit.env.JWT_PUBLIC_KEY_FILE! };
      const other = await startApi({ env });
      try {
        expect((await other.request('/api/v1/channels', { headers: { authorization: `Bearer ${kit.sign()}` } })).status).to.equal(200);
      } finally {
        await other.close();
      }
    });
  });
});
