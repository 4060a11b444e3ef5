// The console's pages of a channel and of an account against the real OpenSearch and Redis: episodes (counts by status,
// paging), webhooks (the secret once, a signed test event to a loopback receiver that verifies it with the reference
// `standardwebhooks` library, deliveries, removal), connected apps (a grant made through the OAuth flow, revoked and
// refused on the next API call), the tenant rules (members, other users' channels and ids) and CSRF on every POST.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { useWorldStore } from '../support/api-world.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { ConsoleClient, csrfOf, elementText, signedInAs } from '../support/console-client.js';
import { browser, consentForm, freePort, pkcePair } from '../support/oauth-flow.js';
import { testSecretsKey } from '../support/secrets-key.js';
import { identityDeps } from '../../src/console/router.js';
import type { IdentityDeps } from '../../src/console/identity.js';
import { listEndpoints } from '../../pipeline/webhooks/store.js';
import { rotateKeysFile } from '../../src/oauth/rotate-keys.js';
import { alphaEpisodes } from '../support/api-fixture.js';

/** A receiver on loopback that checks each POST's signature with the `standardwebhooks` library, as a creator's would. */
async function verifyingReceiver() {
  const state = { secret: '', verified: [] as unknown[], refused: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        state.verified.push(new Webhook(state.secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>));
        res.writeHead(200, { 'content-type': 'text/plain' }).end('verified <ok>');
      } catch {
        state.refused++;
        res.writeHead(401, { 'content-type': 'text/plain' }).end('bad signature');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('console: episodes, webhooks and connected apps', function () {
  this.timeout(90_000);
  const world = useWorldStore();
  const secrets = testSecretsKey();
  const keysDir = mkdtempSync(join(tmpdir(), 'console-oauth-keys-'));
  let api: ApiHarness;
  let base: string;
  let identity: IdentityDeps;
  let owner: ConsoleClient;
  let member: ConsoleClient;
  let outsider: ConsoleClient;
  let receiver: Awaited<ReturnType<typeof verifyingReceiver>>;

  before(async function () {
    const keysFile = join(keysDir, 'keys.json');
    rotateKeysFile(keysFile);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    api = await startApi({
      port,
      env: {
        INDEX_PREFIX: world.store.prefix,
        PUBLIC_BASE_URL: base,
        CHANNEL_BASE_DOMAIN: 'creators.example.com',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        OAUTH_SIGNING_KEYS_FILE: keysFile,
        ...secrets.env,
      },
    });
    identity = identityDeps({ config: api.config, client: api.client, redis: api.redis });
    owner = await signedInAs(base, identity, 'u_owner', 'creator');
    member = await signedInAs(base, identity, 'u_member', 'creator');
    outsider = await signedInAs(base, identity, 'u_outsider', 'creator');
    receiver = await verifyingReceiver();
  });
  after(async function () {
    await receiver?.close();
    if (api) {
      const stale = await api.redis.keys(`*${world.store.prefix}*`);
      if (stale.length) await api.redis.del(...stale);
      await api.close();
    }
    rmSync(keysDir, { recursive: true, force: true });
  });

  const endpointsOf = async (channelId: string) => listEndpoints({ client: api.client, aliases: world.store.aliases }, { channelId });

  describe('episodes', function () {
    it('counts the channel by status in one aggregation and pages its episodes newest first, drafts and failures included', async function () {
      const shown = alphaEpisodes().filter((e) => e.status !== 'archived');
      const count = (s: string) => shown.filter((e) => e.status === s).length;
      const first = await member.get('/console/episodes/alpha');
      expect(first.status).to.equal(200);
      for (const s of ['pending', 'processing', 'indexed', 'published', 'failed']) {
        expect(new RegExp(`data-count="${s}"[^]*?<strong>(\\d+)</strong>`).exec(first.text)?.[1], s).to.equal(String(count(s)));
      }
      expect(first.text, 'something waits or runs: the page follows it').to.match(/id="episodes-live"[^>]*data-live="5"/);
      const rowsOf = (html: string) => [...html.matchAll(/data-episode="([^"]+)" data-status="([^"]+)"/g)].map((m) => m[1]!);
      const page1 = rowsOf(first.text);
      expect(page1).to.have.length(25);
      expect(first.text).to.include('transcription failed');
      const next = /href="(\/console\/episodes\/alpha\?after=[^"]+)" rel="next"/.exec(first.text)?.[1];
      expect(next).to.be.a('string');
      const second = await member.get(next!.replace(/&amp;/g, '&'));
      const page2 = rowsOf(second.text);
      expect([...page1, ...page2].sort()).to.deep.equal(shown.map((e) => e.id).sort());
      expect(second.text).to.not.include('rel="next"');
      expect(first.text + second.text, 'archived episodes are shown nowhere').to.not.include('Zebra archive');

      const failed = await member.get('/console/episodes/alpha?view=failed');
      expect(rowsOf(failed.text)).to.have.length(count('failed'));
      expect((await member.get('/console/episodes/alpha?view=nope')).status).to.equal(400);
      expect((await member.get(`/console/episodes/alpha?view=failed&after=${/after=([^"&]+)/.exec(next!)![1]}`)).status, 'a cursor of another view').to.equal(400);
    });

    it("answers another user's channel as an unknown one: the same 404 page", async function () {
      const theirs = await outsider.get('/console/episodes/alpha');
      const unknown = await outsider.get('/console/episodes/no-such-channel');
      expect([theirs.status, unknown.status]).to.deep.equal([404, 404]);
      expect(theirs.text).to.equal(unknown.text);
      expect(theirs.text).to.not.include('Alpha episode');
    });
  });

  describe('webhooks', function () {
    it('adds an endpoint (the secret shown once), sends a test event the receiver verifies, lists the delivery, and removes it after a confirmation', async function () {
      const added = await owner.submit('/console/webhooks/alpha', { url: receiver.url });
      expect(added.status, added.text.slice(0, 500)).to.equal(201);
      const secret = elementText(added.text, 'new-secret')!;
      expect(secret).to.match(/^whsec_/);
      receiver.state.secret = secret;
      const [endpoint] = await endpointsOf('ch_alpha');
      expect(endpoint?.url).to.equal(receiver.url);
      expect(endpoint?.secret, 'stored sealed').to.match(/^sealed:v1:/);

      const listed = await owner.get('/console/webhooks/alpha');
      expect(listed.text, 'the secret is shown once').to.not.include(secret);
      expect(listed.text).to.include(receiver.url).and.include('never');

      const tested = await owner.post(`/console/webhooks/alpha/${endpoint!.id}/test`, { _csrf: csrfOf(listed.text) });
      expect(tested.status).to.equal(200);
      expect(tested.text).to.match(/data-test-result="ok"/);
      expect(tested.text).to.match(/answered 200 in \d+ ms/);
      expect(tested.text, "the answer's first characters, as text").to.include('verified &lt;ok>');
      expect(receiver.state.verified).to.have.length(1);
      expect(receiver.state.verified[0]).to.deep.include({ type: 'webhook.test' });
      expect((receiver.state.verified[0] as { data: { channel: string } }).data.channel).to.equal('alpha');
      expect(receiver.state.refused).to.equal(0);
      const after = await owner.get('/console/webhooks/alpha');
      expect(after.text).to.match(/data-delivery="test_[0-9a-f]+"/);

      const asked = await owner.post(`/console/webhooks/alpha/${endpoint!.id}/remove`, { _csrf: csrfOf(after.text) });
      expect(asked.status).to.equal(200);
      expect(asked.text).to.include('Remove the webhook to');
      expect(await endpointsOf('ch_alpha'), 'asking removes nothing').to.have.length(1);
      const removed = await owner.post(`/console/webhooks/alpha/${endpoint!.id}/remove`, { _csrf: csrfOf(asked.text), confirm: 'yes' });
      expect(removed.status).to.equal(303);
      expect(removed.location).to.equal(`/console/webhooks/alpha?removed=${endpoint!.id}`);
      expect(await endpointsOf('ch_alpha')).to.deep.equal([]);
    });

    it('refuses an endpoint URL that is not usable, with its sentence', async function () {
      const refused = await owner.submit('/console/webhooks/alpha', { url: 'ftp://example.org/hook' });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('cannot receive webhooks');
      expect(await endpointsOf('ch_alpha')).to.deep.equal([]);
    });

    it('refuses a member who is not the owner (403), and answers another user as for an unknown channel (404)', async function () {
      const page = await member.get('/console/webhooks/alpha');
      expect(page.status).to.equal(403);
      expect(page.text).to.match(/Only the channel(&#39;|')s owner manages its webhooks; you are a member of alpha\./);
      const added = await member.submit('/console/channels', { url: receiver.url }, { action: '/console/webhooks/alpha' });
      expect(added.status).to.equal(403);
      const theirs = await outsider.get('/console/webhooks/alpha');
      const unknown = await outsider.get('/console/webhooks/no-such-channel');
      expect([theirs.status, unknown.status]).to.deep.equal([404, 404]);
      expect(theirs.text).to.equal(unknown.text);
      expect(await endpointsOf('ch_alpha')).to.deep.equal([]);
    });

    it('answers an endpoint id of another channel like an unknown one, and leaves it alone', async function () {
      const added = await owner.submit('/console/webhooks/alpha', { url: receiver.url });
      const [endpoint] = await endpointsOf('ch_alpha');
      const form = { _csrf: csrfOf(added.text), confirm: 'yes' };
      const elsewhere = await owner.post(`/console/webhooks/custom/${endpoint!.id}/remove`, form);
      const unknown = await owner.post('/console/webhooks/custom/wh_0000000000000000/remove', form);
      expect([elsewhere.status, unknown.status]).to.deep.equal([404, 404]);
      expect(elsewhere.text).to.equal(unknown.text);
      expect((await owner.post(`/console/webhooks/custom/${endpoint!.id}/test`, form)).status).to.equal(404);
      expect(await endpointsOf('ch_alpha')).to.have.length(1);
      await owner.post(`/console/webhooks/alpha/${endpoint!.id}/remove`, form);
      expect(await endpointsOf('ch_alpha')).to.deep.equal([]);
    });

    it('without SECRETS_KEY in the API process, says webhooks need it and adds nothing', async function () {
      const bare = await startApi({
        env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: 'http://127.0.0.1:8080', CHANNEL_BASE_DOMAIN: 'creators.example.com', SECRETS_KEY: undefined },
      });
      try {
        const client = new ConsoleClient(bare.baseUrl);
        expect((await client.signIn('u_owner', 'correct horse battery')).status).to.equal(303);
        const page = await client.get('/console/webhooks/alpha');
        expect(page.status).to.equal(200);
        expect(page.text).to.include('Webhooks need SECRETS_KEY in the API process');
        expect(page.text).to.not.include('Add webhook');
        const refused = await client.post('/console/webhooks/alpha', { _csrf: csrfOf(page.text), url: receiver.url });
        expect(refused.status).to.equal(503);
        expect(await endpointsOf('ch_alpha')).to.deep.equal([]);
      } finally {
        await bare.close();
      }
    });
  });

  describe('follow a feed', function () {
    it('tells a user on the free plan why not, and refuses the form', async function () {
      const free = await signedInAs(base, identity, 'u_free_owner', 'creator');
      const page = await free.get('/console/follow');
      expect(page.text).to.match(/data-refusal[^>]*>Following a feed needs the paid plan, and u_free_owner is on the &quot;free&quot; plan/);
      const refused = await free.post('/console/follow', { _csrf: csrfOf(page.text), feed: 'https://feeds.example.org/a.xml', slug: 'free-show-2' });
      expect(refused.status).to.equal(403);
    });

    it('says in one sentence why a feed cannot be previewed', async function () {
      const notFound = await owner.submit('/console/follow', { feed: `${base}/no-feed-here.xml`, slug: 'new-show' });
      expect(notFound.status).to.equal(400);
      expect(notFound.text).to.match(/data-problem[^>]*>The feed answered 404\./);
      const notFeed = await owner.submit('/console/follow', { feed: `${base}/console/sign-in`, slug: 'new-show' });
      expect(notFeed.text).to.include('That address answered, but not with an RSS feed.');
      const closed = await owner.submit('/console/follow', { feed: 'http://127.0.0.1:9/feed.xml', slug: 'new-show' });
      expect(closed.text).to.include('The feed could not be reached.');
      const bad = await owner.submit('/console/follow', { feed: 'feed.xml', slug: 'new-show' });
      expect(bad.text).to.include('Give the feed’s address');
    });
  });

  describe('connected apps', function () {
    it('lists a grant made through the OAuth flow, and once revoked its token is refused on the next API call', async function () {
      const redirectUri = 'http://127.0.0.1:6276/oauth/callback';
      const reg = await fetch(`${base}/oauth/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Console test client',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        }),
      });
      const clientId = String(((await reg.json()) as { client_id: string }).client_id);
      // The member's browser: its console session, then the authorization's own cookies.
      const b = browser(base);
      const cookie = member.cookie!;
      b.jar.set(cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1));
      const { verifier, challenge } = pkcePair();
      const auth = new URL(`${base}/oauth/auth`);
      auth.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'creator:read',
        state: 's1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: base,
      }).toString();
      let res = await b.request(auth.href);
      let code: string | null = null;
      for (let hop = 0; hop < 10 && !code; hop++) {
        if (res.status === 200) {
          const form = consentForm(await res.text());
          res = await b.request(form.action, { method: 'POST', body: new URLSearchParams({ csrf: form.csrf, decision: 'allow' }) });
          continue;
        }
        const next = new URL(res.headers.get('location')!, base);
        if (next.origin !== base) code = next.searchParams.get('code');
        else res = await b.request(next.href);
      }
      expect(code, 'the flow ended at the client with a code').to.be.a('string');
      const tokens = (await (
        await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: base }),
        })
      ).json()) as { access_token: string };
      const call = () => api.request('/api/v1/channels', { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect((await call()).status).to.equal(200);

      const apps = await member.get('/console/apps');
      const row = /<tr data-grant="([^"]+)">([^]*?)<\/tr>/.exec(apps.text);
      expect(row, apps.text.slice(0, 600)).to.not.equal(null);
      expect(row![2]).to.include('Console test client').and.include('unverified').and.include('<code>127.0.0.1:6276</code>');
      expect((await owner.get('/console/apps')).text, 'another user does not see it').to.not.include('Console test client');
      const grantId = row![1]!;
      const ownersPage = await owner.get('/console/apps');
      expect((await owner.post(`/console/apps/${grantId}/revoke`, { _csrf: csrfOf(ownersPage.text), confirm: 'yes' })).status, "another user's grant is unknown").to.equal(404);
      expect((await call()).status).to.equal(200);

      const asked = await member.post(`/console/apps/${grantId}/revoke`, { _csrf: csrfOf(apps.text) });
      expect(asked.text).to.include('Revoke the access of &quot;Console test client&quot;');
      const revoked = await member.post(`/console/apps/${grantId}/revoke`, { _csrf: csrfOf(asked.text), confirm: 'yes' });
      expect(revoked.status).to.equal(303);
      expect((await call()).status, 'refused on the next request').to.equal(401);
      expect((await member.get('/console/apps')).text).to.not.include('Console test client');
    });
  });

  describe('requests from elsewhere', function () {
    it('refuses every POST of these pages without its CSRF token (403), and changes nothing', async function () {
      const added = await owner.submit('/console/webhooks/alpha', { url: receiver.url });
      expect(added.status).to.equal(201);
      const [endpoint] = await endpointsOf('ch_alpha');
      const sent = receiver.state.verified.length + receiver.state.refused;
      for (const [path, form] of [
        ['/console/follow', { feed: 'https://feeds.example.org/a.xml', slug: 'show' }],
        ['/console/follow/check', { feed: 'https://feeds.example.org/a.xml' }],
        ['/console/webhooks/alpha', { url: receiver.url }],
        [`/console/webhooks/alpha/${endpoint!.id}/test`, {}],
        [`/console/webhooks/alpha/${endpoint!.id}/remove`, { confirm: 'yes' }],
        ['/console/apps/some-grant/revoke', { confirm: 'yes' }],
      ] as const) {
        const refused = await owner.post(path, form);
        expect(refused.status, path).to.equal(403);
        expect(refused.text, path).to.include('This form has expired or did not come from this site');
      }
      expect(receiver.state.verified.length + receiver.state.refused, 'no test event was sent').to.equal(sent);
      expect(await endpointsOf('ch_alpha')).to.have.length(1);
    });
  });
});
