// Switching embedders: a mismatch refused at start, and `reindex` from local bge-small to the remote service, and to MiniLM in process, with the API answering throughout.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { configuredModelId, configuredSignature, createConfiguredEmbedder } from '../../core/embedding/configured.js';
import { indexEmbedder } from '../../core/embedding/index-signature.js';
import { withEmbeddingCache } from '../../core/embedding/embedding-cache.js';
import { deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import type { PassageDoc } from '../../core/store/documents.js';
import { textHash } from '../../indexer/documents.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { reindex, type ReindexSummary } from '../../indexer/reindex.js';
import { scrollHits } from '../../indexer/scroll.js';
import { closedPort } from '../support/api-net.js';
import { runEntry } from '../support/run-entry.js';
import { copyLibrary, privatePrefix, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';
import { skipUnprovisioned } from '../support/skip.js';

const LOCAL_MODEL = 'Xenova/bge-small-en-v1.5';
const REMOTE_MODEL = 'remote/bge-small';
/** A second local model of bge-small's dimension, provisioned beside it (`npm test` does). */
const MINILM = 'Xenova/all-MiniLM-L6-v2';
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
  status: number;
  degraded?: string;
  episodes: number;
  /** The concrete passages index behind the alias just before the request was sent, and just after its answer came. */
  sentOn: string;
  answeredOn: string;
}

/** One anonymous search of the API. */
async function searchOnce(base: string): Promise<Omit<Answer, 'sentOn' | 'answeredOn'>> {
  try {
    const res = await fetch(`${base}/api/v1/channels/long-field/search?q=${encodeURIComponent('why did the water table drop under the farms')}`);
    const body = (await res.json()) as { degraded?: string; episodes?: unknown[] };
    return { status: res.status, ...(body.degraded ? { degraded: body.degraded } : {}), episodes: body.episodes?.length ?? 0 };
  } catch (error) {
    return { status: 0, degraded: (error as Error).message, episodes: 0 };
  }
}

/** The concrete index the passages alias of `prefix` points at (the store's own record of the swap). */
async function aliasTarget(client: Client, prefix: string): Promise<string> {
  const res = await client.indices.getAlias({ name: indexAliases(prefix).passages });
  return Object.keys(res.body as Record<string, unknown>).join(',');
}

interface Searched<T> {
  result: T;
  answers: Answer[];
  /** The passages index before the reindex. */
  before: string;
}

/**
 * Searches the API at `base` in a loop while `reindexing` runs, each search tagged with the index the passages alias
 * pointed at when it was sent and when it was answered (read from the store, so the swap's instant is the store's,
 * not a guess from the clock), and on after it until two searches sent after the swap have been answered.
 */
async function searchWhile<T>(client: Client, prefix: string, base: string, reindexing: () => Promise<T>): Promise<Searched<T>> {
  const before = await aliasTarget(client, prefix);
  const answers: Answer[] = [];
  let finished = false;
  let failed: unknown;
  const loop = (async () => {
    while (!finished) {
      const sentOn = await aliasTarget(client, prefix);
      const answer = await searchOnce(base);
      answers.push({ ...answer, sentOn, answeredOn: await aliasTarget(client, prefix) });
    }
  })().catch((error: unknown) => (failed = error));
  let result: T;
  try {
    result = await reindexing();
    const deadline = Date.now() + 60_000;
    while (answers.filter((a) => a.sentOn !== before).length < 2 && failed === undefined) {
      if (Date.now() > deadline) throw new Error('timed out waiting for two searches sent after the swap');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    finished = true;
    await loop;
  }
  if (failed !== undefined) throw failed as Error;
  return { result, answers, before };
}

/**
 * Every search answered with results. One sent and answered before the swap is hybrid; every one sent after it is
 * keyword-only and says so (the old embedder's query vector never meets the new index); one in flight across the
 * swap may be either.
 */
function expectServedThroughout({ answers, before }: Searched<unknown>, apiOutput: string): void {
  expect(
    answers.filter((a) => a.status !== 200 || a.episodes === 0),
    `every search answered with results; the API said:\n${apiOutput.slice(-3000)}`,
  ).to.deep.equal([]);
  const wholly = answers.filter((a) => a.sentOn === before && a.answeredOn === before);
  const after = answers.filter((a) => a.sentOn !== before);
  expect(wholly.length, 'searches answered before the swap').to.be.greaterThan(0);
  expect(after.length, 'searches sent after the swap').to.be.at.least(2);
  for (const a of wholly) expect(a.degraded, 'before the swap: hybrid').to.equal(undefined);
  for (const a of after) expect(a, 'sent after the swap: keyword-only, said so').to.include({ degraded: 'embedder_failed' });
}

/**
 * A private prefix holding the sample library's long-field channel embedded with bge-small (vectors from the machine's
 * cache when it has one), for the suite's hooks to set up and take down; `running` are the processes its tests start.
 */
function useBgeStore(name: string, available: () => boolean): { client: Client; prefix: string; bge: Embedder; running: Running[] } {
  const store = { client: undefined as unknown as Client, prefix: privatePrefix(name), bge: undefined as unknown as Embedder, running: [] as Running[] };
  let dir: string | undefined;
  before(async function () {
    if (!available()) skipUnprovisioned(this, 'the models this suite needs (MODEL_DIR: bge-small, and MiniLM for the switch to it) or TRANSCRIBE_URL are not there');
    const { modelDir, embedCacheDir } = loadConfig(process.env);
    store.client = testClient();
    dir = await copyLibrary(SAMPLE_LIBRARY, (f) => f.startsWith('lf-'));
    const model = await createEmbedder({ modelId: LOCAL_MODEL, modelDir });
    store.bge = embedCacheDir ? await withEmbeddingCache(model, { dir: embedCacheDir }) : model;
    await loadLibrary({ client: store.client, embedder: store.bge, prefix: store.prefix, dir });
  });
  after(async function () {
    for (const p of store.running) await stop(p);
    if (store.client) {
      await deleteIndices(store.client, store.prefix);
      await store.client.close();
    }
    await removeDir(dir);
  });
  return store;
}

describe('switching the embedder (real model, real remote service, real API process)', function () {
  this.timeout(300_000);
  const config = loadConfig(process.env);
  const serviceUrl = process.env.TRANSCRIBE_URL;
  const remoteEnv = { EMBEDDER: 'openai', EMBEDDINGS_URL: serviceUrl, EMBEDDINGS_MODEL: REMOTE_MODEL };
  const store = useBgeStore('switch', () => config.modelDir !== undefined && !!serviceUrl);

  it('records the local embedder in the passages index it built', async function () {
    const { client, prefix } = store;
    const live = await indexEmbedder(client, indexAliases(prefix).passages);
    expect(live.signature).to.include({ kind: 'local', model: LOCAL_MODEL, dimension: 384, pooling: 'cls', passagePrefix: '' });
  });

  it('refuses to start the API with another embedder than the index was built by, naming both (exit 2)', async function () {
    const { prefix, running } = store;
    const port = await closedPort();
    const api = start('src/server.ts', { ...remoteEnv, INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1' });
    running.push(api);
    expect(await api.exited).to.equal(2);
    expect(api.output()).to.include(`holds vectors of model "${LOCAL_MODEL}" but the embedder is "${REMOTE_MODEL}"`);
    expect(api.output()).not.to.include('API listening');
  });

  it('refuses to start the worker with another pooling of the same model (another MODEL_ID gets the same refusal)', async function () {
    const { prefix, running } = store;
    const worker = start('bin/worker.ts', { INDEX_PREFIX: prefix, QUEUE_NAME: `${prefix}q`, MODEL_POOLING: 'mean', EMBED_CACHE_DIR: undefined });
    running.push(worker);
    expect(await worker.exited).to.equal(1);
    expect(worker.output()).to.include(`holds vectors of model "${LOCAL_MODEL}" but the embedder is "${LOCAL_MODEL}"`);
    expect(worker.output()).to.include('they differ in pooling');
    expect(worker.output()).not.to.include('worker started');
  });

  it('reindexes to the remote embedder beside the live index: every search answers 200, none mixes the two models', async function () {
    const { client, prefix, running } = store;
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

    // `npm run reindex` as an operator runs it, configured for the remote embedder; its summary is its stdout.
    const searched = await searchWhile(client, prefix, base, async () => {
      const run = await runEntry('bin/reindex.ts', ['--grace', '500'], { ...remoteEnv, INDEX_PREFIX: prefix, LOG_LEVEL: 'warn' });
      expect(run.code, run.stderr).to.equal(0);
      return JSON.parse(run.stdout) as ReindexSummary;
    });
    const summary = searched.result;
    expect(summary).to.include({ reembedded: true, previousModel: LOCAL_MODEL, model: REMOTE_MODEL });
    expectServedThroughout(searched, api.output());

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
    // The grace period over, the CLI deleted the old index.
    expect((await client.indices.exists({ index: before.index })).body, 'the old passages index after the grace period').to.equal(false);
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

describe('switching between two local models of one dimension (bge-small to MiniLM, both provisioned)', function () {
  this.timeout(600_000);
  const config = loadConfig(process.env);
  /** Mean pooling and no prefixes: what `auto` resolves for MiniLM, said explicitly as a deployment would. */
  const minilmEnv = { EMBEDDER: 'local', MODEL_ID: MINILM, MODEL_POOLING: 'mean', MODEL_QUERY_PREFIX: undefined, MODEL_PASSAGE_PREFIX: undefined };
  const minilmConfig = loadConfig({ ...process.env, ...minilmEnv });
  // MODEL_DIR set to a folder of one's own may not hold MiniLM (`npx tsx scripts/ops/provision-model.ts --model all-minilm-l6-v2` puts it there).
  const store = useBgeStore('switch-minilm', () => config.modelDir !== undefined && existsSync(join(config.modelDir, MINILM, 'onnx', 'model_quantized.onnx')));

  it('reindexes to MiniLM with every search answered, records it, re-embeds every passage with it, and the bge API is refused after', async function () {
    const { client, prefix, bge, running } = store;
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const api = start('src/server.ts', { INDEX_PREFIX: prefix, PORT: String(port), HOST: '127.0.0.1', ...SEARCHING });
    running.push(api);
    expect(await printed(api, 'API listening'), api.output()).to.equal(true);
    const before = await indexEmbedder(client, indexAliases(prefix).passages);
    expect(before.signature).to.include({ model: LOCAL_MODEL, dimension: 384 });

    const searched = await searchWhile(client, prefix, base, () =>
      reindex({
        client,
        prefix,
        modelId: configuredModelId(minilmConfig),
        target: configuredSignature(minilmConfig),
        embedder: () => createConfiguredEmbedder(minilmConfig),
        graceMs: 500,
      }),
    );
    const summary = searched.result;
    expect(summary).to.include({ reembedded: true, previousModel: LOCAL_MODEL, model: MINILM });
    expectServedThroughout(searched, api.output());
    await stop(api);

    // Same dimension, so the mapping cannot tell the two apart: only `_meta.embedder` does.
    const after = await indexEmbedder(client, indexAliases(prefix).passages);
    expect(after.index).not.to.equal(before.index);
    expect(after.signature).to.deep.equal({ kind: 'local', model: MINILM, dimension: 384, pooling: 'mean', queryPrefix: '', passagePrefix: '' });

    // Every passage re-embedded by MiniLM: its text hash says so, and a spread of vectors is MiniLM's own, not bge's.
    const passages: Pick<PassageDoc, 'text' | 'textHash' | 'embedding'>[] = [];
    for await (const page of scrollHits<PassageDoc>(client, { index: indexAliases(prefix).passages, source: ['text', 'textHash', 'embedding'] } as never)) {
      for (const hit of page) passages.push(hit._source!);
    }
    expect(passages.length).to.equal(summary.copied.passages);
    for (const p of passages) expect(p.textHash, p.text.slice(0, 40)).to.equal(textHash(MINILM, p.text));
    const minilm = await createConfiguredEmbedder(minilmConfig);
    const step = Math.max(1, Math.floor(passages.length / 5));
    const sample = passages.filter((_, i) => i % step === 0).slice(0, 5);
    const texts = sample.map((p) => p.text);
    const [fromMinilm, fromBge] = [await minilm.embedPassages(texts), await bge.embedPassages(texts)];
    sample.forEach((p, i) => {
      expect(cosine(p.embedding, fromMinilm[i]!), `MiniLM's vector of "${texts[i]!.slice(0, 40)}"`).to.be.greaterThan(0.9999);
      expect(cosine(p.embedding, fromBge[i]!), `bge's vector of "${texts[i]!.slice(0, 40)}"`).to.be.lessThan(0.5);
    });

    // The old configuration is refused at start, naming both models.
    const stale = start('src/server.ts', { MODEL_ID: LOCAL_MODEL, INDEX_PREFIX: prefix, PORT: String(await closedPort()), HOST: '127.0.0.1' });
    running.push(stale);
    expect(await stale.exited).to.equal(2);
    expect(stale.output()).to.include(`holds vectors of model "${MINILM}" but the embedder is "${LOCAL_MODEL}"`);
    expect(stale.output()).not.to.include('API listening');

    // Started with MiniLM's configuration, the API searches with both legs.
    const port2 = await closedPort();
    const api2 = start('src/server.ts', { ...minilmEnv, INDEX_PREFIX: prefix, PORT: String(port2), HOST: '127.0.0.1', ...SEARCHING });
    running.push(api2);
    expect(await printed(api2, 'API listening'), api2.output()).to.equal(true);
    const again = await searchOnce(`http://127.0.0.1:${port2}`);
    expect(again.status).to.equal(200);
    expect(again.degraded).to.equal(undefined);
    expect(again.episodes).to.be.greaterThan(0);
  });
});

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return dot / Math.sqrt(na * nb);
}
