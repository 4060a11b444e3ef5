// The follow commands' other paths on loopback, against the real OpenSearch and Redis: --list, --stop, --retry,
// --archive-missing, show-note chapters, a moved enclosure under the same guid, a failed item whose enclosure
// changed, Retry-After, a feed that answers 404 or garbage, and a yt-dlp folder. Every item carries an SRT
// transcript (or fails before transcription), so nothing here waits on the transcriber: its URL is a counting relay
// to nowhere, asked zero times.
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { ensureIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { createPollQueue, schedulerId } from '../../pipeline/follow/queues.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { REPO_ROOT } from '../../scripts/lib/child.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { startCountingRelay, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { countDocs, privatePrefix, testClient } from '../support/indexer-env.js';
import { dropFollowStore, runFollow, startSuiteWorkers, until } from '../support/follow-env.js';

const OWNER = 'u_follow_cli';
const INTERVAL_SECONDS = 600;
const day = (n: number) => new Date(Date.UTC(2026, 1, n));
const clock = (seconds: number) => `00:${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')},000`;
/** An SRT file of `lines`, one cue each, four seconds apart. */
const srt = (...lines: string[]) => lines.map((text, i) => `${i + 1}\n${clock(i * 4)} --> ${clock(i * 4 + 3)}\n${text}\n`).join('\n');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Row {
  id: string;
  title: string;
  status: string;
  error: string | null;
  chapterTitles?: string[];
}

/** One `--list` line, by its tab-separated fields. */
interface Listed {
  slug: string;
  source: string;
  lastPoll: string;
  items: string;
  errors: string;
  failed: string;
  next: string;
}

describe('follow: the commands and the paths around the happy one', function () {
  this.timeout(180_000);
  const config = loadConfig(process.env);
  let client: Client;
  let prefix: string;
  let libraryDir: string;
  let work: string;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let env: Record<string, string>;
  /** The follow CLI's embedder (EMBEDDER=openai): the hash embedder served over the embeddings protocol. */
  let embeddings: HashEmbeddingsServer;
  let workers: PipelineWorkers | undefined;
  const servers: FeedServer[] = [];

  /** `npm run follow -- …` as a child process. */
  const follow = (...args: string[]): Promise<Run> => runFollow(args, env);

  const ok = async (...args: string[]): Promise<string> => {
    const r = await follow(...args);
    expect(r.code, `follow ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  };

  /** The `--list` line of `slug`. */
  const listed = async (slug: string): Promise<Listed> => {
    const line = (await ok('--list')).split('\n').find((l) => l.startsWith(`${slug}\t`));
    expect(line, `${slug} in --list`).to.be.a('string');
    const [, source, lastPoll, items, errors, failed, next] = line!.split('\t') as string[];
    return { slug, source: source!, lastPoll: lastPoll!, items: items!, errors: errors!, failed: failed!, next: next! };
  };

  /** Seconds from the last poll to the next one, as `--list` shows them. */
  const wait = (l: Listed): number => {
    const last = /^last poll (\S+):/.exec(l.lastPoll)?.[1];
    const next = /^next poll (\S+)$/.exec(l.next)?.[1];
    expect(last, l.lastPoll).to.be.a('string');
    expect(next, l.next).to.be.a('string');
    return (Date.parse(next!) - Date.parse(last!)) / 1000;
  };

  const rows = async (slug: string): Promise<Map<string, Row>> => {
    const index = indexAliases(prefix).episodes;
    await client.indices.refresh({ index });
    const res = await client.search({ index, body: { size: 100, query: { term: { channelId: `ch_${slug}` } } } } as never);
    return new Map((res.body as { hits: { hits: { _source: Row }[] } }).hits.hits.map((h) => [h._source.title, h._source]));
  };

  const statusOf = async (slug: string, title: string): Promise<string | undefined> => (await rows(slug)).get(title)?.status;

  const episodeFile = async (slug: string, id: string) =>
    JSON.parse(await readFile(join(libraryDir, slug, 'episodes', `${id}.json`), 'utf8')) as {
      id: string;
      status: string;
      error: string | null;
      chapters: { title: string; startMs: number }[];
      transcript: { segments: { text: string }[] } | null;
    };

  const serve = async (items: FeedServerItem[] = []): Promise<FeedServer> => {
    const server = await startFeedServer({ title: 'Loopback Bakery', items });
    servers.push(server);
    return server;
  };

  const startWorkers = (): Promise<PipelineWorkers> => startSuiteWorkers({ client, prefix, env, embeddings, lockDurationMs: 3000, stalledIntervalMs: 1000 });

  const schedulers = async (): Promise<string[]> => {
    const connection = createRedisConnection(config.redisUrl);
    const queue = createPollQueue(connection, prefix);
    try {
      return (await queue.getJobSchedulers(0, -1)).map((s) => s.id ?? s.key);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  };

  before(async function () {
    client = testClient();
    prefix = privatePrefix('follow-cli');
    libraryDir = await mkdtemp(join(tmpdir(), 'follow-cli-lib-'));
    work = await mkdtemp(join(tmpdir(), 'follow-cli-work-'));
    relay = await startCountingRelay('http://127.0.0.1:9');
    embeddings = await startHashEmbeddingsServer();
    env = {
      INDEX_PREFIX: prefix,
      FOLLOW_LIBRARY_DIR: libraryDir,
      OUTBOUND_ALLOW_PRIVATE: 'true',
      TRANSCRIBE_URL: relay.url,
      FOLLOW_POLL_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
      LOG_LEVEL: 'warn',
      ...embeddings.env,
    };
    const aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: OWNER, body: userDocument({ id: OWNER, name: 'Owner', plan: 'paid' }), refresh: true } as never);
    workers = await startWorkers();
  });

  after(async function () {
    await workers?.close();
    await embeddings?.close();
    if (!client) return;
    await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    for (const s of servers) await s.close();
    await relay?.close();
    await rm(libraryDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  afterEach(function () {
    // Every item here has its transcript in the feed or fails before transcription.
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
  });

  it('--list shows the last poll, its HTTP outcome, items seen, errors and the next poll', async function () {
    const feed = await serve([
      { guid: 'a', title: 'A', pubDate: day(1), transcript: { path: '/srt/a.srt', type: 'application/srt' } },
      { guid: 'b', title: 'B', pubDate: day(2), transcript: { path: '/srt/b.srt', type: 'application/srt' } },
    ]);
    await ok(feed.feedUrl, '--channel', 'list-radio', '--owner', OWNER);
    let l = await listed('list-radio');
    expect(l.source).to.equal(feed.feedUrl);
    expect(l.lastPoll).to.match(/^last poll \d{4}-\d\d-\d\dT[\d:.]+Z: 200$/);
    expect(l.items).to.equal('2 items');
    expect(l.errors).to.equal('0 poll errors');
    expect(wait(l)).to.equal(INTERVAL_SECONDS);

    expect(await ok('--poll', 'list-radio')).to.match(/list-radio: 304/);
    l = await listed('list-radio');
    expect(l.lastPoll).to.match(/: 304$/);
    expect(l.items).to.equal('2 items');
    expect(wait(l)).to.equal(INTERVAL_SECONDS);
  });

  it('publishes the chapters an item lists as timestamps in its HTML show notes', async function () {
    const feed = await serve([
      {
        guid: 'starter',
        title: 'Starter',
        pubDate: day(1),
        durationSeconds: 200,
        description: '<p>00:00 Feeding the starter<br>01:20 Folding<br>02:40 Baking</p>',
        transcript: { path: '/srt/starter.srt', type: 'application/srt' },
      },
    ]);
    feed.setFile('/srt/starter.srt', srt('Feed the starter twice a day.', 'Fold gently.'), 'application/srt');
    await ok(feed.feedUrl, '--channel', 'notes-radio', '--owner', OWNER);
    await until('Starter published', async () => (await statusOf('notes-radio', 'Starter')) === 'published');
    const row = (await rows('notes-radio')).get('Starter')!;
    expect(row.chapterTitles).to.deep.equal(['Feeding the starter', 'Folding', 'Baking']);
    const stored = await episodeFile('notes-radio', row.id);
    expect(stored.chapters.map((c) => [c.title, c.startMs])).to.deep.equal([
      ['Feeding the starter', 0],
      ['Folding', 80_000],
      ['Baking', 160_000],
    ]);
  });

  it('treats a changed enclosure URL under the same guid as an update: same episode, processed again, one catalog row', async function () {
    const item: FeedServerItem = { guid: 'rye', title: 'Rye', pubDate: day(1), enclosure: '/audio/rye.mp3', transcript: { path: '/srt/rye.srt', type: 'application/srt' } };
    const feed = await serve([item]);
    feed.setFile('/srt/rye.srt', srt('Rye takes longer to rise.'), 'application/srt');
    await ok(feed.feedUrl, '--channel', 'moved-radio', '--owner', OWNER);
    await until('Rye published', async () => (await statusOf('moved-radio', 'Rye')) === 'published');
    const id = (await rows('moved-radio')).get('Rye')!.id;

    // The host re-uploads the audio to a new URL with a corrected transcript at the same address.
    item.enclosure = '/audio/rye-v2.mp3';
    feed.setFile('/srt/rye.srt', srt('Rye loves a warm kitchen.'), 'application/srt');
    const out = await ok('--poll', 'moved-radio');
    expect(out).to.match(/0 new, 0 updated, 1 to process again/);
    await until('Rye processed again', async () => (await episodeFile('moved-radio', id)).transcript?.segments[0]?.text === 'Rye loves a warm kitchen.');
    const now = await rows('moved-radio');
    expect([...now.keys()]).to.deep.equal(['Rye']);
    expect(now.get('Rye')).to.include({ id, status: 'published' });
    expect(await countDocs(client, prefix, 'episodes', { term: { id } })).to.equal(1);
    expect((await readdir(join(libraryDir, 'moved-radio', 'episodes'))).filter((f) => f.endsWith('.json'))).to.deep.equal([`${id}.json`]);
  });

  it('retries on the next poll a failed item whose enclosure changed, and not before', async function () {
    const item: FeedServerItem = { guid: 'pie', title: 'Pie', pubDate: day(1), enclosure: '/audio/pie-missing.mp3', transcript: { path: '/srt/pie.srt', type: 'application/srt' } };
    const feed = await serve([item]);
    await ok(feed.feedUrl, '--channel', 'fixed-radio', '--owner', OWNER);
    await until('Pie failed', async () => (await statusOf('fixed-radio', 'Pie')) === 'failed');
    expect((await rows('fixed-radio')).get('Pie')!.error).to.equal('the audio URL answered 404');

    // The transcript now answers, but the feed is the same: the next poll has nothing to retry.
    feed.setFile('/srt/pie.srt', srt('Blind bake the crust first.'), 'application/srt');
    expect(await ok('--poll', 'fixed-radio')).to.match(/fixed-radio: 304; .*0 queued for transcription/);
    expect(await statusOf('fixed-radio', 'Pie')).to.equal('failed');

    item.enclosure = '/audio/pie.mp3';
    expect(await ok('--poll', 'fixed-radio')).to.match(/1 to process again, 0 archived; 1 queued for transcription/);
    await until('Pie published', async () => (await statusOf('fixed-radio', 'Pie')) === 'published');
    const id = (await rows('fixed-radio')).get('Pie')!.id;
    expect((await episodeFile('fixed-radio', id)).transcript!.segments.map((s) => s.text)).to.deep.equal(['Blind bake the crust first.']);
    expect((await listed('fixed-radio')).failed).to.equal('0 failed episodes');
  });

  it('--retry retries a failed item now, and it is published once its transcript answers', async function () {
    const feed = await serve([{ guid: 'scone', title: 'Scones', pubDate: day(1), transcript: { path: '/srt/scones.srt', type: 'application/srt' } }]);
    await ok(feed.feedUrl, '--channel', 'retry-radio', '--owner', OWNER);
    await until('Scones failed', async () => (await statusOf('retry-radio', 'Scones')) === 'failed');
    // The creator's sentence: what failed, without the URL (which the log has, with what the fetcher found there).
    expect((await rows('retry-radio')).get('Scones')!.error).to.equal('the transcript file could not be read, and the item has no audio');
    expect((await listed('retry-radio')).failed).to.equal('1 failed episodes');

    feed.setFile('/srt/scones.srt', srt('Cold butter makes flaky scones.'), 'application/srt');
    expect(await ok('--retry', 'retry-radio')).to.match(/retry-radio: 1 failed episode\(s\) queued again/);
    await until('Scones published', async () => (await statusOf('retry-radio', 'Scones')) === 'published');
    const row = (await rows('retry-radio')).get('Scones')!;
    expect(row.error).to.equal(null);
    expect((await episodeFile('retry-radio', row.id)).transcript!.segments.map((s) => s.text)).to.deep.equal(['Cold butter makes flaky scones.']);
    expect((await listed('retry-radio')).failed).to.equal('0 failed episodes');
    expect(await ok('--retry', 'retry-radio')).to.match(/: 0 failed episode\(s\) queued again/);
  });

  it('archives an item that left the feed only with --archive-missing', async function () {
    const items: FeedServerItem[] = ['one', 'two'].map((g, i) => ({
      guid: g,
      title: `Loaf ${g}`,
      pubDate: day(i + 1),
      transcript: { path: `/srt/${g}.srt`, type: 'application/srt' },
    }));
    const feed = await serve(items);
    for (const g of ['one', 'two']) feed.setFile(`/srt/${g}.srt`, srt(`Loaf ${g} is done.`), 'application/srt');
    await ok(feed.feedUrl, '--channel', 'keep-radio', '--owner', OWNER);
    await ok(feed.feedUrl, '--channel', 'archive-radio', '--owner', OWNER, '--archive-missing');
    for (const slug of ['keep-radio', 'archive-radio']) {
      await until(`${slug} published`, async () => [...(await rows(slug)).values()].every((r) => r.status === 'published'));
    }

    feed.removeItem('two');
    expect(await ok('--poll', 'keep-radio')).to.match(/keep-radio: 200; .*0 archived/);
    expect(await ok('--poll', 'archive-radio')).to.match(/archive-radio: 200; .*1 archived/);
    expect(await statusOf('keep-radio', 'Loaf two')).to.equal('published');
    expect(await statusOf('archive-radio', 'Loaf two')).to.equal('archived');
    expect(await statusOf('archive-radio', 'Loaf one')).to.equal('published');

    // It comes back: published again on its kept transcript, nothing processed.
    feed.addItem(items[1]!);
    expect(await ok('--poll', 'archive-radio')).to.match(/0 new, 1 updated, 0 to process again, 0 archived; 0 queued/);
    expect(await statusOf('archive-radio', 'Loaf two')).to.equal('published');
  });

  it('--stop removes the scheduler, keeps the episodes, shows it stopped, and a later worker start does not re-create it', async function () {
    const feed = await serve([{ guid: 'bun', title: 'Buns', pubDate: day(1), transcript: { path: '/srt/bun.srt', type: 'application/srt' } }]);
    feed.setFile('/srt/bun.srt', srt('Buns want a soft crumb.'), 'application/srt');
    await ok(feed.feedUrl, '--channel', 'stop-radio', '--owner', OWNER);
    await ok(feed.feedUrl, '--channel', 'still-radio', '--owner', OWNER);
    await until('Buns published', async () => (await statusOf('stop-radio', 'Buns')) === 'published');
    expect(await schedulers()).to.include(schedulerId('stop-radio'));

    expect(await ok('--stop', 'stop-radio')).to.match(/stop-radio: stopped following .*; its episodes stay/);
    expect(await schedulers()).to.not.include(schedulerId('stop-radio'));
    expect(await statusOf('stop-radio', 'Buns')).to.equal('published');
    expect(await readdir(join(libraryDir, 'stop-radio', 'episodes'))).to.have.length(1);
    expect((await listed('stop-radio')).next).to.match(/^stopped \d{4}-/);

    const sent = feed.requests.length;
    expect(await ok('--poll', 'stop-radio')).to.match(/stop-radio: stopped/);
    expect(feed.requests.length, 'a stopped source is not fetched').to.equal(sent);

    await workers?.close();
    workers = await startWorkers();
    const now = await schedulers();
    expect(now, 'the source still followed keeps its scheduler').to.include(schedulerId('still-radio'));
    expect(now).to.not.include(schedulerId('stop-radio'));
    expect(await statusOf('stop-radio', 'Buns')).to.equal('published');
  });

  it('finishes the work a source had queued when it was stopped, and --retry still retries its failed items', async function () {
    await workers?.close();
    workers = undefined;
    const feed = await serve([
      { guid: 'rolls', title: 'Rolls', pubDate: day(1), transcript: { path: '/srt/rolls.srt', type: 'application/srt' } },
      { guid: 'bagels', title: 'Bagels', pubDate: day(2), transcript: { path: '/srt/bagels.srt', type: 'application/srt' } },
    ]);
    feed.setFile('/srt/rolls.srt', srt('Rolls bake in twenty minutes.'), 'application/srt');
    await ok(feed.feedUrl, '--channel', 'halt-radio', '--owner', OWNER);
    await ok('--stop', 'halt-radio');
    expect([...(await rows('halt-radio')).values()].map((r) => r.status)).to.deep.equal(['pending', 'pending']);

    // Stopping ends the polls, not the episodes already seen: none is left pending for ever.
    workers = await startWorkers();
    await until('Rolls published', async () => (await statusOf('halt-radio', 'Rolls')) === 'published');
    await until('Bagels failed', async () => (await statusOf('halt-radio', 'Bagels')) === 'failed');
    feed.setFile('/srt/bagels.srt', srt('Boil bagels before baking.'), 'application/srt');
    expect(await ok('--retry', 'halt-radio')).to.match(/halt-radio: 1 failed episode\(s\) queued again/);
    await until('Bagels published', async () => (await statusOf('halt-radio', 'Bagels')) === 'published');
    expect((await listed('halt-radio')).next).to.match(/^stopped /);
  });

  it('honours Retry-After on a 503 or 429 feed answer: the next poll is pushed out, and --list shows it', async function () {
    const feed = await serve([{ guid: 'c', title: 'Crumpets', pubDate: day(1), transcript: { path: '/srt/c.srt', type: 'application/srt' } }]);
    await ok(feed.feedUrl, '--channel', 'busy-radio', '--owner', OWNER);

    feed.setFeedAnswer({ status: 503, headers: { 'Retry-After': '5400' }, body: 'busy' });
    const r = await follow('--poll', 'busy-radio');
    expect(r.code).to.equal(1);
    expect(r.stdout).to.match(/busy-radio: error \(HTTP 503\)/);
    let l = await listed('busy-radio');
    expect(l.lastPoll).to.match(/: error \(HTTP 503\)$/);
    expect(l.errors).to.equal('1 poll errors (last: the feed answered 503)');
    // The backoff alone would wait 2 × 600 s.
    expect(wait(l)).to.equal(5400);

    const date = new Date(Date.now() + 3 * 3600_000);
    feed.setFeedAnswer({ status: 429, headers: { 'Retry-After': date.toUTCString() }, body: 'slow down' });
    expect((await follow('--poll', 'busy-radio')).code).to.equal(1);
    l = await listed('busy-radio');
    expect(l.lastPoll).to.match(/: error \(HTTP 429\)$/);
    expect(l.errors).to.equal('2 poll errors (last: the feed answered 429)');
    expect(Date.parse(/^next poll (\S+)$/.exec(l.next)![1]!)).to.be.within(date.getTime() - 1000, date.getTime() + 1000);
  });

  it('shows a feed answering 404 or garbage as a clear error in --list, and backs off', async function () {
    const feed = await serve([{ guid: 'd', title: 'Doughnuts', pubDate: day(1), transcript: { path: '/srt/d.srt', type: 'application/srt' } }]);
    await ok(feed.feedUrl, '--channel', 'gone-radio', '--owner', OWNER);

    feed.setFeedAnswer({ status: 404, body: 'not found' });
    expect((await follow('--poll', 'gone-radio')).code).to.equal(1);
    let l = await listed('gone-radio');
    expect(l.lastPoll).to.match(/: error \(HTTP 404\)$/);
    expect(l.errors).to.equal('1 poll errors (last: the feed answered 404)');
    expect(wait(l)).to.equal(2 * INTERVAL_SECONDS);

    feed.setFeedAnswer({ status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html><body>Our new website!</body></html>' });
    const r = await follow('--poll', 'gone-radio');
    expect(r.code).to.equal(1);
    expect(r.stdout).to.match(/error: the feed is not an RSS feed/);
    l = await listed('gone-radio');
    expect(l.lastPoll).to.match(/: error$/);
    expect(l.errors).to.match(/^2 poll errors \(last: the feed is not an RSS feed/);
    expect(wait(l)).to.equal(4 * INTERVAL_SECONDS);
    expect(l.items, 'the items seen before stay').to.equal('1 items');
    expect(await statusOf('gone-radio', 'Doughnuts')).to.not.equal(undefined);

    // Back to normal: the validators of the last good answer still hold, and the backoff ends.
    feed.setFeedAnswer(undefined);
    expect(await ok('--poll', 'gone-radio')).to.match(/gone-radio: 304/);
    l = await listed('gone-radio');
    expect(l.errors).to.equal('2 poll errors');
    expect(wait(l)).to.equal(INTERVAL_SECONDS);
  });

  it('follows a yt-dlp download folder: its videos published with their captions, re-read on --poll', async function () {
    const folder = join(work, 'ytdlp');
    await cp(join(REPO_ROOT, 'test', 'data', 'import', 'ytdlp'), folder, { recursive: true });
    const out = await ok(folder, '--channel', 'yt-shelf', '--owner', OWNER);
    expect(out).to.match(/yt-shelf: 200; 3 items; 3 new/);
    expect(out).to.match(/skipped Damaged/);
    const now = await rows('yt-shelf');
    expect([...now.keys()].sort()).to.deep.equal(['Broken chapters', 'Planting bulbs', 'Pruning roses']);
    expect([...now.values()].map((r) => r.status)).to.deep.equal(['published', 'published', 'published']);
    const roses = now.get('Pruning roses')!;
    expect(await countDocs(client, prefix, 'passages', { term: { episodeId: roses.id } })).to.be.greaterThan(0);
    expect((await listed('yt-shelf')).source).to.equal(folder);

    expect(await ok('--poll', 'yt-shelf')).to.match(/yt-shelf: unchanged; 3 items; 0 new, 0 updated/);

    const info = join(folder, 'Pruning roses [abc123def45].info.json');
    const json = JSON.parse(await readFile(info, 'utf8')) as { title: string };
    await writeFile(info, JSON.stringify({ ...json, title: 'Pruning roses in March' }));
    expect(await ok('--poll', 'yt-shelf')).to.match(/yt-shelf: 200; 3 items; 0 new, 1 updated/);
    const after = await rows('yt-shelf');
    expect(after.get('Pruning roses in March')).to.include({ id: roses.id, status: 'published' });
    expect(after.size).to.equal(3);
  });
});
