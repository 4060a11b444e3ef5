// The importer's reads go through the safe fetcher: a hostile feed cannot make it read files outside the feed's
// folder or fetch from loopback, each refusal is a clear note on its item, and nothing it refused reaches the library.
// The import CLI's OUTBOUND_ALLOW_PRIVATE switch lets a local demo fetch from loopback, with the configured User-Agent.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runImport } from '../../importer/import.js';
import { createLogger } from '../../core/ground/logger.js';
import { runEntry } from '../support/run-entry.js';

const log = createLogger({ level: 'silent' });
const SECRET = 'someone else’s words';
const VTT = (text: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>${text}\n`;

const item = (n: number, url: string) =>
  `<item><title>Item ${n}</title><guid>g${n}</guid><pubDate>Tue, 0${n} Jan 2024 10:00:00 GMT</pubDate><podcast:transcript url="${url}" type="text/vtt"/></item>`;
const rss = (items: string) =>
  `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Hostile</title>${items}</channel></rss>`;

/** Every byte the library holds, as text, to prove a refused file's content is nowhere in it. */
async function libraryText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
  return texts.join('\n');
}

describe('safe fetch: the importer', function () {
  let root: string;
  let feedDir: string;
  let secretFile: string;
  let server: Server;
  let base: string;
  const hits: { path: string; userAgent: string | undefined }[] = [];

  before(async function () {
    root = await mkdtemp(join(tmpdir(), 'fetch-import-'));
    feedDir = join(root, 'feed');
    await mkdir(feedDir);
    await mkdir(join(root, 'secret'));
    secretFile = join(root, 'secret', 'private.vtt');
    await writeFile(secretFile, VTT(SECRET));
    await writeFile(join(feedDir, 'ok.vtt'), VTT('Our own words.'));
    await symlink(secretFile, join(feedDir, 'out-link.vtt'));
    server = createServer((req, res) => {
      hits.push({ path: req.url ?? '', userAgent: req.headers['user-agent'] });
      res.writeHead(200, { 'content-type': 'text/vtt' }).end(VTT('Fetched from loopback.'));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async function () {
    server.closeAllConnections();
    server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a path outside the feed folder (absolute, `..`, file:), a symlink, a device and a loopback URL, each with its reason, and imports none of them', async function () {
    const refs = [secretFile, '../secret/private.vtt', `file://${secretFile}`, 'out-link.vtt', '/dev/zero', `${base}/t.vtt`, 'ok.vtt'];
    await writeFile(join(feedDir, 'feed.xml'), rss(refs.map((r, i) => item(i + 1, r)).join('')));
    const out = join(root, 'lib');
    hits.length = 0;
    const summary = await runImport({ source: join(feedDir, 'feed.xml'), out, fetch: true, log });
    const notes = summary.partial.map((p) => p.notes[0]).sort();
    expect(notes).to.deep.equal(
      [
        `${secretFile}: the file is outside the folder it may be read from`,
        `${secretFile}: the file is outside the folder it may be read from`,
        `file://${secretFile}: not an http(s) URL or a path inside the feed's folder`,
        `${join(feedDir, 'out-link.vtt')}: the file is a symbolic link, which is not followed`,
        '/dev/zero: the file is outside the folder it may be read from',
        `${base}/t.vtt: the file points at a private address`,
      ].sort(),
    );
    expect(summary.imported).to.equal(7);
    expect(hits, 'requests the loopback server saw').to.deep.equal([]);
    const library = await libraryText(out);
    expect(library).to.include('Our own words.');
    expect(library).not.to.include(SECRET);
  });

  it('reads the feed file itself only as a regular file: a device given as the feed is refused at once, not read forever', async function () {
    const err = await runImport({ source: '/dev/zero', out: join(root, 'never'), log }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('/dev/zero: the file is not a regular file');
    expect(await readdir(root)).not.to.include('never');
  });

  it('refuses captions and info.json files of a yt-dlp folder that are symlinks out of it', async function () {
    const dir = join(root, 'ytdlp');
    await mkdir(dir);
    const info = (id: string, title: string) => JSON.stringify({ id, title, upload_date: '20240101', duration: 10, channel: 'Linked' });
    await writeFile(join(dir, `Own [own00000001].info.json`), info('own00000001', 'Own'));
    await symlink(secretFile, join(dir, `Own [own00000001].en.vtt`));
    await writeFile(join(root, 'secret', 'elsewhere.info.json'), info('else0000001', 'Elsewhere'));
    await symlink(join(root, 'secret', 'elsewhere.info.json'), join(dir, `Elsewhere [else0000001].info.json`));
    const out = join(root, 'lib-yt');
    const summary = await runImport({ source: dir, out, log });
    expect(summary.skipped.map((s) => [s.item, s.notes[0]])).to.deep.equal([
      ['Elsewhere [else0000001].info.json', `${join(dir, 'Elsewhere [else0000001].info.json')}: the file is a symbolic link, which is not followed`],
    ]);
    expect(summary.partial.map((p) => p.notes[0])).to.deep.equal([`${join(dir, 'Own [own00000001].en.vtt')}: the file is a symbolic link, which is not followed`]);
    expect(await libraryText(out)).not.to.include(SECRET);
  });

  it('the import CLI fetches from loopback only with OUTBOUND_ALLOW_PRIVATE=true, and sends the configured User-Agent', async function () {
    this.timeout(120_000);
    await writeFile(join(feedDir, 'feed.xml'), rss(item(1, `${base}/t.vtt`)));
    const cli = (env: Record<string, string>, out: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/import.ts', join(feedDir, 'feed.xml'), '--out', join(root, out), '--fetch'], {
        env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      });
    hits.length = 0;
    const refused = await cli({ OUTBOUND_ALLOW_PRIVATE: 'false' }, 'cli-refused');
    expect(refused.stdout).to.include(`${base}/t.vtt: the file points at a private address`);
    expect(hits).to.deep.equal([]);
    const allowed = await cli({ OUTBOUND_ALLOW_PRIVATE: 'true', FOLLOW_USER_AGENT: 'CreatorContentAPI/test (+https://example.test)' }, 'cli-allowed');
    expect(allowed.stdout).not.to.include('private address');
    expect(hits).to.deep.equal([{ path: '/t.vtt', userAgent: 'CreatorContentAPI/test (+https://example.test)' }]);
    expect(await libraryText(join(root, 'cli-allowed'))).to.include('Fetched from loopback.');
  });

  it('the import CLI refuses a feed of another source into an existing channel (exit 2), and feeds it from there with --replace-source', async function () {
    this.timeout(120_000);
    const feed = (name: string, link: string) =>
      `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Two Sources</title><link>${link}</link>${item(1, 'ok.vtt')}</channel></rss>`.replace(
        'g1',
        `g-${name}`,
      );
    await writeFile(join(feedDir, 'first.xml'), feed('first', 'https://first.example.org/'));
    await writeFile(join(feedDir, 'second.xml'), feed('second', 'https://second.example.org/'));
    const out = join(root, 'cli-sources');
    const cli = (source: string, ...flags: string[]) => runEntry('bin/import.ts', [join(feedDir, source), '--out', out, ...flags], { LOG_LEVEL: 'error' });
    const first = await cli('first.xml');
    expect(first.code, first.stderr).to.equal(0);
    const channelsBefore = await readFile(join(out, 'channels.json'), 'utf8');

    const refused = await cli('second.xml');
    expect(refused.code, refused.stderr).to.equal(2);
    expect(refused.stderr).to.include(
      'channel ch_two-sources is fed from rss https://first.example.org/; this import is rss https://second.example.org/: refused (pass --replace-source to feed it from this source)',
    );
    expect(await readFile(join(out, 'channels.json'), 'utf8'), 'the channel as the first import left it').to.equal(channelsBefore);

    const replaced = await cli('second.xml', '--replace-source');
    expect(replaced.code, replaced.stderr).to.equal(0);
    const channels = JSON.parse(await readFile(join(out, 'channels.json'), 'utf8')) as { id: string; source?: unknown }[];
    expect(channels.find((c) => c.id === 'ch_two-sources')!.source).to.deep.equal({ kind: 'rss', id: 'https://second.example.org/', url: 'https://second.example.org/' });
  });
});
