// The workbench in headless Chromium, as a relevance tuner uses it: `npm run workbench` prints its URL; open the
// corpus's dev set, add a configuration, compare one query under A and B, mark a cited segment relevant, run both
// configurations over the set (metrics, win/tie/loss, SVG plots), rerun after the judgment, and open a snapshot.
// The printed URL carries the run's token; the page works from it alone, and logs no console error on the way.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { TOKEN_HEADER } from '../../scripts/eval/workbench/guard.js';
import { launchBrowser, screenshot, seriousAxeViolations, type BrowserSession } from '../../scripts/lib/browser.js';
import { CORPUS_PREFIX, QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';

/** Starts `npm run workbench` on a free port and resolves with the URL it prints (with its token). */
function startWorkbench(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/eval/workbench.ts', '--port', '0', '--prefix', CORPUS_PREFIX, '--dir', dir, '--datasets', join(dir, 'none')], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /workbench: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+) /.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`workbench exited ${code}: ${err}`)));
  });
}

const rowsOf = (page: Page, side: 'a' | 'b') => page.locator(`#column-${side} li.hit`);

describe('workbench in a browser', function () {
  this.timeout(QMSUM_LOAD_TIMEOUT_MS);
  let dir: string;
  let workbench: { child: ChildProcess; url: string };
  let browser: BrowserSession;
  let page: Page;
  /** What the page logged as errors (the 404 of the icon Chromium asks for by itself was one). */
  const consoleErrors: string[] = [];
  /** The workbench's JSON as a script reads it: the token in its header. */
  const apiJson = async <T>(path: string) =>
    (await (await fetch(new URL(path, workbench.url), { headers: { [TOKEN_HEADER]: new URL(workbench.url).searchParams.get('token')! } })).json()) as T;

  before(async function () {
    await ensureCorpusLoaded();
    dir = await mkdtemp(join(tmpdir(), 'cca-workbench-ui-'));
    workbench = await startWorkbench(dir);
    browser = await launchBrowser(['127.0.0.1']);
    page = await browser.newPage();
    await page.setViewportSize({ width: 1400, height: 1000 });
    page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    page.on('pageerror', (e) => void consoleErrors.push(e.message));
  });
  after(async function () {
    await browser?.close();
    workbench?.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('opens on loopback with the dev set of the corpus, and saves a configuration from the form', async function () {
    expect(new URL(workbench.url).hostname).to.equal('127.0.0.1');
    await page.goto(workbench.url);
    await page.locator('#set option[value="corpus-dev"]').waitFor({ state: 'attached' });
    expect(page.url(), 'the token leaves the address bar').to.equal(new URL('/', workbench.url).href);
    expect(await page.locator('#set').inputValue()).to.equal('corpus-dev');
    await page.locator('#config-editor summary').click();
    await page.fill('#config-form input[name="name"]', 'rrf-k20');
    await page.selectOption('#config-form select[name="fusion"]', 'rrf');
    await page.fill('#config-form input[name="k"]', '20');
    await page.click('#config-form button[type="submit"]');
    await page.locator('#config-b option[value="rrf-k20"]').waitFor({ state: 'attached' });
    expect(JSON.parse(await readFile(join(dir, 'configs', 'rrf-k20.json'), 'utf8'))).to.deep.equal({ mode: 'hybrid', settings: 'fusion=rrf k=20' });
    expect(await seriousAxeViolations(page), 'axe on the workbench').to.deep.equal([]);
  });

  it('compares one query under A and B: both rankings with leg ranks, what moved, Jaccard and RBO; a judgment is saved in the set', async function () {
    await page.selectOption('#config-b', 'rrf-k20');
    const first = await page.locator('#query-pick option').nth(1).getAttribute('value');
    await page.selectOption('#query-pick', first!);
    await page.click('#compare');
    await page.locator('#compare-summary[data-rbo]').waitFor();
    expect(await rowsOf(page, 'a').count()).to.be.above(0);
    expect(await rowsOf(page, 'b').count()).to.be.above(0);
    expect(await page.locator('#compare-summary').textContent()).to.match(/^Jaccard \d\.\d{3} · RBO \d\.\d{3}/);
    expect(await page.locator('#column-a .legs').first().textContent()).to.match(/keyword #(\d+|–) · k-NN #(\d+|–) · fused \d\.\d{4}/);
    await screenshot(page.locator('section[aria-labelledby="compare-h"]'), 'workbench-compare');

    // The first hit of B that the set does not count as relevant: mark it relevant.
    const target = page.locator('#column-b li.hit:not([data-judged="relevant"])').first();
    const segment = await target.getAttribute('data-segment');
    await target.locator('button[data-judge="relevant"]').click();
    await page.locator(`#column-b li.hit[data-segment="${segment}"][data-judged="relevant"]`).waitFor();
    const saved = (await readFile(join(dir, 'sets', 'corpus-dev.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; relevant: { episodeId: string }[] });
    const episodeId = segment!.split(':')[0];
    expect(saved.find((q) => q.id === first)!.relevant.some((r) => r.episodeId === episodeId)).to.equal(true);
  });

  it('runs both configurations over the set: the metrics, win/tie/loss, two SVG plots; a rerun counts the new judgment; a snapshot opens against a rerun', async function () {
    await page.click('#run-experiments');
    await page.locator('#experiment-results [data-plots] svg').first().waitFor({ timeout: 120_000 });
    expect(await page.locator('#experiment-results table.metrics tbody tr').count()).to.equal(2);
    expect(await page.locator('#experiment-results [data-plots] svg').count()).to.be.at.least(2);
    expect(await page.locator('#experiment-results [data-wtl]').getAttribute('data-wtl')).to.match(/^\d+\/\d+\/\d+$/);
    await screenshot(page.locator('section[aria-labelledby="experiments-h"]'), 'workbench-experiments');

    // The judged query's B ranking now has a relevant segment: its seg MRR under B is above 0 in the new snapshot.
    const state = await apiJson<{ snapshots: { id: string; configName: string }[] }>('/api/state');
    const latestB = state.snapshots.find((s) => s.configName === 'rrf-k20')!;
    const snapshot = await apiJson<{ perQuery: { id: string; rr: number }[]; library: { passages: number } }>(`/api/snapshots/${latestB.id}`);
    const first = await page.locator('#query-pick').inputValue();
    expect(snapshot.perQuery.find((q) => q.id === first)!.rr).to.be.above(0);
    expect(snapshot.library.passages).to.be.above(0);

    await page.locator(`#snapshots button[data-snapshot="${latestB.id}"]`).click();
    await page.locator('#snapshot-view table.metrics').waitFor({ timeout: 120_000 });
    expect(await page.locator('#snapshot-view table.metrics tbody tr').count()).to.equal(2);
    expect(await page.locator('#snapshot-view [data-wtl]').getAttribute('data-wtl'), 'the same library and configuration: every query ties').to.match(/^0\/\d+\/0$/);
  });

  it('logged no console error on the way, and its icon is a real one that Chromium draws', async function () {
    expect(consoleErrors).to.deep.equal([]);
    const drawn = await page.evaluate(async () => {
      const img = new Image();
      // A query string: under Playwright's routing, Chromium does not let a page's own request for exactly /favicon.ico through.
      img.src = '/favicon.ico?drawn';
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    expect(drawn[0]).to.be.oneOf([16, 32]);
    expect(drawn[1]).to.equal(drawn[0]);
  });

  it('refuses the page without the token: a fresh browser opening the bare URL gets the reason, not the library', async function () {
    // Last: it drops the cookie the printed URL set.
    await browser.context.clearCookies();
    const other = await browser.newPage();
    try {
      await other.goto(new URL('/', workbench.url).href);
      await other.locator('#library', { hasText: 'no workbench token' }).waitFor();
      expect(await other.locator('#set option').count()).to.equal(0);
    } finally {
      await other.close();
    }
  });
});
