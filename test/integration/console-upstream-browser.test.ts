// The upstream sign-in in headless Chromium: link the provider on the Account page, sign out, then "Sign in with …"
// on the sign-in page (screenshot, axe-core) goes through the provider and back, signed in. Chromium applies the
// console's form-action to the redirect after the button's post: this is where that policy is proven.
import { expect } from 'chai';
import { useWorldStore } from '../support/api-world.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { freePort } from '../support/oauth-flow.js';
import { startOidcUpstream, type OidcUpstream } from '../support/oidc-upstream.js';
import { identityDeps } from '../../src/console/router.js';
import { accountStore, inviteAccount } from '../../src/console/identity.js';
import { getAccount } from '../../core/store/accounts.js';
import { launchBrowser, screenshot, seriousAxeViolations, type BrowserSession } from '../../scripts/lib/browser.js';

const PASSWORD = 'a long and private passphrase';

describe('console upstream sign-in in a browser', function () {
  this.timeout(120_000);
  const world = useWorldStore();
  let upstream: OidcUpstream;
  let api: ApiHarness;
  let browser: BrowserSession;
  let origin: string;

  before(async function () {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    upstream = await startOidcUpstream({ publicBaseUrl: origin });
    api = await startApi({ port, env: { INDEX_PREFIX: world.store.prefix, PUBLIC_BASE_URL: origin, ...upstream.env('Test IdP') } });
    browser = await launchBrowser(['localhost', '127.0.0.1']);
  });
  after(async function () {
    await browser?.close();
    await api?.close();
    await upstream?.close();
  });

  it('links the provider on the Account page, then signs in with its button', async function () {
    const identity = identityDeps({ config: api.config, client: api.client, redis: api.redis });
    const { url } = await inviteAccount(identity, { userId: 'u_owner', role: 'creator' });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

    await page.goto(`${origin}${new URL(url).pathname}`);
    await page.fill('#password', PASSWORD);
    await page.fill('#confirmation', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/console/channels`), page.click('button:has-text("Set password")')]);

    await page.goto(`${origin}/console/account`);
    await Promise.all([page.waitForURL(`${upstream.issuer}/interaction/**`), page.click('button:has-text("Link Test IdP")')]);
    await page.fill('#subject', 'sub-in-chromium');
    await Promise.all([page.waitForURL(`${origin}/console/account?linked=1`), page.click('button:has-text("Continue")')]);
    expect(await page.locator('[role="status"]').first().textContent()).to.include('Linked');
    expect((await getAccount(accountStore(identity), 'u_owner'))!.links).to.deep.equal([{ issuer: upstream.issuer, subject: 'sub-in-chromium' }]);

    await Promise.all([page.waitForURL(`${origin}/console/sign-in`), page.click('button:has-text("Sign out u_owner")')]);
    const button = page.locator('button:has-text("Sign in with Test IdP")');
    expect(await button.isVisible()).to.equal(true);
    expect(await seriousAxeViolations(page), 'axe on the sign-in page').to.deep.equal([]);
    await screenshot(page, 'console-sign-in-upstream', { fullPage: true });

    // The provider remembers this browser: it sends it straight back, and the console signs it in.
    await Promise.all([page.waitForURL(`${origin}/console/channels`), button.click()]);
    expect(await page.locator('button:has-text("Sign out u_owner")').count()).to.equal(1);
    expect(errors, 'no console errors (a CSP refusal would be one)').to.deep.equal([]);
    await page.close();
  });
});
