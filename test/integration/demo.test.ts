// `npm run demo` as a person runs it: it serves the API over the sample library, follows its own spoken feed until
// every episode is live, and Ctrl-C ends it cleanly. The services here are given by URL (shared with other suites),
// so the demo must leave them be; that it stops the ones it started itself is decided by planDemoExit (unit-tested).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { deleteIndices } from '../../core/store/opensearch.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { readDemoFeed } from '../../scripts/ops/demo-feed.js';
import { rawRequest } from '../support/api-harness.js';
import { closedPort } from '../support/api-net.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';
import { skipUnprovisioned } from '../support/skip.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('demo', function () {
  this.timeout(300_000);
  const prefix = privatePrefix('demo');
  let demo: ChildProcess | undefined;
  let libraryDir: string | undefined;
  let logDir: string | undefined;

  before(function () {
    if (!process.env.TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
  });

  after(async function () {
    if (demo && demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
    const client = testClient();
    await deleteIndices(client, prefix);
    await client.close();
    const connection = createRedisConnection(loadConfig(process.env).redisUrl);
    for (const q of [createPollQueue(connection, prefix), createProcessQueue(connection, prefix)]) {
      await q.obliterate({ force: true });
      await q.close();
    }
    connection.disconnect();
    if (libraryDir) await rm(libraryDir, { recursive: true, force: true });
    if (logDir) await rm(logDir, { recursive: true, force: true });
  });

  it('follows its spoken feed until every episode is live, then stops the API and the pipeline on Ctrl-C, exits 0, and says the services given by URL keep running', async function () {
    const config = loadConfig(process.env);
    const port = await closedPort();
    libraryDir = await mkdtemp(join(tmpdir(), 'demo-follow-'));
    logDir = await mkdtemp(join(tmpdir(), 'demo-logs-'));
    // Its own process group, as in a terminal: Ctrl-C signals the demo and the API it started alike.
    demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/ops/demo.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', FOLLOW_LIBRARY_DIR: libraryDir, DEMO_LOG_DIR: logDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    demo.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    demo.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = once(demo, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

    const base = `http://127.0.0.1:${port}`;
    const key = async () => /API key for u_member \(shown once\): (\S+)/.exec(output)?.[1];
    for (let i = 0; ; i++) {
      const ready =
        (await key()) &&
        (await rawRequest(base, '/healthz').then(
          (r) => r.status === 200,
          () => false,
        ));
      if (ready) break;
      if (demo.exitCode !== null || i > 900) throw new Error(`the demo did not serve the API:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).to.include('Ctrl-C stops the API and the pipeline.');
    const channels = await rawRequest(base, '/api/v1/channels', { headers: { 'x-api-key': (await key())! } });
    expect(channels.status).to.equal(200);
    expect(channels.body.channels.map((c: { slug: string }) => c.slug)).to.include('long-field');

    // The creator's console sign-in: a one-time link on this server that opens its set-a-password form (not spent by looking).
    const link = new URL(/Console sign-in for u_member \(a one-time link; it sets a password\): (\S+)/.exec(output)?.[1] ?? 'http://missing/');
    expect(link.origin).to.equal(`http://localhost:${port}`);
    for (const _look of [1, 2]) {
      const form = await rawRequest(base, link.pathname, { headers: { host: link.host } });
      expect(form.status).to.equal(200);
      expect(form.text).to.match(/<input[^>]+type="password"/);
    }

    // A citation the demo's API gives is a URL of this very server: following it opens the cited moment.
    const search = await rawRequest(base, '/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy', { headers: { 'x-api-key': (await key())! } });
    expect(search.status).to.equal(200);
    const cited = new URL(search.body.episodes[0].segments[0].url);
    expect(cited.origin).to.equal(`http://long-field.localhost:${port}`);
    expect(output, 'the printed page link').to.include(`http://long-field.localhost:${port}/search?q=`);
    const page = await rawRequest(base, cited.pathname + cited.search, { headers: { host: cited.host } });
    expect(page.status).to.equal(200);
    const current = /<[^>]+aria-current="time"[^>]*>/.exec(page.text)?.[0];
    const [start, end] = ['start', 'end'].map((edge) => Number(new RegExp(`data-${edge}-ms="(\\d+)"`).exec(current ?? '')?.[1]));
    expect(Number(cited.searchParams.get('t')), 'the current segment holds the cited moment').to.be.within(start!, end!);

    // The followed channel: every spoken episode shown queued, then indexing, then live, as it happened.
    const feed = await readDemoFeed();
    for (let i = 0; !/spoken episodes are live/.test(output); i++) {
      if (demo.exitCode !== null || i > 1200) throw new Error(`the demo did not make its spoken episodes live:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).to.include(`${feed.episodes.length} of ${feed.episodes.length} spoken episodes are live`);
    for (const e of feed.episodes) {
      const queued = output.indexOf(`${e.title}: queued`);
      const live = output.indexOf(`${e.title}: indexing → live`);
      expect(queued, `${e.title} shown queued`).to.be.greaterThan(-1);
      expect(live, `${e.title} shown going live after it was queued`).to.be.greaterThan(queued);
    }
    const listed = await rawRequest(base, '/api/v1/channels/spoken-demo/episodes?status=all&limit=100', { headers: { 'x-api-key': (await key())! } });
    expect(listed.status).to.equal(200);
    const episodes = listed.body.episodes as { id: string; title: string; status: string }[];
    expect(episodes.map((e) => e.status)).to.deep.equal(feed.episodes.map(() => 'published'));
    // The printed search for a spoken sentence cites the episode that says it, at a moment of this server.
    const command = /curl -s -H "x-api-key: \S+" "(http:\/\/127\.0\.0\.1:\d+)(\/api\/v1\/channels\/spoken-demo\/search\?query=[^"]+)"/.exec(output);
    expect(command, 'the printed search command').to.not.equal(null);
    const spoken = await rawRequest(base, command![2]!, { headers: { 'x-api-key': (await key())! } });
    expect(spoken.status).to.equal(200);
    const sayer = feed.episodes.find((e) =>
      e.sentences.some((s) => s.toLowerCase().replace(/[.,]/g, '') === decodeURIComponent(new URL(command![2]!, base).searchParams.get('query')!)),
    );
    const top = spoken.body.episodes[0] as { episodeId: string; segments: { url: string }[] };
    expect(top.episodeId).to.equal(episodes.find((e) => e.title === sayer?.title)?.id);
    expect(new URL(top.segments[0]!.url).origin).to.equal(`http://spoken-demo.localhost:${port}`);
    // Enriched before publishing: the spoken episode has a generated chapter with typed moments, said so.
    const chapters = await rawRequest(base, `/api/v1/episodes/${top.episodeId}/chapters`, { headers: { 'x-api-key': (await key())! } });
    expect(chapters.status).to.equal(200);
    const generated = chapters.body as unknown as { generated: boolean; moments: { generated: boolean; type: string }[] }[];
    expect(generated.length, 'generated chapters of a spoken episode').to.be.greaterThan(0);
    expect(generated.every((c) => c.generated && c.moments.length > 0 && c.moments.every((m) => m.generated))).to.equal(true);

    process.kill(-demo.pid!, 'SIGINT');
    const [code] = await exited;
    expect(code, output.slice(-2000)).to.equal(0);
    expect(output).to.include("demo: OpenSearch comes from OPENSEARCH_URL: not the demo's to stop.");
    expect(output).to.include("demo: Redis comes from REDIS_URL: not the demo's to stop.");
    expect(output).to.include("demo: The transcription service comes from TRANSCRIBE_URL: not the demo's to stop.");
    expect(
      await rawRequest(base, '/healthz').then(
        () => 'answered',
        () => 'closed',
      ),
      'the API is gone',
    ).to.equal('closed');
    expect((await fetch(config.opensearchUrl)).status, 'OpenSearch still answers').to.equal(200);

    // The terminal holds the demo's own lines; the structured logs went to files (the API's requests included).
    expect(output, 'no JSON log line on the terminal').to.not.match(/^\{"level":/m);
    expect(output, 'the terminal says where the logs are').to.include(`${logDir}/demo.log`);
    const apiLog = await readFile(join(logDir, 'api.log'), 'utf8');
    expect(apiLog, "the API's request lines").to.match(/"path":"\/api\/v1\/channels"/);
    const demoLog = await readFile(join(logDir, 'demo.log'), 'utf8');
    expect(demoLog, "the demo's own structured lines").to.include('"msg":"sample library loaded"');
  });
});
