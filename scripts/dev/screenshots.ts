// The pictures in the README and docs: an episode page at a cited moment and a search page, taken in headless
// Chromium from a loaded library (qmsum by default, as the test suite loads it).
//
//   npm run screenshots -- [--prefix test-qmsum-] [--query "..."] [--channel research-meetings] [--out docs/images]
//
// The search runs first; its first citation is followed, as a reader would, and the page is taken there.
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { channelHost } from '../../core/ground/channel-urls.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { createOpenSearchClient } from '../../core/store/opensearch.js';
import { loadedChannel } from '../eval/harness.js';
import { launchBrowser, screenshot } from '../lib/browser.js';
import { serveInChildProcess } from '../lib/child.js';

const opts = new Command()
  .name('screenshots')
  .description('Screenshots of an episode page at a cited moment and of a search page, from a loaded library.')
  .option('--prefix <prefix>', 'index prefix holding a loaded library (default: INDEX_PREFIX)')
  .option('--channel <slug>', 'channel to search', 'research-meetings')
  .option('--query <words>', 'what to search for', 'storage format for the transcripts')
  .option('--out <dir>', 'where the PNG files go', 'docs/images')
  .parse()
  .opts<{ prefix?: string; channel: string; query: string; out: string }>();

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, ...(opts.prefix ? { INDEX_PREFIX: opts.prefix } : {}) });
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 10_000 });
  const channel: ChannelDoc = await loadedChannel(client, config.indexPrefix, opts.channel);
  const host = channelHost(channel, config.channelSites);
  const served = await serveInChildProcess({ INDEX_PREFIX: config.indexPrefix, LOG_LEVEL: 'warn', PAGES_RATE_LIMIT_MAX: '100000' });
  const dir = path.resolve(opts.out);
  const browser = await launchBrowser([host], { wavSeconds: 2 * 60 * 60 });
  try {
    const origin = `http://${host}:${new URL(served.baseUrl).port}`;
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${origin}/search?q=${encodeURIComponent(opts.query)}`);
    process.stderr.write(`search page: ${await screenshot(page, 'search-page', { dir })}\n`);
    const citation = page.locator('a[data-cite]').first();
    await Promise.all([page.waitForURL(/\/episodes\/.+\?t=/), citation.click()]);
    await page.waitForFunction(() => (document.querySelector('audio')?.readyState ?? 1) >= 1, undefined, { timeout: 15_000 }).catch(() => undefined);
    process.stderr.write(`episode page at ${page.url()}: ${await screenshot(page, 'episode-page', { dir })}\n`);
  } finally {
    await browser.close();
    await served.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`screenshots: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
