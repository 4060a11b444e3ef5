// The built-in authorization server (decision 30) driven over HTTP: discovery, registration, the code flow with PKCE, resources, refresh rotation, revocation, client ID metadata documents.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { useWorldStore } from '../support/api-world.js';
import { browser, consentForm, freePort, pkcePair, testConsole } from '../support/oauth-flow.js';
import { rotateKeysFile } from '../../src/oauth/rotate-keys.js';
import { createGrantStore } from '../../src/oauth/grants.js';
import { fetchBytes, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';

type Json = Record<string, unknown>;
const decode = (jwt: string, part = 1) => JSON.parse(Buffer.from(jwt.split('.')[part]!, 'base64url').toString('utf8')) as Json;

describe('the authorization server (oidc-provider on the API host)', function () {
  this.timeout(60_000);
  const world = useWorldStore();
  const consoleHost = testConsole();
  const keysDir = mkdtempSync(join(tmpdir(), 'oauth-keys-'));
  const keysFile = join(keysDir, 'keys.json');
  /** Client ID metadata documents served from memory, by URL; any other URL goes to the real safe fetcher. */
  const documents = new Map<string, Json>();
  const documentsFetched: string[] = [];
  const fetchDocument = async (url: string, options: SafeFetchOptions) => {
    documentsFetched.push(url);
    const doc = documents.get(url);
    if (!doc) return fetchBytes(url, options);
    return { url, status: 200, headers: new Headers({ 'content-type': 'application/json', 'cache-control': 'max-age=60' }), body: Buffer.from(JSON.stringify(doc)) };
  };
  let api: ApiHarness;
  let base: string;
  let env: Record<string, string>;

  before(async function () {
    rotateKeysFile(keysFile);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: base, OAUTH_SIGNING_KEYS_FILE: keysFile };
    api = await startApi({ env, port, oauth: { interactions: consoleHost, fetchDocument } });
  });
  after(async function () {
    if (api) {
      const stale = [...(await api.redis.keys(`${world.store.prefix}*`)), ...(await api.redis.keys(`rl:${world.store.prefix}*`))];
      if (stale.length) await api.redis.del(...stale);
      await api.close();
    }
    rmSync(keysDir, { recursive: true, force: true });
  });

  async function register(metadata: Json): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${base}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
    return { status: res.status, body: (await res.json()) as Json };
  }

  interface Authorize {
    clientId: string;
    redirectUri: string;
    challenge?: string | undefined;
    method?: string;
    resource?: string | undefined;
    scope?: string;
    user?: string;
  }

  /**
   * A browser through the whole authorization: the request, the console's sign-in (the test cookie), the consent
   * page and its Allow form, up to the redirect to the client. Returns the callback URL and the consent page seen.
   */
  async function authorize({ clientId, redirectUri, challenge, method = 'S256', resource, scope = 'creator:read', user = 'u_member' }: Authorize) {
    const b = browser(base);
    const state = `state-${Math.random().toString(36).slice(2)}`;
    const url = new URL(`${base}/oauth/auth`);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope,
      state,
      ...(challenge ? { code_challenge: challenge, code_challenge_method: method } : {}),
      ...(resource ? { resource } : {}),
    }).toString();
    let res = await b.request(url.href);
    const visited: string[] = [];
    let consent: string | undefined;
    let signInAsked = false;
    for (let hop = 0; hop < 20; hop++) {
      if (res.status === 200 && !consent) {
        consent = await res.text();
        const form = consentForm(consent);
        res = await b.request(form.action, { method: 'POST', body: new URLSearchParams({ csrf: form.csrf, decision: 'allow' }) });
        continue;
      }
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, state, consent, visited, signInAsked, callback: undefined };
      const next = new URL(location, base);
      visited.push(next.href);
      if (next.pathname === '/console/sign-in') {
        // The console's sign-in page: the user signs in, and is sent back to `next`.
        signInAsked = true;
        b.jar.set(consoleHost.name, consoleHost.cookieFor(user));
        res = await b.request(next.searchParams.get('next')!);
        continue;
      }
      if (next.origin !== base) return { res, state, consent, visited, signInAsked, callback: next };
      res = await b.request(next.href);
    }
    throw new Error(`no end to the redirects: ${visited.join(' → ')}`);
  }

  async function token(params: Record<string, string>): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** A registered public client, a full flow, and the tokens. */
  async function signIn({
    redirectUri = 'http://127.0.0.1:6276/oauth/callback',
    resource = base,
    scope = 'creator:read',
    user = 'u_member',
    clientId,
  }: { redirectUri?: string; resource?: string; scope?: string; user?: string; clientId?: string } = {}) {
    const id =
      clientId ??
      String(
        (
          await register({
            client_name: 'Flow client',
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
          })
        ).body.client_id,
      );
    const { verifier, challenge } = pkcePair();
    const flow = await authorize({ clientId: id, redirectUri, challenge, resource, scope, user });
    const code = flow.callback?.searchParams.get('code');
    if (!code) throw new Error(`no code: ${flow.callback?.href ?? flow.res.status}`);
    const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: id, code_verifier: verifier, resource });
    expect(tokens.status, JSON.stringify(tokens.body)).to.equal(200);
    return { clientId: id, flow, accessToken: String(tokens.body.access_token), refreshToken: String(tokens.body.refresh_token), tokens: tokens.body };
  }

  const rest = (path: string, accessToken: string) => api.request(path, { headers: { authorization: `Bearer ${accessToken}` } });

  describe('discovery', function () {
    it('serves RFC 8414 and OpenID discovery at the root, both naming the public base URL as issuer', async function () {
      const [oauth, openid] = await Promise.all(
        ['oauth-authorization-server', 'openid-configuration'].map(async (name) => (await fetch(`${base}/.well-known/${name}`)).json() as Promise<Json>),
      );
      for (const doc of [oauth!, openid!]) {
        expect(doc.issuer).to.equal(base);
        expect(doc.code_challenge_methods_supported).to.deep.equal(['S256']);
        expect(doc.authorization_response_iss_parameter_supported).to.equal(true);
        expect(doc.client_id_metadata_document_supported).to.equal(true);
        expect(doc.token_endpoint_auth_methods_supported).to.include('none');
        expect(doc.registration_endpoint).to.equal(`${base}/oauth/reg`);
        expect(doc.authorization_endpoint).to.equal(`${base}/oauth/auth`);
        expect(doc.token_endpoint).to.equal(`${base}/oauth/token`);
        expect(doc.scopes_supported).to.include('creator:read');
      }
      expect(oauth).to.deep.equal(openid);
    });

    it('names its own endpoints whatever Host or X-Forwarded-Host a client sends', async function () {
      const doc = (await (
        await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } })
      ).json()) as Json;
      expect([doc.issuer, doc.token_endpoint]).to.deep.equal([base, `${base}/oauth/token`]);
    });

    it('lets browser clients read the metadata, register and reach the token endpoint (CORS)', async function () {
      const origin = 'http://localhost:6274';
      const metadata = await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: { origin } });
      expect(metadata.headers.get('access-control-allow-origin')).to.be.oneOf([origin, '*']);
      for (const path of ['/oauth/token', '/oauth/reg']) {
        const preflight = await fetch(`${base}${path}`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        expect(preflight.status, path).to.equal(204);
        expect(preflight.headers.get('access-control-allow-origin'), path).to.be.oneOf([origin, '*']);
        expect(preflight.headers.get('access-control-allow-methods'), path).to.include('POST');
      }
      const registered = await fetch(`${base}/oauth/reg`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [`${origin}/oauth/callback`], token_endpoint_auth_method: 'none' }),
      });
      expect(registered.status).to.equal(201);
      expect(registered.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('names this server in the REST resource metadata document', async function () {
      const prm = await api.request('/.well-known/oauth-protected-resource');
      expect(prm.body.authorization_servers).to.deep.equal([base]);
    });
  });

  describe('dynamic client registration', function () {
    it('registers a VS Code-shaped client on 127.0.0.1:33418 as native, and lets it sign in on another loopback port', async function () {
      const reg = await register({
        client_name: 'Visual Studio Code',
        redirect_uris: ['http://127.0.0.1:33418/', 'http://127.0.0.1/', 'https://vscode.dev/redirect'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
      expect(reg.body.application_type).to.equal('native');
      const { flow, accessToken } = await signIn({ clientId: String(reg.body.client_id), redirectUri: 'http://127.0.0.1:59656/' });
      expect(flow.callback!.origin).to.equal('http://127.0.0.1:59656');
      expect((await rest('/api/v1/channels', accessToken)).status).to.equal(200);
    });

    it('keeps a web client to its exact redirect URIs', async function () {
      const reg = await register({ redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'none' });
      expect(reg.body.application_type).to.equal('web');
    });

    it('deletes a registered client left unused for its idle time, and starts the count again on each use', async function () {
      const reg = await register({ redirect_uris: ['http://127.0.0.1:7000/cb'], token_endpoint_auth_method: 'none' });
      const key = `${world.store.prefix}oauth:Client:${String(reg.body.client_id)}`;
      expect(await api.redis.ttl(key)).to.be.within(30 * 86_400 - 5, 30 * 86_400);
      await api.redis.expire(key, 100);
      const { challenge } = pkcePair();
      await authorize({ clientId: String(reg.body.client_id), redirectUri: 'http://127.0.0.1:7000/cb', challenge });
      expect(await api.redis.ttl(key)).to.be.within(30 * 86_400 - 5, 30 * 86_400);
    });
  });

  describe('the authorization code flow', function () {
    it('signs in through the console, shows the consent, returns code, state and iss, and exchanges the code with PKCE', async function () {
      const { flow, tokens, accessToken, refreshToken } = await signIn();
      expect(flow.signInAsked, 'the console sign-in was asked for').to.equal(true);
      expect(flow.consent).to.include('Flow client').and.include('unverified').and.include('127.0.0.1:6276').and.include('creator:read');
      expect(flow.consent, 'loopback redirect warning').to.include('a program on this computer');
      expect(flow.callback!.searchParams.get('state')).to.equal(flow.state);
      expect(flow.callback!.searchParams.get('iss')).to.equal(base);
      expect(tokens.token_type).to.equal('Bearer');
      expect(tokens.expires_in).to.equal(600);
      expect(refreshToken).to.be.a('string').and.not.equal('undefined');
      const header = decode(accessToken, 0);
      const claims = decode(accessToken);
      expect(header.alg).to.equal('ES256');
      expect(header.typ).to.equal('at+jwt');
      expect([claims.iss, claims.aud, claims.sub, claims.scope]).to.deep.equal([base, base, 'u_member', 'creator:read']);
      expect(claims.grant_id).to.be.a('string');
    });

    it('escapes what a client says of itself on the consent page', async function () {
      const redirectUri = 'http://127.0.0.1:6279/cb';
      const reg = await register({ client_name: '<script>alert(1)</script><b>Claude</b>', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' });
      const flow = await authorize({ clientId: String(reg.body.client_id), redirectUri, challenge: pkcePair().challenge });
      expect(flow.consent).to.include('&lt;script>alert(1)&lt;/script>&lt;b>Claude&lt;/b>').and.not.include('<script').and.not.include('<b>Claude');
    });

    it("is accepted by the REST API with the member's view: drafts included", async function () {
      const { accessToken } = await signIn();
      const drafts = await rest('/api/v1/channels/alpha/episodes?status=queued', accessToken);
      expect(drafts.status, drafts.text.slice(0, 200)).to.equal(200);
      expect(drafts.body.episodes.length).to.be.greaterThan(0);
      expect(drafts.body.episodes.every((e: { status: string }) => e.status !== 'published')).to.equal(true);
    });

    it('issues a token for the creator tool server when no resource is named, which REST refuses (401)', async function () {
      const { accessToken } = await signIn({ resource: `${base}/mcp` });
      expect(decode(accessToken).aud).to.equal(`${base}/mcp`);
      const res = await rest('/api/v1/channels', accessToken);
      expect([res.status, res.body.code]).to.deep.equal([401, 'invalid_token']);

      const reg = await register({ redirect_uris: ['http://127.0.0.1:6277/cb'], token_endpoint_auth_method: 'none' });
      const { verifier, challenge } = pkcePair();
      const flow = await authorize({ clientId: String(reg.body.client_id), redirectUri: 'http://127.0.0.1:6277/cb', challenge });
      const answer = await token({
        grant_type: 'authorization_code',
        code: flow.callback!.searchParams.get('code')!,
        redirect_uri: 'http://127.0.0.1:6277/cb',
        client_id: String(reg.body.client_id),
        code_verifier: verifier,
      });
      expect(decode(String(answer.body.access_token)).aud, 'the default resource').to.equal(`${base}/mcp`);
    });

    it('answers a token without creator:read with 403 and the scope challenge', async function () {
      const { accessToken } = await signIn({ scope: 'openid' });
      const res = await rest('/api/v1/channels/alpha/episodes', accessToken);
      expect([res.status, res.body.code]).to.deep.equal([403, 'insufficient_scope']);
      expect(res.headers['www-authenticate']).to.match(/^Bearer error="insufficient_scope", scope="creator:read"/);
    });
  });

  describe('refusals', function () {
    let clientId: string;
    const redirectUri = 'http://127.0.0.1:6280/cb';
    before(async function () {
      clientId = String((await register({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' })).body.client_id);
    });

    it('refuses an authorization request without PKCE, or with plain, back at the client', async function () {
      for (const request of [{ challenge: undefined }, { challenge: 'x'.repeat(43), method: 'plain' }]) {
        const flow = await authorize({ clientId, redirectUri, ...request });
        expect(flow.callback?.searchParams.get('error'), JSON.stringify(request)).to.equal('invalid_request');
        expect(flow.callback!.searchParams.get('error_description'), JSON.stringify(request)).to.match(request.challenge ? /code_challenge_method/ : /requires PKCE/);
        expect(flow.consent).to.equal(undefined);
      }
    });

    it('refuses a code exchanged without its verifier or with a wrong one', async function () {
      const { challenge } = pkcePair();
      const flow = await authorize({ clientId, redirectUri, challenge, resource: base });
      const code = flow.callback!.searchParams.get('code')!;
      const wrong = await token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: pkcePair().verifier, resource: base });
      expect([wrong.status, wrong.body.error]).to.deep.equal([400, 'invalid_grant']);
    });

    it('refuses a redirect URI that was not registered, on its own page and without redirecting there', async function () {
      const flow = await authorize({ clientId, redirectUri: 'http://127.0.0.1:6281/elsewhere', challenge: pkcePair().challenge });
      expect(flow.callback).to.equal(undefined);
      expect(flow.res.status).to.equal(400);
      expect(await flow.res.text()).to.include('redirect_uri');
    });

    it('refuses a resource of another server with invalid_target', async function () {
      const flow = await authorize({ clientId, redirectUri, challenge: pkcePair().challenge, resource: 'https://evil.example/' });
      expect(flow.callback?.searchParams.get('error')).to.equal('invalid_target');
    });

    it('refuses a consent form posted without its CSRF token (403), and gives no code', async function () {
      const b = browser(base);
      b.jar.set(consoleHost.name, consoleHost.cookieFor('u_member'));
      const url = `${base}/oauth/auth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'creator:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`;
      let res = await b.request(url);
      for (let hop = 0; hop < 6 && (res.status === 303 || res.status === 302); hop++) res = await b.request(res.headers.get('location')!);
      expect(res.status).to.equal(200);
      const { action, csrf } = consentForm(await res.text());
      const forged = await b.request(action, { method: 'POST', body: new URLSearchParams({ decision: 'allow' }) });
      expect(forged.status).to.equal(403);
      const otherUser = await b.request(action, { method: 'POST', body: new URLSearchParams({ decision: 'allow', csrf: csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }) });
      expect(otherUser.status).to.equal(403);
    });

    it('serves the consent page with a policy that allows the redirect after the form (no form-action)', async function () {
      const b = browser(base);
      b.jar.set(consoleHost.name, consoleHost.cookieFor('u_member'));
      let res = await b.request(
        `${base}/oauth/auth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'creator:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`,
      );
      while (res.status === 303 || res.status === 302) res = await b.request(res.headers.get('location')!);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'none'").and.include("frame-ancestors 'none'");
      expect(csp).not.to.include('form-action');
      expect(csp).not.to.include('unsafe-inline');
      expect(await res.text()).not.to.include('<script');
    });
  });

  describe('refresh tokens and revocation', function () {
    it('refreshes with rotation; the rotated token used again revokes the grant, and its access token is refused on the next request', async function () {
      const { clientId, accessToken, refreshToken } = await signIn();
      const first = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource: base });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.refresh_token).to.be.a('string').and.not.equal(refreshToken);
      const fresh = String(first.body.access_token);
      expect((await rest('/api/v1/channels', fresh)).status).to.equal(200);

      const reused = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource: base });
      expect([reused.status, reused.body.error]).to.deep.equal([400, 'invalid_grant']);
      for (const t of [accessToken, fresh]) expect((await rest('/api/v1/channels', t)).status).to.equal(401);
      const rotated = await token({ grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: clientId, resource: base });
      expect(rotated.status, 'the newest refresh token went with the grant').to.equal(400);
    });

    it('lists the grant for its user only, and revokeGrant refuses its tokens on the next request', async function () {
      const grants = createGrantStore({ redis: api.redis, indexPrefix: world.store.prefix });
      const { clientId, accessToken, refreshToken } = await signIn({ redirectUri: 'http://127.0.0.1:6290/cb' });
      const grantId = String(decode(accessToken).grant_id);
      const listed = (await grants.listGrants('u_member')).find((g) => g.grantId === grantId);
      expect(listed).to.include({ clientId, clientName: 'Flow client', verified: false });
      expect(listed!.redirectHosts).to.deep.equal(['127.0.0.1:6290']);
      expect(Date.parse(listed!.createdAt)).to.be.closeTo(Date.now(), 60_000);
      expect(listed!.lastUsedAt).to.be.a('string');
      expect((await grants.listGrants('u_outsider')).map((g) => g.grantId)).not.to.include(grantId);

      expect(await grants.revokeGrant('u_outsider', grantId), "another user's grant").to.equal(false);
      expect((await rest('/api/v1/channels', accessToken)).status, 'untouched').to.equal(200);

      expect(await grants.revokeGrant('u_member', grantId)).to.equal(true);
      const refused = await rest('/api/v1/channels', accessToken);
      expect([refused.status, refused.body.code]).to.deep.equal([401, 'invalid_token']);
      expect((await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource: base })).status).to.equal(400);
      expect((await grants.listGrants('u_member')).map((g) => g.grantId)).not.to.include(grantId);
    });
  });

  describe('client ID metadata documents', function () {
    it('signs in a client named by an https document (fetched through the safe fetcher stand-in), showing its host', async function () {
      const clientId = 'https://tools.example.org/oauth/client.json';
      const redirectUri = 'http://127.0.0.1:6300/callback';
      documents.set(clientId, {
        client_id: clientId,
        client_name: 'Example Tool',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      const { flow, accessToken } = await signIn({ clientId, redirectUri });
      expect(documentsFetched).to.include(clientId);
      expect(flow.consent).to.include('Example Tool').and.include('tools.example.org').and.not.include('unverified');
      expect((await rest('/api/v1/channels', accessToken)).status).to.equal(200);
      const grants = createGrantStore({ redis: api.redis, indexPrefix: world.store.prefix });
      expect((await grants.listGrants('u_member')).find((g) => g.clientId === clientId)).to.include({ clientName: 'Example Tool', verified: true });
    });

    it('refuses a document on a private address (the safe fetcher) and a redirect URI the document does not list', async function () {
      const privateId = 'https://127.0.0.1:9/client.json';
      const flow = await authorize({ clientId: privateId, redirectUri: 'http://127.0.0.1:6301/cb', challenge: pkcePair().challenge });
      expect(flow.callback).to.equal(undefined);
      expect(flow.res.status).to.equal(400);
      expect(await flow.res.text()).to.include('invalid_client');

      const clientId = 'https://tools.example.org/oauth/other.json';
      documents.set(clientId, { client_id: clientId, client_name: 'Other', redirect_uris: ['http://127.0.0.1:6302/cb'], token_endpoint_auth_method: 'none' });
      const wrong = await authorize({ clientId, redirectUri: 'http://127.0.0.1:6302/elsewhere', challenge: pkcePair().challenge });
      expect(wrong.callback).to.equal(undefined);
      expect(wrong.res.status).to.equal(400);
    });
  });

  describe('signing keys', function () {
    it('verifies a token signed by the previous key after a rotation, and signs with the new one', async function () {
      const { accessToken } = await signIn();
      const rotated = rotateKeysFile(keysFile);
      const port = await freePort();
      const next = await startApi({ env, port, oauth: { interactions: consoleHost, fetchDocument } });
      try {
        expect((await next.request('/api/v1/channels', { headers: { authorization: `Bearer ${accessToken}` } })).status, 'the old key still verifies').to.equal(200);
        const doc = (await (await fetch(`${next.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Json;
        const jwks = (await (await fetch(String(doc.jwks_uri).replace(base, next.baseUrl))).json()) as { keys: { kid: string; d?: string }[] };
        expect(jwks.keys.map((k) => k.kid)[0]).to.equal(rotated.kid);
        expect(
          jwks.keys.every((k) => k.d === undefined),
          'only public keys are published',
        ).to.equal(true);
      } finally {
        await next.close();
      }
    });

    it('is off without a keys file: its routes are absent and the API answers as before', async function () {
      const off = await startApi({ env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: base } });
      try {
        for (const path of ['/.well-known/oauth-authorization-server', '/oauth/auth', '/oauth/interaction/x']) {
          expect((await fetch(`${off.baseUrl}${path}`)).status, path).to.equal(404);
        }
        expect((await off.request('/api/v1/channels')).status).to.equal(401);
      } finally {
        await off.close();
      }
    });
  });

  describe('storage', function () {
    it('keeps every record of the authorization server in Redis under the prefix, each with a TTL', async function () {
      const keys = await api.redis.keys(`${world.store.prefix}oauth:*`);
      expect(keys.length).to.be.greaterThan(10);
      const kinds = new Set(keys.map((key) => key.slice(`${world.store.prefix}oauth:`.length).split(':')[0]));
      for (const kind of ['Client', 'Grant', 'RefreshToken', 'Session', 'grant-members', 'account-grants']) expect([...kinds], kind).to.include(kind);
      const ttls = await Promise.all(keys.map(async (key) => [key, await api.redis.ttl(key)] as const));
      expect(ttls.filter(([, ttl]) => ttl <= 0)).to.deep.equal([]);
    });
  });

  describe('registration rate limit', function () {
    it('answers 429 past the per-IP budget of registrations', async function () {
      const port = await freePort();
      const limited = await startApi({
        env: { ...env, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, INDEX_PREFIX: `${world.store.prefix}rl-`, OAUTH_REGISTRATION_RATE_LIMIT_MAX: '2' },
        port,
      });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${limited.baseUrl}/oauth/reg`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none' }),
          });
          statuses.push(res.status);
        }
        expect(statuses).to.deep.equal([201, 201, 429]);
      } finally {
        await limited.close();
      }
    });
  });
});
