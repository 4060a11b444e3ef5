// The console's follow, episodes and webhooks pages in headless Chromium, with the real worker: follow a demo-like
// feed (the token copied into the feed, the state followed by the progressive script) until its episodes show (a
// broken enclosure failed with its sentence), then add a webhook to a loopback receiver that verifies it with the
// reference `standardwebhooks` library and send the test event; at desktop width and 390 px, screenshots and axe-core
// finding no serious or critical violation.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { openFollowStore, startSuiteWorkers, type FollowStore } from '../support/follow-env.js';
import { testSecretsKey } from '../support/secrets-key.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { identityDeps } from '../../src/console/router.js';
import { inviteAccount } from '../../src/console/identity.js';
import { launchBrowser, type BrowserSession } from '../../scripts/lib/browser.js';
import { checked, checkedNarrow } from '../support/console-browser.js';

const PASSWORD = 'a long and private passphrase';
const srt = (text: string) => `1\n00:00:00,000 --> 00:00:03,000\n${text}\n`;

describe('creator console in a browser: follow, episodes, webhooks', function () {
  this.timeout(180_000);
  let store: FollowStore;
  let workers: PipelineWorkers;
  let api: ApiHarness;
  let browser: BrowserSession;
  let feed: FeedServer;
  let origin: string;
  let hooks: Server;
  const received = { secret: '', verified: 0, refused: 0 };

  before(async function () {
    store = await openFollowStore('console-browser-follow', { owners: ['u_demo'] });
    workers = await startSuiteWorkers({ client: store.client, prefix: store.prefix, env: store.env, embeddings: store.embeddings });
    api = await startApi({ env: { ...store.env, ...testSecretsKey().env, PUBLIC_BASE_URL: 'http://localhost:8080', CHANNEL_BASE_DOMAIN: 'creators.example.com' } });
    origin = `http://localhost:${new URL(api.baseUrl).port}`;
    feed = await startFeedServer({
      title: 'Demo radio',
      items: [
        { guid: 'welcome', title: 'Welcome to the show', pubDate: new Date('2026-11-03T00:00:00Z'), transcript: { path: '/srt/welcome.srt', type: 'application/srt' } },
        { guid: 'garden', title: 'In the garden', pubDate: new Date('2026-11-02T00:00:00Z'), transcript: { path: '/srt/garden.srt', type: 'application/srt' } },
        { guid: 'lost', title: 'The lost recording', pubDate: new Date('2026-11-01T00:00:00Z'), enclosure: '/audio/lost.mp3' },
      ],
    });
    feed.setFile('/srt/welcome.srt', srt('Welcome, everyone.'), 'application/srt');
    feed.setFile('/srt/garden.srt', srt('The tomatoes are in.'), 'application/srt');
    hooks = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          new Webhook(received.secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          received.verified++;
          res.writeHead(200, { 'content-type': 'text/plain' }).end('signature verified');
        } catch {
          received.refused++;
          res.writeHead(401).end('bad signature');
        }
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    browser = await launchBrowser(['localhost']);
  });

  after(async function () {
    await browser?.close();
    await new Promise<void>((resolve) => (hooks ? hooks.close(() => resolve()) : resolve()));
    await workers?.close();
    if (api) {
      await api.redis.del(...(await api.redis.keys(`*${store.prefix}*`)), 'none');
      await api.close();
    }
    await feed?.close();
    await store?.drop();
  });

  it('follows a feed until its episodes show, adds a webhook and sends it a test event, at desktop width and 390 px', async function () {
    const identity = identityDeps({ config: api.config, client: api.client, redis: api.redis });
    const { url } = await inviteAccount(identity, { userId: 'u_demo', role: 'creator' });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });

    await page.goto(`${origin}${new URL(url).pathname}`);
    await page.fill('#password', PASSWORD);
    await page.fill('#confirmation', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/console/channels`), page.click('button[type="submit"]:has-text("Set password")')]);

    // Follow: the form, the preview and its token, copied into the feed.
    await page.click('nav a:has-text("Follow a feed")');
    await page.fill('#feed', feed.feedUrl);
    await page.fill('#slug', 'demo-radio');
    await checked(page, 'console-follow-form');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Preview")')]);
    expect(await page.locator('[data-preview-title]').textContent()).to.equal('Demo radio');
    expect(await page.locator('[data-preview-items]').textContent()).to.equal('3');
    await page.click('button[data-copy="verify-line"]');
    const line = await page.evaluate(() => navigator.clipboard.readText());
    const token = /purpose="verify">([^<]+)</.exec(line)?.[1];
    expect(token).to.match(/^cca-verify-/);
    await checked(page, 'console-follow-token');
    feed.setVerifyTokens([token!]);

    // "Check and follow": the state page, refreshed in place by the script until the worker is done.
    await Promise.all([page.waitForURL(/\/console\/follow\/status\?feed=/), page.click('button:has-text("Check and follow")')]);
    await page.locator('#follow-state', { hasText: 'Followed as demo-radio' }).waitFor({ timeout: 60_000 });
    await checked(page, 'console-follow-done');

    // The episodes: the script follows them until nothing waits or runs.
    await Promise.all([page.waitForURL(`${origin}/console/episodes/demo-radio`), page.click('a:has-text("See the episodes of demo-radio")')]);
    await page.locator('#episodes-live:not([data-live])').waitFor({ timeout: 90_000 });
    const statuses = await page.locator('tr[data-episode]').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.firstChild!.textContent, r.getAttribute('data-status')]));
    expect(statuses).to.deep.equal([
      ['Welcome to the show', 'published'],
      ['In the garden', 'published'],
      ['The lost recording', 'failed'],
    ]);
    expect(await page.locator('tr[data-status="failed"] .error-sentence').textContent()).to.equal('the audio URL answered 404');
    await checked(page, 'console-episodes');

    // A webhook to the loopback receiver: its secret seen once, then a signed test event.
    await page.click('nav a:has-text("Webhooks")');
    await Promise.all([page.waitForURL(`${origin}/console/webhooks/demo-radio`), page.click('a:has-text("Demo radio")')]);
    const receiverUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
    await page.fill('#url', receiverUrl);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Add webhook")')]);
    received.secret = (await page.locator('#new-secret').textContent())!.trim();
    expect(received.secret).to.match(/^whsec_/);
    await page.click('button[data-copy="new-secret"]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(received.secret);
    await checked(page, 'console-webhook-added');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Send a test event")')]);
    expect(await page.locator('[data-test-result]').getAttribute('data-test-result')).to.equal('ok');
    expect(await page.locator('[data-test-result]').textContent()).to.match(/answered 200 in \d+ ms\. It answered: signature verified/);
    expect(received).to.include({ verified: 1, refused: 0 });
    expect(await page.content(), 'the secret is not shown again').to.not.include(received.secret);
    await checked(page, 'console-webhook-tested');

    // 390 px wide: the same pages, nothing wider than the screen.
    await checkedNarrow(page, origin, [
      ['/console/episodes/demo-radio', 'console-episodes-narrow'],
      ['/console/webhooks/demo-radio', 'console-webhooks-narrow'],
      ['/console/follow', 'console-follow-narrow'],
      ['/console/apps', 'console-apps-narrow'],
    ]);
    expect(errors, 'no console errors (a CSP refusal would be one)').to.deep.equal([]);
    await page.close();
  });
});
