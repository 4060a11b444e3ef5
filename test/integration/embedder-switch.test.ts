// Switching embedders: a mismatch refused at start, and `reindex` from local bge-small to the remote service with the API answering throughout.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { createEmbedder, type Embedder } from '../../src/embedding/embedder.js';
import { configuredSignature, createConfiguredEmbedder } from '../../src/embedding/configured.js';
import { indexEmbedder } from '../../src/embedding/index-signature.js';
import { withEmbeddingCache } from '../../src/embedding/embedding-cache.js';
import { deleteIndices, indexAliases, type Client } from '../../src/store/opensearch.js';
import type { PassageDoc } from '../../src/store/documents.js';
import { textHash } from '../../indexer/documents.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { reindex } from '../../indexer/reindex.js';
import { scrollHits } from '../../indexer/scroll.js';
import { closedPort } from '../support/api-net.js';
import { copyLibrary, privatePrefix, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

const LOCAL_MODEL = 'Xenova/bge-small-en-v1.5';
const REMOTE_MODEL = 'remote/bge-small';
/** The API as the loop needs it: anonymous reads, no rate limit in the way, a query vector never late on a busy machine. */
const SEARCHING = { ANONYMOUS_READ: 'published', RATE_LIMIT_MAX: '1000000', EMBED_QUERY_TIMEOUT_MS: '10000' };

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** A project entry point as its own process, its stdout and stderr collected. */
function start(entry: string, env: Record<string, string | undefined>): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Waits until the process has printed `text` (true) or exited (false). */
async function printed(p: Running, text: string, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (p.output().includes(text)) return true;
    if (p.child.exitCode !== null) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function stop(p: Running | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  await Promise.race([p.exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (p.child.exitCode === null) p.child.kill('SIGKILL');
}

interface Answer {
  at: number;
  status: number;
  degraded?: string;
  episodes: number;
}

/** One anonymous search of the API. */
async function searchOnce(base: string): Promise<Answer> {
  const at = Date.now();
  try {
    const res = await fetch(`${base}/api/v1/channels/long-field/search?q=${encodeURIComponent('why did the water table drop under the farms')}`);
    const body = (await res.json()) as { degraded?: string; episodes?: unknown[] };
    return { at, status: res.status, ...(body.degraded ? { degraded: body.degraded } : {}), episodes: body.episodes?.length ?? 0 };
  } catch (error) {
    return { at, status: 0, degraded: (error as Error).message, episodes: 0 };
  }
}

describe('switching the embedder (real model, real remote service, real API process)', function () {
  this.timeout(300_000);
  const config = loadConfig(process.env);
  const serviceUrl = process.env.TRANSCRIBE_URL;
  const remoteEnv = { EMBEDDER: 'openai', EMBEDDINGS_URL: serviceUrl, EMBEDDINGS_MODEL: REMOTE_MODEL };
  let client: Client;
  let prefix: string;
  let dir: string | undefined;
  let local: Embedder;
  const running: Running[] = [];

  before(async function () {
    if (config.modelDir === undefined || !serviceUrl) this.skip();
    client = testClient();
    prefix = privatePrefix('switch');
    dir = await copyLibrary(SAMPLE_LIBRARY, (f) => f.startsWith('lf-'));
    const model = await createEmbedder({ modelId: LOCAL_MODEL, modelDir: config.modelDir });
    local = config.embedCacheDir ? await withEmbeddingCache(model, { dir: config.embedCacheDir }) : model;
    await loadLibrary({ client, embedder: local, prefix, dir });
  });

  after(async function () {
    for (const p of running) await stop(p);
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
    await removeDir(dir);
  });

  it('records the local embedder in the passages index it built', async function () {
    const live = await indexEmbedder(client, indexAliases(prefix).passages);
    expect(live.signature).to.include({ kind: 'local', model: LOCAL_MODEL, dimension: 384, pooling: 'cls', passagePrefix: '' });
  });

  it('refuses to start the API with another embedder than the index was built by, naming both (exit 2)', async function () {
    const port = await closedPort();
    const api = start('src/server.ts', { ...remoteEnv, INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1' });
    running.push(api);
    expect(await api.exited).to.equal(2);
    expect(api.output()).to.include(`holds vectors of model "${LOCAL_MODEL}" but the embedder is "${REMOTE_MODEL}"`);
    expect(api.output()).not.to.include('API listening');
  });

  it('refuses to start the worker with another pooling of the same model (another MODEL_ID gets the same refusal)', async function () {
    const worker = start('bin/worker.ts', { INDEX_PREFIX: prefix, QUEUE_NAME: `${prefix}q`, MODEL_POOLING: 'mean', EMBED_CACHE_DIR: undefined });
    running.push(worker);
    expect(await worker.exited).to.equal(1);
    expect(worker.output()).to.include(`holds vectors of model "${LOCAL_MODEL}" but the embedder is "${LOCAL_MODEL}"`);
    expect(worker.output()).to.include('they differ in pooling');
    expect(worker.output()).not.to.include('worker started');
  });

  it('reindexes to the remote embedder beside the live index: every search answers 200, none mixes the two models', async function () {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const api = start('src/server.ts', { INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1', ...SEARCHING });
    running.push(api);
    expect(await printed(api, 'API listening'), api.output()).to.equal(true);
    const before = await indexEmbedder(client, indexAliases(prefix).passages);
    const first = await searchOnce(base);
    expect(first.status).to.equal(200);
    expect(first.episodes).to.be.greaterThan(0);
    expect(first.degraded, 'semantic leg used before the reindex').to.equal(undefined);

    const remoteConfig = loadConfig({ ...process.env, ...remoteEnv });
    const answers: Answer[] = [];
    let swappedAt = Infinity;
    let finished = false;
    const loop = (async () => {
      while (!finished) {
        answers.push(await searchOnce(base));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const summary = await reindex({
      client,
      prefix,
      modelId: REMOTE_MODEL,
      target: configuredSignature(remoteConfig),
      embedder: () => createConfiguredEmbedder(remoteConfig),
      graceMs: 500,
    });
    swappedAt = Date.now() - 500; // the swap happened before the grace period
    // The API's background check looks at the alias every second: give it two.
    await new Promise((r) => setTimeout(r, 2500));
    finished = true;
    await loop;

    expect(summary).to.include({ reembedded: true, previousModel: LOCAL_MODEL, model: REMOTE_MODEL });
    expect(answers.length).to.be.greaterThan(5);
    expect(
      answers.filter((a) => a.status !== 200),
      'every search answered',
    ).to.deep.equal([]);
    const settled = answers.filter((a) => a.at > swappedAt + 1500);
    expect(settled.length).to.be.greaterThan(0);
    // After the swap the old embedder's vectors never meet the new index: keyword-only, and said so.
    for (const a of settled) expect(a).to.include({ degraded: 'embedder_failed' });
    for (const a of answers.filter((x) => x.at < swappedAt - 1000)) expect(a.degraded, 'before the swap: hybrid').to.equal(undefined);

    // The new index: built beside the old one, of the remote embedder only.
    const after = await indexEmbedder(client, indexAliases(prefix).passages);
    expect(after.index).not.to.equal(before.index);
    expect(after.signature).to.include({ kind: 'openai', model: REMOTE_MODEL, dimension: 384 });
    let passages = 0;
    for await (const page of scrollHits<PassageDoc>(client, { index: indexAliases(prefix).passages, source: ['text', 'textHash'] } as never)) {
      for (const hit of page) {
        passages++;
        expect(hit._source!.textHash, hit._id).to.equal(textHash(REMOTE_MODEL, hit._source!.text));
      }
    }
    expect(passages).to.equal(summary.copied.passages);
    await stop(api);

    // Restarted with the new configuration, the API searches with both legs again.
    const port2 = await closedPort();
    const api2 = start('src/server.ts', { ...remoteEnv, INDEX_PREFIX: prefix, PORT: String(port2), HOST: '127.0.0.1', ...SEARCHING });
    running.push(api2);
    expect(await printed(api2, 'API listening'), api2.output()).to.equal(true);
    const again = await searchOnce(`http://127.0.0.1:${port2}`);
    expect(again.status).to.equal(200);
    expect(again.degraded).to.equal(undefined);
    expect(again.episodes).to.be.greaterThan(0);
  });
});
