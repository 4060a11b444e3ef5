// The importer end to end on disk: a feed and a yt-dlp folder become a library the indexer's reader accepts whole,
// a second import writes the same bytes, other channels stay untouched, and a failed write leaves nothing behind.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runImport } from '../../importer/import.js';
import { writeLibrary } from '../../importer/write-library.js';
import { readEpisodes, readLibraryMeta, type LibraryIssue } from '../../core/library/reader.js';
import { createLogger } from '../../core/ground/logger.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';

const DATA = join(process.cwd(), 'test', 'data', 'import');
const log = createLogger({ level: 'silent' });

/** Every file of a folder with the sha256 of its bytes. */
async function digest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return out;
}

/** The library as the indexer reads it: its channels, its episodes, and whatever it would skip. */
async function readBack(dir: string) {
  const meta = await readLibraryMeta(dir);
  const issues: LibraryIssue[] = [...meta.issues];
  const episodes: EpisodeRecord[] = [];
  for await (const entry of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: (i) => issues.push(i) })) episodes.push(entry.record);
  return { meta, episodes, issues };
}

describe('import: into a library', function () {
  let work: string;
  beforeEach(async function () {
    work = await mkdtemp(join(tmpdir(), 'cca-import-'));
  });
  afterEach(async function () {
    await rm(work, { recursive: true, force: true });
  });

  it('writes a feed as a library the indexer reads without an issue: the channel, a paid owner, published episodes, facets; the undated item skipped with its reason', async function () {
    const out = join(work, 'lib');
    const summary = await runImport({ source: join(DATA, 'feed', 'feed.xml'), out, owner: 'u_ana', log });
    expect([summary.imported, summary.created, summary.skipped.map((s) => s.notes)]).to.deep.equal([4, 4, [['no valid pubDate (missing)']]]);
    expect(summary.partial.map((p) => p.notes.join(' '))).to.satisfy(
      (notes: string[]) => notes.some((n) => /remote file not fetched/.test(n)) && notes.some((n) => /damaged\.json: line 2: not valid JSON/.test(n)),
    );
    const { meta, episodes, issues } = await readBack(out);
    expect(issues).to.deep.equal([]);
    expect(meta.channels.map((c) => [c.id, c.slug, c.providerType, c.ownerId])).to.deep.equal([['ch_garden-hour', 'garden-hour', 'rss', 'u_ana']]);
    expect(JSON.parse(await readFile(join(out, 'users.json'), 'utf8'))).to.deep.equal([{ id: 'u_ana', name: 'u_ana', plan: 'paid' }]);
    const soil = episodes.find((e) => e.title === 'Soil is alive')!;
    expect(soil).to.deep.include({
      status: 'published',
      durationMs: 70_000,
      mediaUrl: 'https://media.example.org/garden/001.mp3',
      publishedAt: '2024-01-02T10:00:00.000Z',
      summary: 'Why soil needs roots & fungi. Notes été.',
    });
    expect(soil.transcript!.wordTimings, 'the Podcast Index JSON (word times) wins over the SRT').to.equal('source');
    expect(soil.personIds).to.deep.equal(['p_bo-guest', 'p_ana-host']);
    expect(soil.chapters![1]!.moments).to.deep.equal([{ type: 'quote', title: 'Fungi trade sugar for minerals', startMs: 31_000, endMs: 37_000 }]);
    const water = episodes.find((e) => e.title === 'Water in dry summers')!;
    expect(water.transcript!.wordTimings, "the feed's language (en) wins over a word-timed Spanish transcript").to.equal('interpolated');
    expect(water.transcript!.segments[0]!.text).to.not.include('paja');
    const compost = episodes.find((e) => e.title === 'Compost in winter')!;
    expect(
      compost.transcript!.segments.map((s) => [s.speakerLabel, s.startMs, s.endMs]),
      'the HTML transcript, its last monologue ending with the episode',
    ).to.deep.equal([
      ['Ana', 0, 20_000],
      ['Bo', 20_000, 45_000],
    ]);
    expect(compost.transcript!.wordTimings).to.equal('interpolated');
    expect(summary.partial.find((p) => p.item === compost.id)!.notes).to.deep.equal([`${join(DATA, 'feed', 'ep5.txt')}: a plain-text transcript has no timings: not imported`]);
  });

  it('writes the same bytes when the same sources are imported again, and leaves the other channels of the library alone', async function () {
    const out = join(work, 'lib');
    await cp(join(process.cwd(), 'sample-library'), out, { recursive: true });
    const sampleBefore = await digest(out);
    await runImport({ source: join(DATA, 'feed', 'feed.xml'), out, log });
    const first = await digest(out);
    const again = await runImport({ source: join(DATA, 'feed', 'feed.xml'), out, log });
    expect([again.created, again.updated, again.unchanged]).to.deep.equal([0, 0, 4]);
    expect(await digest(out)).to.deep.equal(first);
    for (const [file, hash] of Object.entries(sampleBefore)) {
      if (['/users.json', '/channels.json', '/people.json', '/topics.json'].includes(file)) continue;
      expect(first[file], file).to.equal(hash);
    }
    const { meta, issues } = await readBack(out);
    expect(issues).to.deep.equal([]);
    expect(meta.channels.map((c) => c.id)).to.include.members(['ch_garden-hour', 'ch_long-field', 'ch_build-notes']);
    expect((await readdir(work)).sort(), 'no staging folder left').to.deep.equal(['lib']);
  });

  it('imports a yt-dlp folder: English captions chosen, rolling duplicates gone, chapters from info.json or the description, the damaged file skipped', async function () {
    const out = join(work, 'lib');
    const summary = await runImport({ source: join(DATA, 'ytdlp'), out, slug: 'roses', log });
    expect(summary.channel).to.deep.equal({
      id: 'ch_roses',
      slug: 'roses',
      title: 'Rose Garden TV',
      providerType: 'youtube',
      source: { kind: 'youtube', id: 'channel:UCrosegardentv0000000000', url: 'https://www.youtube.com/channel/UCrosegardentv0000000000' },
    });
    expect(summary.skipped.map((s) => s.item)).to.deep.equal(['Damaged [bad00000001].info.json']);
    const { episodes, issues } = await readBack(out);
    expect(issues).to.deep.equal([]);
    const pruning = episodes.find((e) => e.id === 'ep_yt_roses_abc123def45')!;
    expect(pruning).to.deep.include({ mediaUrl: 'https://www.youtube.com/watch?v=abc123def45', viewCount: 1200, topicIds: ['t_roses', 't_pruning'] });
    expect(pruning.transcript!.segments.map((s) => s.text)).to.deep.equal(['soil is alive', 'and fungi help', 'the roots']);
    expect(pruning.chapters!.map((c) => c.title)).to.deep.equal(['Why prune', 'How']);
    expect(episodes.find((e) => e.id === 'ep_yt_roses_xyz987uvw65')!.chapters!.map((c) => [c.title, c.startMs])).to.deep.equal([
      ['Start', 0],
      ['Depth', 30_000],
      ['Spacing', 70_000],
    ]);
    expect(summary.partial.find((p) => p.item === 'ep_yt_roses_short000001')!.notes).to.include('description timestamps are not chapters: the first timestamp is not 0:00');
  });

  it('archives, when asked, the episodes of the channel a source no longer holds, and publishes one again when it is back', async function () {
    const out = join(work, 'lib');
    const feedDir = join(work, 'feed');
    await cp(join(process.cwd(), 'sample-library'), out, { recursive: true });
    await cp(join(DATA, 'feed'), feedDir, { recursive: true });
    const sampleBefore = await digest(out);
    await runImport({ source: join(feedDir, 'feed.xml'), out, log });
    const full = await readFile(join(feedDir, 'feed.xml'), 'utf8');
    await writeFile(join(feedDir, 'feed.xml'), full.replace(/<item>\s*<title>Soil is alive<\/title>[\s\S]*?<\/item>/, ''));
    const kept = await runImport({ source: join(feedDir, 'feed.xml'), out, log });
    expect(kept.archived, 'not asked: nothing archived').to.equal(0);
    const pruned = await runImport({ source: join(feedDir, 'feed.xml'), out, log, archiveMissing: true });
    expect([pruned.archived, pruned.unchanged]).to.deep.equal([1, 3]);
    const status = async () => Object.fromEntries((await readBack(out)).episodes.map((e) => [e.title, e.status]));
    expect((await status())['Soil is alive']).to.equal('archived');
    const sampleAfter = await digest(out);
    for (const [file, hash] of Object.entries(sampleBefore)) if (file.startsWith('/episodes/')) expect(sampleAfter[file], `${file}, of another channel`).to.equal(hash);
    await writeFile(join(feedDir, 'feed.xml'), full);
    const back = await runImport({ source: join(feedDir, 'feed.xml'), out, log, archiveMissing: true });
    expect([back.updated, back.archived]).to.deep.equal([1, 0]);
    expect((await status())['Soil is alive']).to.equal('published');
  });

  it("chooses a video's captions in its spoken language when info.json names one", async function () {
    const folder = join(work, 'ytdlp');
    await cp(join(DATA, 'ytdlp'), folder, { recursive: true });
    const infoFile = join(folder, 'Pruning roses [abc123def45].info.json');
    await writeFile(infoFile, JSON.stringify({ ...(JSON.parse(await readFile(infoFile, 'utf8')) as object), language: 'de-DE' }));
    await runImport({ source: folder, out: join(work, 'lib'), slug: 'roses', log });
    const { episodes } = await readBack(join(work, 'lib'));
    expect(episodes.find((e) => e.id === 'ep_yt_roses_abc123def45')!.transcript!.segments.map((s) => s.text)).to.deep.equal(['Erde lebt']);
  });

  it('leaves the library as it was when a write fails, with no staging folder behind', async function () {
    const out = join(work, 'lib');
    await runImport({ source: join(DATA, 'feed', 'feed.xml'), out, log });
    const before = await digest(out);
    const bad = { id: 'ep_x/../../escape', channelId: 'ch_garden-hour', title: 'x', publishedAt: '2024-01-01T00:00:00Z', status: 'published' } as EpisodeRecord;
    const failed = await writeLibrary(
      out,
      { channel: { id: 'ch_other', slug: 'other', title: 'Other', providerType: 'rss' }, episodes: [bad], people: [], topics: [], items: [], warnings: [] },
      'u_x',
    ).catch((e: unknown) => e);
    expect(failed).to.be.instanceOf(Error);
    expect(await digest(out)).to.deep.equal(before);
    expect((await readdir(work)).sort()).to.deep.equal(['lib']);
  });

  describe('with --fetch, from a server on loopback', function () {
    let server: Server;
    let base: string;
    const hits: Record<string, number> = {};
    before(async function () {
      // /flaky.vtt fails twice with 503, then answers; /gone.vtt is a 404; /huge.vtt says it is 100 MB.
      server = createServer((req, res) => {
        const path = req.url ?? '';
        hits[path] = (hits[path] ?? 0) + 1;
        if (path === '/flaky.vtt' && hits[path]! <= 2) res.writeHead(503).end();
        else if (path === '/flaky.vtt') res.writeHead(200, { 'content-type': 'text/vtt' }).end('WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>Fetched after two failures.\n');
        else if (path === '/huge.vtt') res.writeHead(200, { 'content-length': String(100 * 1024 * 1024) }).end();
        else res.writeHead(404).end();
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(function () {
      server.close();
    });

    it('tries a 5xx again, takes a 404 and an oversized file as final with their reasons, and reports each item as it is read', async function () {
      const item = (n: number, path: string) =>
        `<item><title>Item ${n}</title><guid>g${n}</guid><pubDate>Tue, 0${n} Jan 2024 10:00:00 GMT</pubDate><podcast:transcript url="${base}${path}" type="text/vtt"/></item>`;
      const feed = join(work, 'feed.xml');
      await writeFile(
        feed,
        `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Fetched</title>${item(1, '/flaky.vtt')}${item(2, '/gone.vtt')}${item(3, '/huge.vtt')}</channel></rss>`,
      );
      const seen: [number, number][] = [];
      const summary = await runImport({
        source: feed,
        out: join(work, 'lib'),
        fetch: true,
        outbound: { allowPrivate: true },
        log,
        onItem: (done, total) => seen.push([done, total]),
      });
      expect(seen).to.deep.equal([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
      expect([hits['/flaky.vtt'], hits['/gone.vtt'], hits['/huge.vtt']], 'attempts per file').to.deep.equal([3, 1, 1]);
      const { episodes } = await readBack(join(work, 'lib'));
      expect(episodes.find((e) => e.title === 'Item 1')!.transcript!.segments.map((s) => [s.speakerLabel, s.text])).to.deep.equal([['Ana', 'Fetched after two failures.']]);
      expect(summary.partial.map((p) => p.notes[0])).to.deep.equal([`${base}/gone.vtt: the file answered 404`, `${base}/huge.vtt: the file is larger than 16 MB`]);
    });
  });
});
