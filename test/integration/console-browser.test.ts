// The console in headless Chromium, as the demo serves it (http://localhost): sign in with a one-time link, create a
// key (shown once, copied), call the API with it, revoke it (the confirmation asked in place), see 401; at desktop
// width and at 390 px, with screenshots and axe-core finding no serious or critical violation.
import { expect } from 'chai';
import { useApiWorld } from '../support/api-world.js';
import { identityDeps } from '../../src/console/router.js';
import { inviteAccount } from '../../src/console/identity.js';
import { launchBrowser, type BrowserSession } from '../../scripts/lib/browser.js';
import { checked, checkedNarrow } from '../support/console-browser.js';

const PASSWORD = 'a long and private passphrase';

describe('creator console in a browser', function () {
  this.timeout(120_000);
  const world = useApiWorld({ env: { CHANNEL_BASE_DOMAIN: 'creators.example.com', PUBLIC_BASE_URL: 'http://localhost:8080' } });
  let browser: BrowserSession;
  let origin: string;

  before(async function () {
    origin = `http://localhost:${new URL(world.api.baseUrl).port}`;
    browser = await launchBrowser(['localhost']);
  });
  after(async function () {
    await browser?.close();
  });

  const apiStatus = async (key: string) => (await world.api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status;

  it('signs in with a one-time link, creates a key seen once, uses it, revokes it, and sees 401', async function () {
    const identity = identityDeps({ config: world.api.config, client: world.api.client, redis: world.api.redis });
    const { url } = await inviteAccount(identity, { userId: 'u_owner', role: 'creator' });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

    await page.goto(`${origin}${new URL(url).pathname}`);
    await checked(page, 'console-set-password');
    await page.fill('#password', PASSWORD);
    await page.fill('#confirmation', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/console/channels`), page.click('button[type="submit"]:has-text("Set password")')]);
    const cookies = await browser.context.cookies(origin);
    expect(cookies.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite])).to.deep.include(['__Host-cca_session', true, true, 'Lax']);
    expect(await page.locator('tr[data-channel="alpha"]').textContent()).to.include('paid');
    await checked(page, 'console-channels');

    await page.click('nav a:has-text("API keys")');
    await page.fill('#name', 'browser test');
    expect(await page.locator('#expires').inputValue(), 'default expiry').to.equal('90');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Create key")')]);
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).to.match(/^svc_/);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.click('button[data-copy="new-key"]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(key);
    await checked(page, 'console-key-created');
    expect(await apiStatus(key)).to.equal(200);

    await page.goto(`${origin}/console/keys`);
    expect(await page.content(), 'the key is shown once').to.not.include(key);
    const row = page.locator('tr', { hasText: 'browser test' });
    expect(await row.locator('code').textContent()).to.equal(`svc_…${key.slice(-4)}`);
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await Promise.all([page.waitForURL(/\/console\/keys\?revoked=/), row.locator('button:has-text("Revoke")').click()]);
    expect(asked).to.include('Revoke the key "browser test"');
    expect(await page.locator('[role="status"]').first().textContent()).to.include('is revoked');
    await checked(page, 'console-key-revoked');
    expect(await apiStatus(key)).to.equal(401);

    // 390 px wide: the same pages, nothing wider than the screen.
    await checkedNarrow(page, origin, [
      ['/console/keys', 'console-keys-narrow'],
      ['/console/channels', 'console-channels-narrow'],
    ]);
    expect(errors, 'no console errors (a CSP refusal would be one)').to.deep.equal([]);
    await page.close();
  });
});
