// Headless Chromium for the browser suites and the screenshots: Debian's binary (CHROMIUM_PATH, set by the test command), driven by
// playwright-core, with channel hosts resolved to loopback and every third party stubbed or refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type BrowserContext, type Locator, type Page, type Request } from 'playwright-core';

const require = createRequire(import.meta.url);

/** The binary the test command provisioned, or Debian's default place. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** What the stubbed YouTube embed received: its URL and the commands posted to it. */
export const EMBED_STUB = `<!doctype html><html><body><p>player stub</p><script>
window.commands = [];
window.addEventListener('message', (e) => { try { window.commands.push(JSON.parse(e.data)); } catch { window.commands.push(e.data); } });
</script></body></html>`;

/** A mono 8 kHz 8-bit WAV of silence, `seconds` long: a real media file the native player can seek in. */
export function silentWav(seconds: number): Buffer {
  const rate = 8000;
  const samples = rate * seconds;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}

/** A 206 for a `bytes=a-b` range (the media player seeks with them), else the whole file. */
function rangeOf(body: Buffer, range: string | undefined) {
  const headers = { 'accept-ranges': 'bytes', 'content-type': 'audio/wav' };
  const m = range ? /^bytes=(\d+)-(\d*)$/.exec(range) : null;
  if (!m) return { status: 200, headers, body };
  const start = Number(m[1]);
  const end = m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
  return { status: 206, headers: { ...headers, 'content-range': `bytes ${start}-${end}/${body.length}` }, body: body.subarray(start, end + 1) };
}

export interface BrowserSession {
  context: BrowserContext;
  /** Every request the pages made, by URL, in order. */
  requests: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * A fresh browser with an empty profile. `hosts` are resolved to 127.0.0.1 (so `http://<channel host>:<port>` reaches
 * the API under test); the YouTube embed and `media.example.org` are answered by stubs; any other outside request is
 * aborted, so a page that reached for a third party shows up in `requests` and fails to load it. `secureOrigins`
 * are treated as secure contexts (the clipboard needs one).
 */
export async function launchBrowser(hosts: string[], { wavSeconds = 60, secureOrigins = [] as string[] } = {}): Promise<BrowserSession> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cca-chromium-'));
  const rules = hosts.map((h) => `MAP ${h} 127.0.0.1`).join(', ');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${rules}`,
      // The pages are served over http in tests; the clipboard needs a secure context, as on the https channel host.
      ...(secureOrigins.length > 0 ? [`--unsafely-treat-insecure-origin-as-secure=${secureOrigins.join(',')}`] : []),
    ],
  });
  const requests: string[] = [];
  const wav = silentWav(wavSeconds);
  const allowed = new Set(hosts);
  context.on('request', (r: Request) => requests.push(r.url()));
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (allowed.has(url.hostname)) return route.continue();
    if (url.hostname === 'www.youtube-nocookie.com') return route.fulfill({ status: 200, contentType: 'text/html', body: EMBED_STUB });
    if (url.hostname === 'media.example.org') return route.fulfill(rangeOf(wav, route.request().headers().range));
    return route.abort('blockedbyclient');
  });
  return {
    context,
    requests,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's script, read once. */
let axeSource: string | undefined;

/** Runs axe-core in the page and returns the serious and critical violations (none is the pass). */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const source = axeSource;
  // Evaluated, not injected as a <script>: the pages' CSP allows no inline script, and that is how it should stay.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Saves a screenshot in `dir`: by default SCREENSHOT_DIR (a knob of the browser suites), else `.cache/screenshots`, out
 * of git; `npm run screenshots` gives `docs/images/` to refresh the pictures the README and docs show.
 */
export async function screenshot(
  target: Page | Locator,
  name: string,
  { fullPage = false, dir = process.env.SCREENSHOT_DIR || path.join(process.cwd(), '.cache', 'screenshots') } = {},
): Promise<string> {
  const file = path.join(dir, `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // A locator (one section of a page) is taken alone; a page is its viewport, or all of it.
  if ('goto' in target) await target.screenshot({ path: file, fullPage });
  else await target.screenshot({ path: file });
  return file;
}
