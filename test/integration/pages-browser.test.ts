// The channel pages in headless Chromium: a citation followed from the search page lands on the cited moment
// (current, in view, player cued), clicking a segment moves address and cue without a reload, twins negotiate,
// hostile text stays inert, 404s are pages, and axe finds no serious violation. Screenshots go to SCREENSHOT_DIR.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useApiWorld } from '../support/api-world.js';
import { seedPagesWorld } from '../support/pages-world.js';
import { launchBrowser, screenshot, seriousAxeViolations, type BrowserSession } from '../../scripts/lib/browser.js';

const RADIO = 'radio.example.org';
const ALPHA = 'alpha.creators.example.com';
const HOSTILE = 'hostile.creators.example.com';

/** Where a segment sits against the viewport, and whether it is the current one. */
async function segmentState(page: Page, startMs: number) {
  return page.locator(`li.segment[data-start-ms="${startMs}"]`).evaluate((li) => {
    const box = li.getBoundingClientRect();
    return {
      current: li.getAttribute('aria-current'),
      inView: box.top >= 0 && box.bottom <= window.innerHeight,
      end: Number((li as HTMLElement).dataset.endMs),
    };
  });
}

/**
 * The audio element's cue once the reader presses play (the player preloads nothing), in ms: played muted until
 * its metadata is in, then paused where it stands.
 */
async function audioCueMs(page: Page): Promise<number> {
  await page.evaluate(() => {
    const audio = document.querySelector('audio')!;
    audio.muted = true;
    void audio.play().catch(() => undefined);
  });
  await page.waitForFunction(() => (document.querySelector('audio')?.readyState ?? 0) >= 1, undefined, { timeout: 15_000 });
  return page.evaluate(() => {
    const audio = document.querySelector('audio')!;
    audio.pause();
    return Math.round(audio.currentTime * 1000);
  });
}

/** Requests the browser made to the enclosure's host so far. */
const mediaRequests = (browser: BrowserSession) => browser.requests.filter((u) => new URL(u).hostname === 'media.example.org').length;

describe('channel pages in a browser', function () {
  this.timeout(120_000);
  const world = useApiWorld({ env: { CHANNEL_BASE_DOMAIN: 'creators.example.com' } });
  let browser: BrowserSession;
  let origin: (host: string) => string;

  before(async function () {
    await seedPagesWorld(world.store);
    const port = new URL(world.api.baseUrl).port;
    origin = (host) => `http://${host}:${port}`;
    browser = await launchBrowser([RADIO, ALPHA, HOSTILE], { wavSeconds: 600, secureOrigins: [origin(RADIO)] });
  });
  after(async function () {
    await browser?.close();
  });

  it('follows a citation from the search page to the cited segment: current, in view, the player cued there', async function () {
    const page = await browser.newPage();
    await page.goto(`${origin(RADIO)}/search?q=irrigation+schedule`);
    expect(await page.locator('mark').first().textContent()).to.match(/irrigation/i);
    expect(await seriousAxeViolations(page), 'axe on the search page').to.deep.equal([]);
    await screenshot(page, 'search-page');

    const mediaBefore = mediaRequests(browser);
    const citation = page.locator('a[data-cite]').first();
    const href = (await citation.getAttribute('href'))!;
    const t = Number(new URL(href, origin(RADIO)).searchParams.get('t'));
    await Promise.all([page.waitForURL(/\/episodes\/ep_radio1\?t=/), citation.click()]);
    const cited = await page.locator('li.segment[aria-current="time"]').evaluate((li) => Number((li as HTMLElement).dataset.startMs));
    const state = await segmentState(page, cited);
    expect(cited).to.be.at.most(t);
    expect(state.end).to.be.above(t);
    expect(state.inView, 'the cited segment is in view').to.equal(true);
    expect(await page.locator('audio').getAttribute('preload')).to.equal('none');
    expect(mediaRequests(browser), 'nothing fetched from the enclosure before play').to.equal(mediaBefore);
    expect(Math.abs((await audioCueMs(page)) - t), 'the audio is cued to t').to.be.below(250);
    await page.close();
  });

  it('scrolls a moment deep in the transcript into view, and a click on another segment moves the address and the cue without a reload', async function () {
    const page = await browser.newPage();
    await page.goto(`${origin(RADIO)}/episodes/ep_radio1?t=502000`);
    const deep = await segmentState(page, 500_000);
    expect(deep).to.deep.include({ current: 'time', inView: true });
    expect(Math.abs((await audioCueMs(page)) - 502_000)).to.be.below(250);
    expect(await seriousAxeViolations(page), 'axe on the episode page').to.deep.equal([]);
    await screenshot(page, 'episode-page');

    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.locator('li.segment[data-start-ms="450000"] a.time').click();
    await page.waitForFunction(() => location.search === '?t=450000');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 'no reload').to.equal(42);
    expect(await page.evaluate(() => location.hash)).to.equal('#t-450000');
    expect((await segmentState(page, 450_000)).current).to.equal('time');
    expect((await segmentState(page, 500_000)).current).to.equal(null);
    expect(await page.locator('.player').getAttribute('data-cue-ms')).to.equal('450000');
    expect(Math.round(await page.evaluate(() => document.querySelector('audio')!.currentTime))).to.equal(450);

    // Find in the transcript: the segments holding the words are marked and counted; Enter brings the next into view.
    await page.fill('[data-find]', 'segment 11');
    expect(await page.locator('[data-find-count]').textContent()).to.equal('11 segments'); // 11, 110-119
    await page.locator('[data-find]').press('Enter');
    await page.locator('[data-find]').press('Enter');
    expect(await page.locator('[data-find-count]').textContent()).to.equal('2 of 11 segments');
    // (Smooth scrolling: wait for it to arrive.)
    await page.waitForFunction(
      () => {
        const box = document.querySelector('li.segment[data-start-ms="550000"]')!.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      },
      undefined,
      { timeout: 5000 },
    );
    expect(await page.locator('li.segment.match').count()).to.equal(11);

    // The copy button copies the citation URL of the moment now cued (its canonical https form).
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin(RADIO) });
    await page.locator('[data-copy-moment]').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal('https://radio.example.org/episodes/ep_radio1?t=450000');
    await page.close();
  });

  it('seeks the YouTube embed by message when a segment is clicked, and loads nothing from any other third party', async function () {
    const page = await browser.newPage();
    const before = browser.requests.length;
    await page.goto(`${origin(ALPHA)}/episodes/ep_a00?t=4500`);
    const frame = page.frameLocator('iframe');
    expect(await frame.locator('p').textContent()).to.equal('player stub');
    const src = (await page.locator('iframe').getAttribute('src'))!;
    expect(new URL(src).hostname).to.equal('www.youtube-nocookie.com');
    expect(new URL(src).searchParams.get('start')).to.equal('4');
    await page.locator('li.segment[data-start-ms="0"] a.time').click();
    const embed = page.frames().find((f) => f.url().startsWith('https://www.youtube-nocookie.com/'))!;
    await embed.waitForFunction(() => (window as unknown as { commands: unknown[] }).commands.length > 0);
    const commands = await embed.evaluate(() => (window as unknown as { commands: unknown[] }).commands);
    expect(commands).to.deep.include({ event: 'command', func: 'seekTo', args: [0, true] });
    const hosts = new Set(browser.requests.slice(before).map((u) => new URL(u).hostname));
    expect([...hosts].sort()).to.deep.equal([ALPHA, 'www.youtube-nocookie.com'].sort());
    await page.close();
  });

  it('keeps the player in reach on a 390 px wide screen: the cited segment scrolls into view under a sticky player', async function () {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [host, path, name] of [
      [RADIO, '/episodes/ep_radio1?t=502000', 'episode-page-narrow'],
      [ALPHA, '/episodes/ep_a00?t=4500', 'episode-page-narrow-youtube'],
    ] as const) {
      await page.goto(`${origin(host)}${path}`);
      const cited = await page.locator('li.segment[aria-current="time"]').evaluate((li) => Number((li as HTMLElement).dataset.startMs));
      // The page scrolled to the cited segment: it is in view, and so is the whole player, not covering it.
      const boxes = await page.evaluate((start) => {
        const [player, segment] = [document.querySelector('.player')!, document.querySelector(`li.segment[data-start-ms="${start}"]`)!].map((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
        });
        return { scrollY: window.scrollY, player: player!, segment: segment!, viewport: { width: window.innerWidth, height: window.innerHeight } };
      }, cited);
      if (host === RADIO) expect(boxes.scrollY, 'the page scrolled down to a deep moment').to.be.above(1000);
      for (const [what, b] of [
        ['player', boxes.player],
        ['segment', boxes.segment],
      ] as const) {
        expect(b.top, `${name}: ${what} top`).to.be.at.least(0);
        expect(b.bottom, `${name}: ${what} bottom`).to.be.at.most(boxes.viewport.height);
        expect(b.left, `${name}: ${what} left`).to.be.at.least(0);
        expect(b.right, `${name}: ${what} right`).to.be.at.most(boxes.viewport.width);
      }
      expect(boxes.segment.top, `${name}: the segment is below the player, not under it`).to.be.at.least(boxes.player.bottom);
      await screenshot(page, name);
    }
    // The player is pressable where it stands: play from the cited moment without scrolling back.
    await page.goto(`${origin(RADIO)}/episodes/ep_radio1?t=502000`);
    expect(await page.locator('.player audio').isVisible()).to.equal(true);
    expect(Math.abs((await audioCueMs(page)) - 502_000)).to.be.below(250);
    await page.close();
  });

  it('shows a reader what was generated from the transcript: the note over the chapters, the tag on each moment and name', async function () {
    const page = await browser.newPage();
    await page.goto(`${origin(RADIO)}/episodes/ep_radio_gen?t=31000`);
    const note = page.locator('nav.chapters .generated-note');
    expect(await note.isVisible()).to.equal(true);
    expect(await note.textContent()).to.equal('Generated from the transcript, not by the creator.');
    const tags = page.locator('nav.chapters .moments .generated');
    expect(await tags.count()).to.equal(3);
    for (const tag of await tags.all()) {
      expect(await tag.isVisible()).to.equal(true);
      expect(await tag.textContent()).to.equal('generated');
    }
    expect(await page.locator('.people .generated').isVisible(), 'the guest found in the transcript').to.equal(true);
    expect(await page.locator('.topics .generated').isVisible(), 'the topic found in the transcript').to.equal(true);
    expect(await seriousAxeViolations(page), 'axe on an episode page with generated chapters').to.deep.equal([]);
    await screenshot(page, 'episode-page-generated');
    await screenshot(page.locator('nav.chapters'), 'episode-chapters-generated');
    await page.close();
  });

  it('shows the channel host favicon: a real icon, and no console error on an episode page', async function () {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('requestfailed', (r) => errors.push(`${r.url()} ${r.failure()?.errorText}`));
    await page.goto(`${origin(RADIO)}/episodes/ep_radio2`);
    // Chromium under Playwright drops a page's own request for exactly `/favicon.ico` (it is the browser's to make):
    // the same path with a query reaches the server and the image decoder all the same.
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/favicon.ico');
    const width = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(-1);
          img.src = '/favicon.ico?decode';
        }),
    );
    expect(width, 'the browser decodes it as an image').to.be.oneOf([16, 32]);
    const icon = await answered;
    expect([icon.status(), icon.headers()['content-type']]).to.deep.equal([200, 'image/x-icon']);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('keeps the moment links working with JavaScript off', async function () {
    const context = await browser.context.browser()?.newContext({ javaScriptEnabled: false });
    // A persistent context has no browser object to open a second context from: use a page with scripts blocked instead.
    const page = context ? await context.newPage() : await browser.newPage();
    if (!context) await page.route('**/page.js', (route) => route.abort());
    await page.goto(`${origin(RADIO)}/episodes/ep_radio1`);
    await Promise.all([page.waitForURL(/\?t=450000#t-450000$/), page.locator('li.segment[data-start-ms="450000"] a.time').click()]);
    expect(await page.locator('li.segment[aria-current="time"]').getAttribute('data-start-ms')).to.equal('450000');
    expect(await page.locator('[data-copy-moment]').isVisible(), 'the copy button needs script: hidden without it').to.equal(false);
    await page.close();
    await context?.close();
  });

  it('serves the Markdown twin to a browser that asks for it, and the root and 404 as accessible pages', async function () {
    const page = await browser.newPage();
    const twin = await page.goto(`${origin(RADIO)}/episodes/ep_radio1.md`);
    expect(twin!.headers()['content-type']).to.equal('text/markdown; charset=utf-8');
    expect(await page.locator('body').textContent()).to.match(/^# Radio episode with an enclosure/);
    const negotiated = await page.evaluate(async () => {
      const res = await fetch('/episodes/ep_radio1', { headers: { accept: 'text/markdown' } });
      return [res.headers.get('content-type'), res.headers.get('vary'), (await res.text()).slice(0, 40)];
    });
    expect(negotiated[0]).to.equal('text/markdown; charset=utf-8');
    expect(negotiated[1]).to.match(/Accept/);
    expect(negotiated[2]).to.match(/^# Radio episode/);

    const root = await page.goto(`${origin(RADIO)}/`);
    expect(root!.status()).to.equal(200);
    expect(await seriousAxeViolations(page), 'axe on the root page').to.deep.equal([]);
    await screenshot(page, 'library-page');
    const missing = await page.goto(`${origin(RADIO)}/episodes/ep_radio_draft`);
    expect(missing!.status()).to.equal(404);
    expect(await page.locator('h1').textContent()).to.match(/not found/i);
    expect(await seriousAxeViolations(page), 'axe on the 404 page').to.deep.equal([]);
    await page.close();
  });

  it('renders the hostile library inert: no script runs, no dialog opens, no javascript: link exists', async function () {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${origin(HOSTILE)}/episodes/ep_hostile`);
    await page.locator('li.segment').first().waitFor();
    expect(dialogs).to.deep.equal([]);
    expect(await page.locator('a[href^="javascript:"], [src^="javascript:"]').count()).to.equal(0);
    expect(await page.locator('img').count(), 'the <img onerror> in the summary is text').to.equal(0);
    expect(await page.locator('main').textContent()).to.include('<img src=x onerror=alert(1)>');
    expect(await page.title()).to.have.length.below(400);
    expect(
      errors.filter((e) => /Content Security Policy/.test(e)),
      'nothing tried to run against the CSP',
    ).to.deep.equal([]);
    await page.close();
  });
});
