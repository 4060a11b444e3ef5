// `npm run demo` as a person runs it: it serves the API over the sample library, and Ctrl-C ends it cleanly.
// The services here are given by URL (shared with other suites), so the demo must leave them be;
// that it stops the ones it started itself is decided by planDemoExit (unit-tested).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { deleteIndices } from '../../src/store/opensearch.js';
import { rawRequest } from '../support/api-harness.js';
import { closedPort } from '../support/api-net.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('demo', function () {
  this.timeout(240_000);
  const prefix = privatePrefix('demo');
  let demo: ChildProcess | undefined;

  after(async function () {
    if (demo && demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
    const client = testClient();
    await deleteIndices(client, prefix);
    await client.close();
  });

  it('stops the API on Ctrl-C, exits 0, and says the services given by URL keep running', async function () {
    const config = loadConfig(process.env);
    const port = await closedPort();
    // Its own process group, as in a terminal: Ctrl-C signals the demo and the API it started alike.
    demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/ops/demo.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
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
    expect(output).to.include('Ctrl-C stops the API.');
    const channels = await rawRequest(base, '/api/v1/channels', { headers: { 'x-api-key': (await key())! } });
    expect(channels.status).to.equal(200);
    expect(channels.body.channels.map((c: { slug: string }) => c.slug)).to.include('long-field');

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

    process.kill(-demo.pid!, 'SIGINT');
    const [code] = await exited;
    expect(code, output.slice(-2000)).to.equal(0);
    expect(output).to.include("demo: OpenSearch comes from OPENSEARCH_URL: not the demo's to stop.");
    expect(output).to.include("demo: Redis comes from REDIS_URL: not the demo's to stop.");
    expect(
      await rawRequest(base, '/healthz').then(
        () => 'answered',
        () => 'closed',
      ),
      'the API is gone',
    ).to.equal('closed');
    expect((await fetch(config.opensearchUrl)).status, 'OpenSearch still answers').to.equal(200);
  });
});
