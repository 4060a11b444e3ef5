// The API's query embedder: the real model in worker processes, a bounded queue, a token cap; searches degrade to keyword-only instead of stalling.
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { EmbedderUnavailableError, createEmbedderPool, type EmbedderPool } from '../../core/embedding/embedder-pool.js';
import { QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';
import { startReliabilityApi, type ReliabilityApi } from '../support/reliability-api.js';
import { skipBecause, skipUnprovisioned } from '../support/skip.js';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** Linux: the pids of this process's children (from /proc). */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return statFields(readFileSync(`/proc/${d}/stat`, 'utf8'))[1] === String(process.pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Linux: the nice value of every thread of `pid`. */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => Number(statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))[16]));
}

/** The fields of a /proc stat line after the parenthesised command name: state, ppid, … (nice is the 17th). */
const statFields = (line: string) => line.slice(line.lastIndexOf(')') + 2).split(' ');

/** `n` distinct long queries (about 1,000 characters each) from a fixed vocabulary. */
function longQueries(n: number, seed = 1): string[] {
  const words =
    'budget remote control design meeting battery button speech recognition prototype market evaluation interface scroll wheel plastic rubber trend fashion cost revenue committee education school teachers funding policy data transcription microphone'.split(
      ' ',
    );
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: n }, (_, i) => {
    const parts: string[] = [`q${seed}-${i}`];
    while (parts.join(' ').length < 980) parts.push(words[next() % words.length]!);
    return parts.join(' ').slice(0, 1000);
  });
}

describe('query embedding in worker processes (real model)', function () {
  this.timeout(300_000);
  const config = loadConfig(process.env);
  let inProcess: Embedder;
  let pool: EmbedderPool;

  before(async function () {
    if (config.modelDir === undefined) skipUnprovisioned(this, "MODEL_DIR is not set (the embedding model's files)");
    inProcess = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, maxQueryTokens: 128 });
    // No time limit on a vector here (see the queryTimeoutMs test): these tests are about the queue bound and the vectors.
    pool = await createEmbedderPool({ modelId: config.modelId, modelDir: config.modelDir, workers: 1, maxQueue: 2, maxQueryTokens: 128, queryTimeoutMs: 600_000 });
  });

  after(async function () {
    await pool?.close();
  });

  it('gives the same query vector as the in-process embedder', async function () {
    for (const q of ['how do farmers keep soil healthy', longQueries(1)[0]!]) {
      const [a, b] = [await pool.embedQuery(q), await inProcess.embedQuery(q)];
      expect(a).to.have.length(384);
      expect(dot(a, b)).to.be.closeTo(1, 1e-5);
    }
  });

  it('embeds a query past the token cap as its first 128 tokens, and a shorter one untouched', async function () {
    const uncapped = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir });
    const short = 'what did the committee decide about school funding';
    expect(await inProcess.embedQuery(short)).to.deep.equal(await uncapped.embedQuery(short));
    // 200 short words: well over 128 tokens.
    const long = Array.from({ length: 200 }, (_, i) => ['cost', 'plan', 'data', 'team', 'idea'][i % 5]! + (i % 7)).join(' ');
    const capped = await inProcess.embedQuery(long);
    expect(dot(capped, await uncapped.embedQuery(long)), 'the cut changed the vector').to.be.below(0.9999);
    // Everything after the first 128 tokens is ignored: appending more changes nothing.
    expect(dot(capped, await inProcess.embedQuery(`${long} and then some entirely different words about weather`))).to.be.closeTo(1, 1e-6);
  });

  it('refuses a query at once with EmbedderUnavailableError (busy) when the worker is busy and the queue full', async function () {
    const outcomes = await Promise.allSettled(longQueries(8, 3).map((q) => pool.embedQuery(q)));
    const busy = outcomes.filter((o) => o.status === 'rejected');
    expect(
      outcomes.filter((o) => o.status === 'fulfilled'),
      '1 running + 2 queued',
    ).to.have.length(3);
    for (const o of busy) {
      expect((o as PromiseRejectedResult).reason)
        .to.be.instanceOf(EmbedderUnavailableError)
        .with.property('reason', 'busy');
    }
    expect([pool.queued, pool.running]).to.deep.equal([0, 0]);
  });

  it('gives up on a query vector after queryTimeoutMs with EmbedderUnavailableError (busy), and takes it off the queue', async function () {
    const impatient = await createEmbedderPool({ modelId: config.modelId, modelDir: config.modelDir, workers: 1, maxQueue: 8, queryTimeoutMs: 1 });
    try {
      // Without the limit each would be a vector: the refusals are the limit at work (no clock needed to tell).
      const outcomes = await Promise.allSettled(longQueries(4, 7).map((q) => impatient.embedQuery(q)));
      for (const o of outcomes) {
        expect(o.status).to.equal('rejected');
        expect((o as PromiseRejectedResult).reason)
          .to.be.instanceOf(EmbedderUnavailableError)
          .with.property('reason', 'busy');
      }
      expect(impatient.queued, 'the late queries left the queue').to.equal(0);
    } finally {
      await impatient.close();
    }
  });

  it('runs every thread of its worker processes at the nice value asked for, so the model yields the CPU to requests', async function () {
    if (process.platform !== 'linux') skipBecause(this, 'not Linux: nice values are read from /proc');
    const before = new Set(childPids());
    const niced = await createEmbedderPool({ modelId: config.modelId, modelDir: config.modelDir, workers: 1, nice: 7 });
    try {
      await niced.embedQuery(longQueries(1, 9)[0]!);
      const workers = childPids().filter((pid) => !before.has(pid));
      expect(workers).to.have.length(1);
      const nices = threadNices(workers[0]!);
      expect(nices.length, 'the model library runs threads of its own').to.be.greaterThan(1);
      expect([...new Set(nices)]).to.deep.equal([7]);
    } finally {
      await niced.close();
    }
  });

  it('keeps the event loop free while the model works: the model runs in another process, not on this thread', async function () {
    const queries = longQueries(12, 11);
    /** This process's CPU time (every thread of it, not its children) while the queries were embedded, and the vectors. */
    const cost = async (embedder: Embedder) => {
      const before = process.cpuUsage();
      const vectors = await Promise.all(queries.map((q) => embedder.embedQuery(q)));
      const { user, system } = process.cpuUsage(before);
      return { cpuMs: (user + system) / 1000, vectors };
    };
    const big = await createEmbedderPool({ modelId: config.modelId, modelDir: config.modelDir, workers: 1, maxQueue: 64, maxQueryTokens: 128, queryTimeoutMs: 600_000 });
    try {
      const [inPool, onLoop] = [await cost(big), await cost(inProcess)];
      // Every query embedded, in both: a pool that refused them all would cost nothing too.
      for (const { vectors } of [inPool, onLoop]) {
        expect(vectors).to.have.length(queries.length);
        for (const v of vectors) expect(v).to.have.length(384);
      }
      // CPU time, not wall time: other load on the machine does not count, and the model's work is what is measured.
      // In-process the model computes on this process's threads (hundreds of ms for these queries); in the pool only
      // the messages to and from the worker do.
      expect(onLoop.cpuMs, 'in-process: the model computes here').to.be.above(100);
      expect(inPool.cpuMs, `in the pool this process only passes messages (in-process: ${onLoop.cpuMs.toFixed(0)} ms of CPU)`).to.be.below(onLoop.cpuMs / 4);
    } finally {
      await big.close();
    }
  });
});

describe('search under a flood of long hybrid queries (compact qmsum corpus, real model in worker processes)', function () {
  this.timeout(300_000);
  let api: ReliabilityApi;

  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    if (loadConfig(process.env).modelDir === undefined) skipUnprovisioned(this, "MODEL_DIR is not set (the embedding model's files)");
    const { prefix } = await ensureCorpusLoaded(); // the compact corpus: runs on any clone
    // The production path: createEmbedderPool behind startLocalApi, a queue of 2.
    // Every search admitted at once and no time limit on a vector (both have tests of their own): this is about the embedder's queue.
    api = await startReliabilityApi({
      prefix,
      embedder: true,
      env: { EMBED_QUERY_QUEUE: '2', EMBED_QUERY_TIMEOUT_MS: '60000', OPENSEARCH_TIMEOUT_MS: '5000', SEARCH_CONCURRENCY: '24' },
    });
  });

  after(async function () {
    await api?.close();
  });

  it('answers 24 concurrent long hybrid searches with 200 (some keyword-only, saying so) while /healthz keeps answering', async function () {
    const key = api.keys[0]!;
    const queries = longQueries(24, 5);
    let searching = true;
    const health: number[] = [];
    const probe = (async () => {
      while (searching) {
        health.push((await api.request('/healthz')).status);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const results = await Promise.all(
      queries.map((q) => api.request(`/api/v1/channels/product-meetings/search?query=${encodeURIComponent(q)}`, { headers: { 'x-api-key': key } })),
    );
    searching = false;
    await probe;
    for (const res of results) expect(res.status, res.text.slice(0, 200)).to.equal(200);
    const degraded = results.filter((r) => r.body.degraded === 'embedder_busy');
    expect(degraded.length, 'a queue of 2 cannot hold 24 queries').to.be.greaterThan(0);
    for (const res of degraded) {
      for (const e of res.body.episodes) expect(e.matchedVia, 'keyword-only: no semantic match claimed').not.to.include('semantic');
    }
    const full = results.filter((r) => r.body.degraded === undefined);
    expect(full.length, 'the ones that got a vector are hybrid').to.be.greaterThan(0);
    expect(full.some((r) => r.body.episodes.some((e: { matchedVia: string[] }) => e.matchedVia.includes('semantic')))).to.equal(true);
    // Probes answered while the searches ran; how fast is a benchmark's question (the test above shows the model off this thread).
    expect(health.length, 'liveness probes answered during the flood').to.be.greaterThan(0);
    expect(health.every((status) => status === 200)).to.equal(true);
  });
});
