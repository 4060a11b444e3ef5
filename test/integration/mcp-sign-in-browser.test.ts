// A real MCP client signs in by itself (decisions 30 and 31): the SDK's client, pointed at BASE/mcp, gets the 401,
// discovers the metadata, registers (by dynamic registration, and by a client ID metadata document), opens the
// authorization URL in headless Chromium, which signs in at the console and consents; the loopback callback receives
// code, state and iss; the client exchanges them with PKCE, lists the tools and finds a draft with `search`. Then the
// refresh token works, a reused one revokes the grant, and a grant revoked (as the console's connected apps do) is
// refused on the next call. Against the real OpenSearch and Redis; screenshots of the sign-in and consent pages.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { useWorldStore } from '../support/api-world.js';
import { freePort } from '../support/oauth-flow.js';
import { signedInAs } from '../support/console-client.js';
import { identityDeps } from '../../src/console/router.js';
import { createGrantStore } from '../../src/oauth/grants.js';
import { rotateKeysFile } from '../../src/oauth/rotate-keys.js';
import { fetchBytes, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';
import { launchBrowser, screenshot, seriousAxeViolations, type BrowserSession } from '../../scripts/lib/browser.js';

const PASSWORD = 'a long and private passphrase';
/** Where the client ID metadata document of the second client lives (served from memory through the fetch override). */
const CLIENT_DOCUMENT_URL = 'https://client.example.org/mcp-client.json';

/** What the loopback callback received. */
interface Callback {
  code: string | null;
  state: string | null;
  iss: string | null;
}

/** The client's side of a sign-in, kept in memory as a desktop MCP client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly sentState = `state-${Math.random().toString(36).slice(2)}`;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = () => this.sentState;
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

describe('an MCP client signs in by itself at BASE/mcp (SDK client, Chromium, the console)', function () {
  this.timeout(120_000);
  const world = useWorldStore();
  const keysDir = mkdtempSync(join(tmpdir(), 'mcp-sign-in-'));
  const keysFile = join(keysDir, 'keys.json');
  const documents = new Map<string, unknown>();
  let api: ApiHarness;
  let base: string;
  let browser: BrowserSession;
  let callbackServer: Server;
  let callbackUrl: string;
  const received: Callback[] = [];
  const sessions: SdkClient[] = [];

  before(async function () {
    rotateKeysFile(keysFile);
    const port = await freePort();
    base = `http://localhost:${port}`;
    const fetchDocument = async (url: string, options: SafeFetchOptions) => {
      const doc = documents.get(url);
      if (!doc) return fetchBytes(url, options);
      return { url, status: 200, headers: new Headers({ 'content-type': 'application/json', 'cache-control': 'max-age=60' }), body: Buffer.from(JSON.stringify(doc)) };
    };
    api = await startApi({
      env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: base, OAUTH_SIGNING_KEYS_FILE: keysFile, CHANNEL_BASE_DOMAIN: 'creators.example.com' },
      port,
      oauth: { fetchDocument },
    });
    callbackServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // The browser also asks for /favicon.ico: only the callback counts.
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      received.push({ code: url.searchParams.get('code'), state: url.searchParams.get('state'), iss: url.searchParams.get('iss') });
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    await signedInAs(base, identityDeps({ config: api.config, client: api.client, redis: api.redis }), 'u_member', 'creator', PASSWORD);
    browser = await launchBrowser(['localhost']);
  });

  after(async function () {
    for (const s of sessions) await s.close().catch(() => undefined);
    await browser?.close();
    await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()));
    if (api) {
      const stale = [...(await api.redis.keys(`${world.store.prefix}*`)), ...(await api.redis.keys(`*${world.store.prefix}*`))];
      if (stale.length) await api.redis.del(...new Set(stale));
      await api.close();
    }
    rmSync(keysDir, { recursive: true, force: true });
  });

  const transport = (provider: MemoryProvider) => new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });

  /** Connects with the provider's tokens; undefined when the server asked for a sign-in (the provider then holds its URL). */
  async function connect(provider: MemoryProvider): Promise<SdkClient | undefined> {
    const client = new SdkClient({ name: 'cca-sign-in-test', version: '1.0.0' });
    try {
      await client.connect(transport(provider));
    } catch (error) {
      if (error instanceof UnauthorizedError) return undefined;
      throw error;
    }
    sessions.push(client);
    return client;
  }

  /** What a person does in the browser: the authorization URL, the console's sign-in, the consent page, Allow. */
  async function signInAndConsent(provider: MemoryProvider, shots: string): Promise<{ consent: string; callback: Callback }> {
    // Each flow starts signed out, as a person's first sign-in from an app does.
    await browser.context.clearCookies();
    const page: Page = await browser.newPage();
    const before = received.length;
    await page.goto(provider.authorizationUrl!.href);
    // Fresh browser: the console asks who is signing in, then sends the user back to the authorization.
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    expect(await seriousAxeViolations(page), 'axe on the sign-in page').to.deep.equal([]);
    await screenshot(page, `${shots}-sign-in`, { fullPage: true });
    await page.fill('#userId', 'u_member');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('button:has-text("Sign in")')]);
    const consent = (await page.locator('main, body').first().innerText()).replace(/\s+/g, ' ');
    expect(await seriousAxeViolations(page), 'axe on the consent page').to.deep.equal([]);
    await screenshot(page, `${shots}-consent`, { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${shots}-consent-390`, { fullPage: true });
    // The Allow form posts, and the 302 to the client's loopback callback must not be blocked by the page's policy.
    await Promise.all([page.waitForURL(/127\.0\.0\.1:\d+\/callback/), page.click('button:has-text("Allow")')]);
    await page.close();
    expect(received.length).to.equal(before + 1);
    return { consent, callback: received.at(-1)! };
  }

  it('gets the 401 naming BASE/mcp, registers itself, signs in and consents in Chromium, and finds a draft with search', async function () {
    const challenge = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(challenge.status).to.equal(401);
    expect(challenge.headers.get('www-authenticate')).to.include(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);

    const provider = new MemoryProvider(callbackUrl);
    expect(await connect(provider), 'no token yet: the client is sent to sign in').to.equal(undefined);
    expect(provider.info?.client_id, 'registered by dynamic registration').to.be.a('string');
    const asked = provider.authorizationUrl!;
    expect(asked.origin + asked.pathname).to.equal(`${base}/oauth/auth`);
    expect(asked.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(asked.searchParams.get('resource')).to.equal(`${base}/mcp`);

    const { consent, callback } = await signInAndConsent(provider, 'mcp-sign-in-dynamic');
    expect(consent).to.include('Test MCP client');
    expect(consent, 'a self-registered client is shown unverified').to.include('unverified');
    expect(consent, 'the redirect host is shown').to.include('127.0.0.1');
    expect(callback.state).to.equal(provider.sentState);
    expect(callback.iss, 'RFC 9207: the issuer in the authorization response').to.equal(base);

    await transport(provider).finishAuth(callback.code!);
    expect(provider.saved?.refresh_token, 'a refresh token').to.be.a('string');
    const session = (await connect(provider))!;
    expect(session).to.not.equal(undefined);
    const { tools } = await session.listTools();
    expect(tools.map((t) => t.name)).to.include.members(['search', 'list_channels', 'list_episodes', 'get_transcript']);
    const found = (await session.callTool({ name: 'search', arguments: { query: 'tomatoes soil gardening', fast: true, limit: 50, channel: 'alpha' } })) as {
      structuredContent?: { episodes: { episodeId: string }[] };
    };
    // ep_a02 is pending: a draft, which only a member's view shows.
    expect(found.structuredContent!.episodes.map((e) => e.episodeId)).to.include('ep_a02');
  });

  it('refreshes (rotating the refresh token); a reused refresh token revokes the grant, refused on the next call', async function () {
    const provider = new MemoryProvider(callbackUrl);
    await connect(provider);
    const { callback } = await signInAndConsent(provider, 'mcp-sign-in-refresh');
    await transport(provider).finishAuth(callback.code!);
    const first = provider.saved!;
    const refresh = (token: string) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: provider.info!.client_id, resource: `${base}/mcp` }),
      });
    const renewed = await refresh(first.refresh_token!);
    expect(renewed.status).to.equal(200);
    const second = (await renewed.json()) as OAuthTokens;
    expect(second.refresh_token).to.be.a('string').and.not.equal(first.refresh_token);
    provider.saveTokens(second);
    const session = (await connect(provider))!;
    expect((await session.listTools()).tools.length).to.be.greaterThan(0);

    const reused = await refresh(first.refresh_token!);
    expect(reused.status).to.equal(400);
    expect(((await reused.json()) as { error: string }).error).to.equal('invalid_grant');
    const call = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${second.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status, 'the grant is revoked: its newest access token is refused too').to.equal(401);
  });

  it('signs in a client named by its client ID metadata document; revoking its grant (connected apps) is refused on the next call', async function () {
    documents.set(CLIENT_DOCUMENT_URL, {
      client_id: CLIENT_DOCUMENT_URL,
      client_name: 'Documented MCP client',
      redirect_uris: [callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new MemoryProvider(callbackUrl, CLIENT_DOCUMENT_URL);
    expect(await connect(provider)).to.equal(undefined);
    expect(provider.authorizationUrl!.searchParams.get('client_id'), 'no registration: the document URL is the client id').to.equal(CLIENT_DOCUMENT_URL);
    const { consent, callback } = await signInAndConsent(provider, 'mcp-sign-in-document');
    expect(consent).to.include('Documented MCP client');
    expect(consent).to.include('client.example.org');
    expect(consent).to.not.include('unverified');
    await transport(provider).finishAuth(callback.code!);
    const session = (await connect(provider))!;
    expect((await session.listTools()).tools.length).to.be.greaterThan(0);

    const grants = createGrantStore({ redis: api.redis, indexPrefix: api.config.indexPrefix });
    const listed = await grants.listGrants('u_member');
    const mine = listed.find((g) => g.clientId === CLIENT_DOCUMENT_URL)!;
    expect(mine).to.include({ clientName: 'Documented MCP client', verified: true });
    expect(mine.redirectHosts).to.deep.equal([new URL(callbackUrl).host]);
    expect(await grants.revokeGrant('u_outsider', mine.grantId), "another user's revoke touches nothing").to.equal(false);
    expect(await grants.revokeGrant('u_member', mine.grantId)).to.equal(true);
    const refused = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).to.equal(401);
  });
});
