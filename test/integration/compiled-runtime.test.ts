// `npm run build` output runs under plain Node: the API answers from dist/ and the worker creates its indices from the shipped mappings; tsx is a development tool only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, deleteIndices } from '../../core/store/opensearch.js';
import { freePort, waitFor } from '../../scripts/lib/child.js';
import { useWorldStore } from '../support/api-world.js';
import { REPO_ROOT } from '../support/indexer-env.js';

/** Built here, inside the checkout, so that the compiled code finds package.json and mappings/ above it as dist/ does. */
const OUT_DIR = join(REPO_ROOT, '.cache', 'build-test');

function startNode(entry: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [join(OUT_DIR, entry)], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe('compiled runtime: npm start and the worker run the JavaScript of npm run build', function () {
  this.timeout(120_000);
  // Labelled with the configured model: `npm start` refuses an index built for another embedder (the world holds no vectors).
  const world = useWorldStore({ modelId: loadConfig(process.env).modelId });

  before(function () {
    rmSync(OUT_DIR, { recursive: true, force: true });
    const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', OUT_DIR], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(tsc.status, tsc.stdout + tsc.stderr).to.equal(0);
  });
  after(function () {
    rmSync(OUT_DIR, { recursive: true, force: true });
  });

  it('declares start and worker as node over dist/, and tsx as a development dependency only', function () {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts.start).to.equal('node dist/src/server.js');
    expect(pkg.scripts.worker).to.equal('node dist/bin/worker.js');
    expect(pkg.scripts.build).to.match(/^tsc -p tsconfig\.build\.json/);
    expect(pkg.dependencies).to.not.have.property('tsx');
    expect(pkg.devDependencies).to.have.property('tsx');
  });

  it('serves the API from compiled JavaScript: health, the OpenAPI document, a search and the MCP tool list', async function () {
    const port = await freePort();
    const { child, output } = startNode('src/server.js', {
      INDEX_PREFIX: world.store.prefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      ANONYMOUS_READ: 'published',
      METRICS_PORT: '',
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      expect(await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true, 60_000), output()).to.equal(true);
      expect((await fetch(`${base}/api/v1/openapi.json`)).status).to.equal(200);
      const search = await fetch(`${base}/api/v1/channels/alpha/search?q=tomatoes&fast=true`);
      expect(search.status).to.equal(200);
      expect(((await search.json()) as { episodes: unknown[] }).episodes.length).to.be.greaterThan(0);
      const mcp = await fetch(`${base}/channels/alpha/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
      const init = (await mcp.json()) as { result: { serverInfo: { version: string } } };
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(init.result.serverInfo.version, 'read from package.json above dist/').to.equal(version);
    } finally {
      await stop(child);
    }
  });

  it('runs enrichment in its thread from compiled JavaScript, without tsx', function () {
    // The thread's entry is the compiled enrich-thread-worker.js beside enrich-thread.js; a constant vector is enough here.
    const script = `
      import { startEnrichThread } from ${JSON.stringify(pathToFileURL(join(OUT_DIR, 'pipeline/enrich/enrich-thread.js')).href)};
      import { readFileSync } from 'node:fs';
      const record = JSON.parse(readFileSync('sample-library/episodes/bn-001-flaky-tests.json', 'utf8'));
      const thread = startEnrichThread({ embed: async (texts) => texts.map(() => [1, 0, 0]), deadlineMs: 60000 });
      const r = await thread.enrich({ ...record, chapters: [], topicIds: [] }, { dir: 'sample-library', channelLanguage: 'en' });
      await thread.close();
      process.stdout.write(JSON.stringify({ outcome: r.outcome, chapters: r.made.chapters?.length ?? 0 }));`;
    // A file, not `-e`: a thread inherits the process's options, and `--input-type` is refused for a file entry.
    const file = join(OUT_DIR, 'enrich-thread-check.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).to.equal(0);
    const result = JSON.parse(run.stdout) as { outcome: string; chapters: number };
    expect(result.outcome).to.equal('enriched');
    expect(result.chapters).to.be.greaterThan(0);
  });

  it('runs the worker from compiled JavaScript: it creates its indices from mappings/ and waits for jobs', async function () {
    const prefix = `compiled-${process.pid}-`;
    const { child, output } = startNode('bin/worker.js', { INDEX_PREFIX: prefix, QUEUE_NAME: `${prefix}ingest`, EMBED_CACHE_DIR: '' });
    const client = createOpenSearchClient({ url: loadConfig(process.env).opensearchUrl, timeoutMs: 30_000 });
    try {
      expect(await waitFor(async () => /worker started/.test(output()), 90_000), output()).to.equal(true);
      const { body } = await client.indices.getAlias({ name: `${prefix}*` });
      expect(
        Object.values(body)
          .flatMap((i) => Object.keys((i as { aliases: object }).aliases))
          .sort(),
      ).to.include.members([`${prefix}passages`, `${prefix}episodes`]);
    } finally {
      await stop(child);
      await deleteIndices(client, prefix).catch(() => undefined);
      await client.close();
    }
  });
});
