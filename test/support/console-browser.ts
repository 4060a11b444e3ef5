// What the console's Chromium suites check on every page they show: axe finds no serious or critical violation, a
// full-page screenshot is taken; and at 390 px, nothing wider than the screen.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { screenshot, seriousAxeViolations } from '../../scripts/lib/browser.js';

/** axe on the page as it stands, then its screenshot under `name`. */
export async function checked(page: Page, name: string): Promise<void> {
  expect(await seriousAxeViolations(page), `axe on ${name}`).to.deep.equal([]);
  await screenshot(page, name, { fullPage: true });
}

/** Each console path at 390 px wide: no wider than the screen, then {@link checked} under its name. */
export async function checkedNarrow(page: Page, origin: string, pages: readonly (readonly [path: string, name: string])[]): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [path, name] of pages) {
    await page.goto(`${origin}${path}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} at 390 px`).to.be.at.most(390);
    await checked(page, name);
  }
}
