// The creator console against the real OpenSearch and Redis: one-time links, sessions, CSRF, the sign-in throttle, the
// API host only, roles, and API keys made in the console working (and refused) on /api/v1.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { useApiWorld } from '../support/api-world.js';
import { rawRequest } from '../support/api-harness.js';
import { ConsoleClient, csrfOf, elementText, linkPath, signedInAs } from '../support/console-client.js';
import { identityDeps } from '../../src/console/router.js';
import { createLink, linkUrl } from '../../src/console/links.js';
import { inviteAccount, type IdentityDeps } from '../../src/console/identity.js';
import { createApiKey, listApiKeys } from '../../src/auth/key-store.js';
import { generateApiKey, generateKeyId, hashApiKey } from '../../src/auth/api-keys.js';
import { REPO_ROOT } from '../support/indexer-env.js';

const PASSWORD = 'correct horse battery';

/** Runs a command line of bin/ against the suite's prefix. */
function cli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (run.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (run.stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...run }));
  });
}

describe('creator console', function () {
  this.timeout(90_000);
  const world = useApiWorld({
    env: {
      CHANNEL_BASE_DOMAIN: 'creators.example.com',
      PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      CONSOLE_SIGNIN_FREE_FAILURES: '2',
      CONSOLE_SIGNIN_MAX_FAILURES: '5',
      CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
    },
  });
  let identity: IdentityDeps;
  let owner: ConsoleClient;

  before(async function () {
    identity = identityDeps({ config: world.api.config, client: world.api.client, redis: world.api.redis });
    owner = await signedInAs(world.api.baseUrl, identity, 'u_owner', 'creator');
  });

  describe('one-time links', function () {
    it('sets the password once: opening the link leaves it usable, the second use is refused (410)', async function () {
      const { url } = await inviteAccount(identity, { userId: 'u_member', role: 'creator' });
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:8080\/console\/link\/[A-Za-z0-9_-]{43}$/);
      const browser = new ConsoleClient(world.api.baseUrl);
      expect((await browser.get(linkPath(url))).status).to.equal(200);
      const form = await browser.get(linkPath(url));
      expect(form.status, 'a second GET (a link scanner, then the person) still shows the form').to.equal(200);
      const set = await browser.post(linkPath(url), { _csrf: csrfOf(form.text), password: PASSWORD, confirmation: PASSWORD });
      expect(set.status).to.equal(303);
      expect(set.location).to.equal('/console/channels');
      expect((await browser.get('/console/channels')).text).to.include('Alpha');

      const again = new ConsoleClient(world.api.baseUrl);
      expect((await again.get(linkPath(url))).status).to.equal(410);
      const signIn = await again.get('/console/sign-in');
      const reused = await again.post(linkPath(url), { _csrf: csrfOf(signIn.text), password: 'another password 1', confirmation: 'another password 1' });
      expect(reused.status).to.equal(410);
      // The password the first use set is the one that signs in.
      expect((await new ConsoleClient(world.api.baseUrl).signIn('u_member', PASSWORD)).status).to.equal(303);
      expect((await new ConsoleClient(world.api.baseUrl).signIn('u_member', 'another password 1')).status).to.equal(401);
    });

    it('a refused password leaves the link usable; a link past its TTL is gone', async function () {
      const { url } = await inviteAccount(identity, { userId: 'u_outsider', role: 'creator' });
      const browser = new ConsoleClient(world.api.baseUrl);
      const short = await browser.submit(linkPath(url), { password: 'short', confirmation: 'short' });
      expect(short.status).to.equal(400);
      expect(short.text).to.include('at least 12 characters');
      expect((await browser.get(linkPath(url))).status).to.equal(200);

      const token = await createLink({ ...identity.links, ttlSeconds: 1 }, { userId: 'u_outsider', purpose: 'reset' });
      expect((await browser.get(linkPath(linkUrl(identity.publicBaseUrl, token)))).status).to.equal(200);
      await sleep(2100);
      expect((await browser.get(linkPath(linkUrl(identity.publicBaseUrl, token)))).status).to.equal(410);
    });
  });

  describe('sessions and sign-in', function () {
    it('sign-in starts a new session: the cookie from before it opens nothing afterwards', async function () {
      const browser = new ConsoleClient(world.api.baseUrl);
      const page = await browser.get('/console/sign-in');
      const before = browser.cookie;
      expect(before, 'the sign-in page made a session for its CSRF token').to.match(/^__Host-cca_session=/);
      const setCookie = page.headers.getSetCookie().join('\n');
      expect(setCookie)
        .to.match(/HttpOnly/)
        .and.match(/Secure/)
        .and.match(/SameSite=Lax/)
        .and.match(/Path=\//);
      const signedIn = await browser.post('/console/sign-in', { _csrf: csrfOf(page.text), userId: 'u_owner', password: PASSWORD });
      expect(signedIn.status).to.equal(303);
      expect(browser.cookie).to.not.equal(before);
      expect((await browser.get('/console/keys')).status).to.equal(200);

      const planted = new ConsoleClient(world.api.baseUrl);
      planted.cookie = before;
      const refused = await planted.get('/console/keys');
      expect(refused.status).to.equal(303);
      expect(refused.location).to.equal('/console/sign-in?next=%2Fconsole%2Fkeys');
    });

    it('sign-out destroys the session', async function () {
      const browser = await new ConsoleClient(world.api.baseUrl);
      await browser.signIn('u_owner', PASSWORD);
      const cookie = browser.cookie;
      const out = await browser.submit('/console/keys', {}, { action: '/console/sign-out' });
      expect(out.status).to.equal(303);
      const replayed = new ConsoleClient(world.api.baseUrl);
      replayed.cookie = cookie;
      expect((await replayed.get('/console/keys')).status).to.equal(303);
    });

    it('follows `next` on this origin only', async function () {
      const browser = new ConsoleClient(world.api.baseUrl);
      const page = await browser.get('/console/sign-in?next=%2Foauth%2Fauth%2Fabc%3Fx%3D1');
      expect(page.text).to.include('value="/oauth/auth/abc?x=1"');
      const back = await browser.post('/console/sign-in', { _csrf: csrfOf(page.text), userId: 'u_owner', password: PASSWORD, next: '/oauth/auth/abc?x=1' });
      expect(back.location).to.equal('/oauth/auth/abc?x=1');
      for (const foreign of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
        const other = new ConsoleClient(world.api.baseUrl);
        const shown = await other.get('/console/sign-in');
        const answer = await other.post('/console/sign-in', { _csrf: csrfOf(shown.text), userId: 'u_owner', password: PASSWORD, next: foreign });
        expect(answer.location, foreign).to.equal('/console/channels');
      }
    });

    it('slows repeated wrong passwords, then refuses them (429 with Retry-After); a success clears the count', async function () {
      await inviteAccount(identity, { userId: 'u_free_member', role: 'creator' }).then(({ url }) =>
        new ConsoleClient(world.api.baseUrl).submit(linkPath(url), { password: PASSWORD, confirmation: PASSWORD }),
      );
      const browser = new ConsoleClient(world.api.baseUrl);
      const times: number[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const page = await browser.get('/console/sign-in');
        const started = Date.now();
        const answer = await browser.post('/console/sign-in', { _csrf: csrfOf(page.text), userId: 'u_free_member', password: `wrong password ${i}` });
        times.push(Date.now() - started);
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(Number(answer.headers.get('retry-after'))).to.be.within(1, 900);
          expect(answer.text).to.include('Too many failed sign-ins');
        }
      }
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429]);
      // Two free failures, then 250 and 500 ms of waiting before the password is even checked.
      expect(times[3]! - times[1]!, `times ${times.join(', ')}`).to.be.above(200);
      expect(times[4]! - times[1]!, `times ${times.join(', ')}`).to.be.above(450);
      // Refused even with the right password while the account is over its budget.
      expect((await browser.signIn('u_free_member', PASSWORD)).status).to.equal(429);

      await world.api.redis.del(`console:${world.store.prefix}signin:account:u_free_member`);
      await browser.signIn('u_free_member', 'wrong once');
      expect((await browser.signIn('u_free_member', PASSWORD)).status).to.equal(303);
      expect(await world.api.redis.exists(`console:${world.store.prefix}signin:account:u_free_member`), 'a success clears the count').to.equal(0);
    });
  });

  describe('requests from elsewhere', function () {
    it('refuses a form posted without its CSRF token (403), or from a foreign Origin or site, and does nothing', async function () {
      const before = (await listApiKeys({ client: world.api.client, aliases: world.store.aliases }, 'u_owner')).length;
      const noToken = await owner.post('/console/keys', { name: 'forged', expires: '90' });
      expect(noToken.status).to.equal(403);
      expect(noToken.text).to.include('did not come from this site');
      const token = csrfOf((await owner.get('/console/keys')).text);
      const wrongToken = await owner.post('/console/keys', { _csrf: `${token.slice(0, -2)}xx`, name: 'forged', expires: '90' });
      expect(wrongToken.status).to.equal(403);
      const foreign = await owner.post('/console/keys', { _csrf: token, name: 'forged', expires: '90' }, { origin: 'https://evil.example' });
      expect(foreign.status).to.equal(403);
      const crossSite = await owner.post('/console/keys', { _csrf: token, name: 'forged', expires: '90' }, { 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).to.equal(403);
      expect((await listApiKeys({ client: world.api.client, aliases: world.store.aliases }, 'u_owner')).length).to.equal(before);
    });

    it('serves console pages with the strict content policy, never cached, never framed', async function () {
      const page = await owner.get('/console/keys');
      expect(page.headers.get('content-security-policy')).to.equal(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.get('referrer-policy')).to.equal('same-origin');
      expect(page.text).to.not.match(/<script(?![^>]*\bsrc=)/);
      expect(page.text).to.not.match(/\sstyle=/);
    });

    it('is not served on a channel host', async function () {
      const port = new URL(world.api.baseUrl).port;
      for (const host of [`alpha.creators.example.com:${port}`, `show.example.org:${port}`]) {
        const answer = await rawRequest(world.api.baseUrl, '/console/sign-in', { headers: { host } });
        expect(answer.status, host).to.equal(404);
        expect(answer.headers['set-cookie'], host).to.equal(undefined);
        expect(answer.body?.code).to.equal('route_not_found');
      }
    });
  });

  describe('roles', function () {
    it('the admin page is a 404 to a creator; an admin sees every account and invites', async function () {
      expect((await owner.get('/console/admin')).status).to.equal(404);
      expect((await owner.get('/console/channels')).text).to.not.include('href="/console/admin"');
      const admin = await signedInAs(world.api.baseUrl, identity, 'ops-admin', 'admin');
      const page = await admin.get('/console/admin');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('data-account="u_owner"').and.include('data-account="ops-admin"');
      const refused = await admin.submit('/console/admin', { userId: 'u_nobody', role: 'creator' }, { action: '/console/admin/invite' });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('no user &quot;u_nobody&quot; in the library');
      const invited = await admin.submit('/console/admin', { userId: 'u_free_owner', role: 'creator' }, { action: '/console/admin/invite' });
      expect(invited.status).to.equal(201);
      const url = elementText(invited.text, 'one-time-link')!;
      const free = new ConsoleClient(world.api.baseUrl);
      expect((await free.submit(linkPath(url), { password: PASSWORD, confirmation: PASSWORD })).status).to.equal(303);
    });
  });

  describe('API keys', function () {
    it('a key made in the console works on /api/v1 (x-api-key and Bearer), is listed masked, and once revoked the next request is 401', async function () {
      const made = await owner.submit('/console/keys', { name: 'newsletter', expires: '30' });
      expect(made.status).to.equal(201);
      const key = elementText(made.text, 'new-key')!;
      expect(key).to.match(/^svc_[0-9A-Za-z]{38}$/);
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status).to.equal(200);
      expect((await world.api.request('/api/v1/channels', { headers: { authorization: `Bearer ${key}` } })).status).to.equal(200);

      const list = await owner.get('/console/keys');
      expect(list.text, 'never shown again').to.not.include(key);
      expect(list.text).to.include(`svc_…${key.slice(-4)}`);
      const [record] = (await listApiKeys({ client: world.api.client, aliases: world.store.aliases }, 'u_owner')).filter((r) => r.name === 'newsletter');
      expect(Date.parse(record!.expiresAt!) - Date.parse(record!.createdAt)).to.equal(30 * 86_400_000);

      const action = `/console/keys/${record!.keyId}/revoke`;
      const confirm = await owner.post(action, { _csrf: csrfOf(list.text) });
      expect(confirm.status, 'without the script, a page asks first').to.equal(200);
      expect(confirm.text).to.include('This cannot be undone');
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status, 'not revoked by the question').to.equal(200);
      const revoked = await owner.post(action, { _csrf: csrfOf(confirm.text), confirm: 'yes' });
      expect(revoked.status).to.equal(303);
      const next = await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } });
      expect(next.status).to.equal(401);
      expect(next.body.code).to.equal('invalid_api_key');
    });

    it("refuses to revoke another user's key (404)", async function () {
      const other = await createApiKey({ client: world.api.client, aliases: world.store.aliases }, { userId: 'u_member', name: 'theirs' });
      const page = await owner.get('/console/keys');
      const answer = await owner.post(`/console/keys/${other.record.keyId}/revoke`, { _csrf: csrfOf(page.text), confirm: 'yes' });
      expect(answer.status).to.equal(404);
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': other.key } })).status).to.equal(200);
    });

    it('refuses an expired key as a revoked one; a record from before expiry existed keeps working', async function () {
      const deps = { client: world.api.client, aliases: world.store.aliases };
      const expired = await createApiKey(deps, { userId: 'u_owner', name: 'old', expiresInDays: 30, now: new Date(Date.now() - 31 * 86_400_000) });
      const answer = await world.api.request('/api/v1/channels', { headers: { 'x-api-key': expired.key } });
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal('invalid_api_key');

      const legacy = generateApiKey();
      const doc = {
        keyId: generateKeyId(),
        userId: 'u_owner',
        name: null,
        hash: hashApiKey(legacy),
        last4: legacy.slice(-4),
        createdAt: '2025-01-01T00:00:00.000Z',
        revokedAt: null,
      };
      await world.api.client.index({ index: world.store.aliases['api-keys'], id: doc.hash, body: doc, refresh: 'wait_for' } as never);
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': legacy } })).status).to.equal(200);
      expect((await owner.get('/console/keys')).text).to.include(`svc_…${legacy.slice(-4)}`);
    });

    it('writes last used once for many calls within five minutes, after the responses', async function () {
      const deps = { client: world.api.client, aliases: world.store.aliases };
      const { key, record } = await createApiKey(deps, { userId: 'u_owner', name: 'busy', expiresInDays: 90 });
      const read = async () =>
        (await world.api.client.get({ index: world.store.aliases['api-keys'], id: record.hash })).body as { _version: number; _source: { lastUsedAt: string | null } };
      expect((await read())._version).to.equal(1);
      const calls = await Promise.all(Array.from({ length: 20 }, () => world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })));
      expect(calls.map((c) => c.status)).to.deep.equal(Array(20).fill(200));
      let stored = await read();
      for (let i = 0; i < 50 && !stored._source.lastUsedAt; i++) stored = (await sleep(100), await read());
      expect(stored._source.lastUsedAt).to.be.a('string');
      for (let i = 0; i < 10; i++) await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } });
      await sleep(500);
      expect((await read())._version, 'one update for 30 calls').to.equal(2);
      const ttl = await world.api.redis.ttl(`keyused:${world.store.prefix}${record.hash}`);
      expect(ttl).to.be.within(290, 300);
      expect((await owner.get('/console/keys')).text).to.include(`${stored._source.lastUsedAt!.slice(0, 16).replace('T', ' ')} UTC`);
    });

    it("a free-plan user's keys page says why not, and creating one is refused", async function () {
      const free = new ConsoleClient(world.api.baseUrl);
      expect((await free.signIn('u_free_owner', PASSWORD)).status).to.equal(303);
      const page = await free.get('/console/keys');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('data-refusal').and.include('API keys need the paid plan').and.include('403 plan_required');
      expect(page.text).to.not.include('Create key');
      const channels = await free.get('/console/channels');
      expect(channels.text).to.include('free-show').and.include('answer 403 plan_required');
      const refused = await free.submit('/console/channels', { name: 'sneaky', expires: '90' }, { action: '/console/keys' });
      expect(refused.status).to.equal(403);
      expect(await listApiKeys({ client: world.api.client, aliases: world.store.aliases }, 'u_free_owner')).to.deep.equal([]);
    });
  });

  describe('command lines', function () {
    it('`npm run users` makes the first admin with a link that works, lists accounts, and refuses a second account', async function () {
      const env = { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
      const created = await cli('bin/users.ts', ['create', 'root-admin', '--admin'], env);
      expect(created.code, created.stderr).to.equal(0);
      const url = created.stdout.trim().split('\n').at(-1)!;
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:8080\/console\/link\//);
      const browser = new ConsoleClient(world.api.baseUrl);
      expect((await browser.submit(linkPath(url), { password: PASSWORD, confirmation: PASSWORD })).status).to.equal(303);
      expect((await browser.get('/console/admin')).status).to.equal(200);

      const again = await cli('bin/users.ts', ['create', 'root-admin', '--admin'], env);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.include('already has an account');
      const reset = await cli('bin/users.ts', ['reset-link', 'root-admin'], env);
      expect(reset.code, reset.stderr).to.equal(0);
      expect((await browser.get(linkPath(reset.stdout.trim().split('\n').at(-1)!))).status).to.equal(200);
      const list = await cli('bin/users.ts', ['list'], env);
      expect(list.stdout).to.match(/^root-admin\tadmin\tpassword set/m);
      const unreachable = await cli('bin/users.ts', ['invite', 'u_member'], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
      expect(unreachable.code).to.equal(1);
      expect(unreachable.stderr).to.include('could not reach Redis at redis://127.0.0.1:1');
    });

    it('`npm run keys` still creates, lists and revokes, now with --expires', async function () {
      const env = { INDEX_PREFIX: world.store.prefix };
      const made = await cli('bin/keys.ts', ['create', '--user', 'u_member', '--name', 'cli', '--expires', '30'], env);
      expect(made.code, made.stderr).to.equal(0);
      const key = made.stdout.trim().split('\n').at(-1)!;
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status).to.equal(200);
      const list = await cli('bin/keys.ts', ['list', '--user', 'u_member'], env);
      const line = list.stdout.split('\n').find((l) => l.includes('\tcli\t'))!;
      expect(line)
        .to.match(/expires 20\d\d-/)
        .and.match(/\tactive$/);
      const keyId = line.split('\t')[0]!;
      expect((await cli('bin/keys.ts', ['revoke', keyId], env)).code).to.equal(0);
      expect((await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status).to.equal(401);
      const bad = await cli('bin/keys.ts', ['create', '--user', 'u_member', '--expires', '7'], env);
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.include('expected 30, 90, 365, never');
    });
  });
});
