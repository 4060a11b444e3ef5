// Console sign-in through an upstream OpenID Connect provider (a real oidc-provider on loopback), against the real
// OpenSearch and Redis: link on the Account page then sign in with it; identities matched on issuer and subject only;
// state, replay and nonce refused; one account per identity; unlink; the feature off; the provider out of reach.
import { createServer } from 'node:net';
import { expect } from 'chai';
import { useWorldStore } from '../support/api-world.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { ConsoleClient, csrfOf, signedInAs } from '../support/console-client.js';
import { freePort } from '../support/oauth-flow.js';
import { startOidcUpstream, type OidcUpstream } from '../support/oidc-upstream.js';
import { identityDeps } from '../../src/console/router.js';
import type { IdentityDeps } from '../../src/console/identity.js';
import { accountStore } from '../../src/console/identity.js';
import { createAccount, getAccount, listAccounts } from '../../core/store/accounts.js';

const NAME = 'Test IdP';

/** Presses "Sign in with …" on the sign-in page: the provider's authorization URL the console redirects to. */
async function startSignIn(browser: ConsoleClient, next?: string): Promise<string> {
  const page = await browser.get(`/console/sign-in${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  expect(page.text).to.include(`Sign in with ${NAME}`);
  const started = await browser.post('/console/oidc/start', { _csrf: csrfOf(page.text), ...(next ? { next } : {}) });
  expect(started.status, started.text.slice(0, 300)).to.equal(303);
  return started.location!;
}

/** Presses "Link …" on the Account page of a signed-in browser: the provider's authorization URL. */
async function startLink(browser: ConsoleClient): Promise<string> {
  const page = await browser.get('/console/account');
  expect(page.text).to.include(`Link ${NAME}`);
  const started = await browser.post('/console/account/oidc/link', { _csrf: csrfOf(page.text) });
  expect(started.status, started.text.slice(0, 300)).to.equal(303);
  return started.location!;
}

/** Opens the provider's answer in the console (the callback's path and query on the API). */
const callback = (browser: ConsoleClient, url: URL) => browser.get(`${url.pathname}${url.search}`);

describe('console sign-in through an upstream provider', function () {
  this.timeout(90_000);
  const world = useWorldStore();
  let upstream: OidcUpstream;
  let api: ApiHarness;
  let identity: IdentityDeps;
  let owner: ConsoleClient;

  before(async function () {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    upstream = await startOidcUpstream({ publicBaseUrl });
    api = await startApi({ port, env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: publicBaseUrl, CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '8', ...upstream.env(NAME) } });
    identity = identityDeps({ config: api.config, client: api.client, redis: api.redis });
    owner = await signedInAs(api.baseUrl, identity, 'u_owner', 'creator');
  });
  after(async function () {
    await api?.close();
    await upstream?.close();
  });
  // Refusals count against the client's address (127.0.0.1 for every test here): each test starts with none.
  beforeEach(async function () {
    await api.redis.del(`console:${world.store.prefix}signin:address:127.0.0.1`, `console:${world.store.prefix}signin:address:::ffff:127.0.0.1`);
  });

  it('links an identity on the Account page, then signs in with it in a new session, back to `next`', async function () {
    const linked = await callback(owner, await upstream.signIn(await startLink(owner), 'sub-owner'));
    expect(linked.status, linked.text.slice(0, 300)).to.equal(303);
    expect(linked.location).to.equal('/console/account?linked=1');
    const account = await owner.get('/console/account?linked=1');
    expect(account.text).to.include(`Linked: you can now sign in with ${NAME}`).and.include('sub-owner').and.include(upstream.issuer);
    expect(account.text, 'one identity of this provider per account').to.not.include(`Link ${NAME}`);
    expect((await getAccount(accountStore(identity), 'u_owner'))!.links).to.deep.equal([{ issuer: upstream.issuer, subject: 'sub-owner' }]);

    const browser = new ConsoleClient(api.baseUrl);
    const authorizationUrl = await startSignIn(browser, '/console/keys');
    const before = browser.cookie;
    const params = new URL(authorizationUrl).searchParams;
    expect(authorizationUrl.startsWith(`${upstream.issuer}/`)).to.equal(true);
    expect(params.get('code_challenge_method')).to.equal('S256');
    expect(params.get('scope')).to.equal('openid');
    expect(params.get('redirect_uri')).to.equal(`${api.config.publicBaseUrl}/console/oidc/callback`);
    for (const secret of ['state', 'nonce', 'code_challenge']) expect(params.get(secret), secret).to.match(/^[A-Za-z0-9_-]{40,}$/);

    const back = await callback(browser, await upstream.signIn(authorizationUrl, 'sub-owner'));
    expect(back.status, back.text.slice(0, 300)).to.equal(303);
    expect(back.location).to.equal('/console/keys');
    expect(browser.cookie, 'the session is regenerated at sign-in').to.not.equal(before);
    const keys = await browser.get('/console/keys');
    expect(keys.status).to.equal(200);
    expect(keys.text).to.include('Sign out u_owner');
    const planted = new ConsoleClient(api.baseUrl);
    planted.cookie = before;
    expect((await planted.get('/console/keys')).status, 'the cookie from before sign-in opens nothing').to.equal(303);
    // The sign-in page's forms may lead to the provider (Chromium applies form-action to the redirect after a post).
    expect(keys.headers.get('content-security-policy')).to.include(`form-action 'self' ${upstream.issuer}`);
  });

  it('refuses an identity linked to no account: no account is made and nobody is signed in', async function () {
    const accountsBefore = (await listAccounts(accountStore(identity))).map((a) => a.userId);
    const browser = new ConsoleClient(api.baseUrl);
    const refused = await callback(browser, await upstream.signIn(await startSignIn(browser), 'sub-stranger'));
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include(`No account is linked to this ${NAME} identity. Sign in with your password and link it on the Account page, or ask an admin for an invite.`);
    expect((await browser.get('/console/channels')).status, 'no session').to.equal(303);
    expect((await listAccounts(accountStore(identity))).map((a) => a.userId)).to.deep.equal(accountsBefore);
  });

  it('never matches on an e-mail: an identity with a linked one’s e-mail, or named like an account, signs in nobody', async function () {
    await createAccount(accountStore(identity), { userId: 'twin@example.com', role: 'admin' });
    upstream.setEmail('sub-owner', 'twin@example.com');
    upstream.setEmail('sub-twin', 'twin@example.com');
    for (const subject of ['sub-twin', 'twin@example.com', 'u_owner']) {
      const browser = new ConsoleClient(api.baseUrl);
      const refused = await callback(browser, await upstream.signIn(await startSignIn(browser), subject));
      expect(refused.status, subject).to.equal(403);
      expect(refused.text).to.include('No account is linked');
      expect((await browser.get('/console/channels')).status).to.equal(303);
    }
  });

  it('refuses a callback whose state does not match, one opened twice, and one opened in another session', async function () {
    const mismatched = new ConsoleClient(api.baseUrl);
    const answer = await upstream.signIn(await startSignIn(mismatched), 'sub-owner');
    const forged = new URL(answer);
    forged.searchParams.set('state', 'not-the-state-this-session-keeps');
    const refused = await callback(mismatched, forged);
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('could not be verified');
    expect((await callback(mismatched, answer)).status, 'the flow is used up by the refused callback').to.equal(400);
    expect((await mismatched.get('/console/channels')).status).to.equal(303);

    const replayed = new ConsoleClient(api.baseUrl);
    const good = await upstream.signIn(await startSignIn(replayed), 'sub-owner');
    expect((await callback(replayed, good)).status).to.equal(303);
    const again = await callback(replayed, good);
    expect(again.status).to.equal(400);
    expect(again.text).to.include('has been used already');

    const stolen = new ConsoleClient(api.baseUrl);
    const elsewhere = await upstream.signIn(await startSignIn(new ConsoleClient(api.baseUrl)), 'sub-owner');
    await stolen.get('/console/sign-in');
    const other = await callback(stolen, elsewhere);
    expect(other.status, 'a callback is only good in the session that started it').to.equal(400);
    expect((await stolen.get('/console/channels')).status).to.equal(303);
  });

  it('refuses an ID token whose nonce is not the one this session sent', async function () {
    const browser = new ConsoleClient(api.baseUrl);
    const tampered = new URL(await startSignIn(browser));
    tampered.searchParams.set('nonce', 'a-nonce-the-console-never-made-0123456789abcdef');
    const refused = await callback(browser, await upstream.signIn(tampered.href, 'sub-owner'));
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include(`The answer from ${NAME} could not be verified`);
    expect((await browser.get('/console/channels')).status).to.equal(303);
  });

  it('refuses linking an identity another account has; unlink (confirmed) frees it, and it signs in nobody meanwhile', async function () {
    const member = await signedInAs(api.baseUrl, identity, 'u_member', 'creator');
    const taken = await callback(member, await upstream.signIn(await startLink(member), 'sub-owner'));
    expect(taken.status).to.equal(409);
    expect(taken.text).to.include('already linked to another account');
    expect((await getAccount(accountStore(identity), 'u_member'))!.links).to.deep.equal([]);

    const page = await owner.get('/console/account');
    const form = { _csrf: csrfOf(page.text), issuer: upstream.issuer, subject: 'sub-owner' };
    const asked = await owner.post('/console/account/oidc/unlink', form);
    expect(asked.status).to.equal(200);
    expect(asked.text).to.include('It will no longer sign in to this account');
    expect((await getAccount(accountStore(identity), 'u_owner'))!.links, 'nothing changes before the confirmation').to.have.length(1);
    expect((await owner.post('/console/account/oidc/unlink', { issuer: upstream.issuer, subject: 'sub-owner', confirm: 'yes' })).status, 'no CSRF token').to.equal(403);
    const unlinked = await owner.post('/console/account/oidc/unlink', { ...form, confirm: 'yes' });
    expect(unlinked.status).to.equal(303);
    expect(unlinked.location).to.equal('/console/account?unlinked=1');
    expect((await getAccount(accountStore(identity), 'u_owner'))!.links).to.deep.equal([]);
    expect((await owner.post('/console/account/oidc/unlink', { ...form, confirm: 'yes' })).status, 'a link the account does not have').to.equal(404);

    const browser = new ConsoleClient(api.baseUrl);
    expect((await callback(browser, await upstream.signIn(await startSignIn(browser), 'sub-owner'))).status).to.equal(403);
    expect((await callback(member, await upstream.signIn(await startLink(member), 'sub-owner'))).status).to.equal(303);
    const asMember = new ConsoleClient(api.baseUrl);
    expect((await callback(asMember, await upstream.signIn(await startSignIn(asMember), 'sub-owner'))).status).to.equal(303);
    expect((await asMember.get('/console/account')).text).to.include('Signed in as u_member');
  });

  it('counts refused upstream sign-ins against the address, then refuses them (429)', async function () {
    let status = 0;
    for (let i = 0; i < 8; i++) {
      const browser = new ConsoleClient(api.baseUrl);
      await browser.get('/console/sign-in');
      status = (await browser.get('/console/oidc/callback?code=x&state=y')).status;
      expect(status, `attempt ${i + 1}`).to.equal(400);
    }
    const browser = new ConsoleClient(api.baseUrl);
    const refused = await browser.get('/console/oidc/callback?code=x&state=y');
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    const page = await browser.get('/console/sign-in');
    expect((await browser.post('/console/oidc/start', { _csrf: csrfOf(page.text) })).status, 'nor started').to.equal(429);
  });

  describe('switched off, or out of reach', function () {
    it('with no issuer configured the routes are 404 and no page shows a button', async function () {
      const off = await startApi({ env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' } });
      try {
        const browser = await signedInAs(off.baseUrl, identityDeps({ config: off.config, client: off.client, redis: off.redis }), 'u_outsider', 'creator');
        const account = await browser.get('/console/account');
        expect(account.text).to.include('Upstream sign-in links').and.not.include('Link ');
        expect((await browser.post('/console/account/oidc/link', { _csrf: csrfOf(account.text) })).status).to.equal(404);
        const anonymous = new ConsoleClient(off.baseUrl);
        const signIn = await anonymous.get('/console/sign-in');
        expect(signIn.text).to.not.include('Sign in with');
        expect(signIn.headers.get('content-security-policy')).to.include("form-action 'self';");
        expect((await anonymous.post('/console/oidc/start', { _csrf: csrfOf(signIn.text) })).status).to.equal(404);
        expect((await anonymous.get('/console/oidc/callback?code=x&state=y')).status).to.equal(404);
      } finally {
        await off.close();
      }
    });

    it('says in a sentence that the provider cannot be reached, never "fetch failed"', async function () {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const away = await startApi({
        env: {
          INDEX_PREFIX: world.store.prefix,
          PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
          CONSOLE_OIDC_ISSUER: `http://127.0.0.1:${port}`,
          CONSOLE_OIDC_CLIENT_ID: 'console',
          CONSOLE_OIDC_CLIENT_SECRET: 'secret',
          CONSOLE_OIDC_NAME: 'Authentik',
        },
      });
      try {
        const browser = new ConsoleClient(away.baseUrl);
        const page = await browser.get('/console/sign-in');
        expect(page.text, 'the button is there: the provider may come back').to.include('Sign in with Authentik');
        const answer = await browser.post('/console/oidc/start', { _csrf: csrfOf(page.text) });
        expect(answer.status).to.equal(503);
        expect(answer.text).to.include('Authentik cannot be reached right now, so signing in with it is not possible; try again in a moment, or sign in with your password.');
        expect(answer.text).to.not.include('fetch failed');
        expect((await browser.get('/console/sign-in')).status, 'the password sign-in still works').to.equal(200);
      } finally {
        await away.close();
      }
    });
  });
});
