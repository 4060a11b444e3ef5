// The BullMQ path against the real Redis and OpenSearch: crash recovery, error classes, the ingest CLI.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { jobIdOf, libraryJobs, type IngestJob } from '../../indexer/jobs.js';
import { createIngestQueue, createIngestWorker, createRedisConnection, enqueue, type IngestQueue } from '../../indexer/queue.js';
import { waitForJobs } from '../../indexer/job-wait.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { verifyIndexed } from '../../indexer/verify.js';
import { runScript, type Child } from '../../scripts/lib/child.js';
import { copyLibrary, countDocs, privatePrefix, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';
import { CORPUS_DIR } from '../support/qmsum-fixture.js';
import { until } from '../support/until.js';

const config = loadConfig(process.env);

/** A repo script as a child process, with `env` on top of this process's environment. */
const script = (file: string, args: string[], env: Record<string, string>): Child => runScript(file, args, { ...process.env, ...env });

describe('indexer: queue and worker', function () {
  this.timeout(240_000);
  /** The CLIs' embedder (EMBEDDER=openai): the hash embedder served over the embeddings protocol. */
  let embeddings: HashEmbeddingsServer;
  let client: Client;
  let connection: Redis;
  let prefix: string;
  let queueName: string;
  let queue: IngestQueue;
  let lib: string | undefined;
  const children: Child[] = [];
  const servers: HashEmbeddingsServer[] = [];

  before(async function () {
    embeddings = await startHashEmbeddingsServer();
  });

  after(async function () {
    await embeddings?.close();
  });

  beforeEach(function () {
    client = testClient();
    connection = createRedisConnection(config.redisUrl);
    prefix = privatePrefix('wrk');
    queueName = `test-ingest-${randomBytes(4).toString('hex')}`;
    queue = createIngestQueue({ connection, name: queueName });
  });

  afterEach(async function () {
    for (const c of children.splice(0)) if (c.alive()) c.process.kill('SIGKILL');
    for (const s of servers.splice(0)) await s.close();
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
    await deleteIndices(client, prefix);
    await client.close();
    await removeDir(lib);
    lib = undefined;
  });

  it('ends with every episode indexed exactly once when the worker is killed mid-batch and restarted', async function () {
    lib = await copyLibrary(CORPUS_DIR, (_, i) => i < 12);
    const env = { INDEX_PREFIX: prefix, QUEUE_NAME: queueName, LOG_LEVEL: 'warn', ...embeddings.env };
    const ingest = script('bin/ingest.ts', [lib, '--no-wait'], env);
    children.push(ingest);
    expect(await ingest.exited, ingest.stderr()).to.equal(0);
    const ids = (await queue.getJobs(['waiting'])).map((j) => j.id!);
    expect(ids).to.have.length(14); // meta + 12 episodes + sync

    const workerArgs = ['--lock-duration', '2000', '--stalled-interval', '1000'];
    // The first worker embeds slowly (400 ms a request), so the job it is killed in is still in flight when the
    // SIGKILL lands: the plain server answers an episode in milliseconds, and on a busy machine the job could
    // complete between the test seeing it active and the kill.
    const slow = await startHashEmbeddingsServer({ delayMs: 400 });
    servers.push(slow);
    const first = script('bin/worker.ts', workerArgs, { ...env, ...slow.env });
    children.push(first);
    // Kill it just after it has started an episode, with some episodes already done.
    const seen = new Set<string>();
    let victim: string | undefined;
    await until('a fresh active episode job after two completed', async () => {
      const active = (await queue.getActive()).map((j) => j.id!).filter((id) => id.startsWith('episode-'));
      const fresh = active.find((id) => !seen.has(id));
      active.forEach((id) => seen.add(id));
      if (fresh && (await queue.getCompletedCount()) >= 2) victim = fresh;
      return victim !== undefined;
    });
    first.process.kill('SIGKILL');
    await first.exited;
    const killedState = await (await queue.getJob(victim!))!.getState();
    expect(killedState).to.equal('active'); // its lock is still held by the dead worker

    const second = script('bin/worker.ts', workerArgs, env);
    children.push(second);
    const outcomes = await waitForJobs(queue, ids, { pollMs: 250 });
    expect(outcomes.filter((o) => o.state !== 'completed').map((o) => `${o.id}: ${o.reason}`)).to.deep.equal([]);
    const recovered = (await queue.getJob(victim!))!;
    expect(recovered.stalledCounter, 'the killed job was recovered by the stalled-job check').to.be.at.least(1);

    second.process.kill('SIGTERM');
    expect(await second.exited, second.stderr()).to.equal(0);

    // Exactly once: every episode present with the hash of its record, and exactly its own passages.
    const records: EpisodeRecord[] = (await queue.getJobs(['completed']))
      .map((j) => j.data as IngestJob)
      .filter((d): d is Extract<IngestJob, { kind: 'episode' }> => d.kind === 'episode')
      .map((d) => d.record);
    expect(records).to.have.length(12);
    const check = await verifyIndexed(client, indexAliases(prefix), records);
    expect(check.problems).to.deep.equal([]);
    expect(check.episodes).to.equal(12);
    // The check itself sees a lost passage.
    const a = indexAliases(prefix);
    const one = await client.search({ index: a.passages, body: { size: 1, query: { term: { episodeId: records[0]!.id } } } } as never);
    await client.delete({ index: a.passages, id: one.body.hits.hits[0]!._id, refresh: true } as never);
    expect((await verifyIndexed(client, a, records)).problems).to.have.length(1);
  });

  it('re-enqueues a job that vanished from Redis while `npm run ingest` waits, and ends with every episode indexed', async function () {
    const env = { INDEX_PREFIX: prefix, QUEUE_NAME: queueName, LOG_LEVEL: 'warn', ...embeddings.env };
    const ingest = script('bin/ingest.ts', [SAMPLE_LIBRARY], env);
    children.push(ingest);
    await until('all 13 jobs waiting', async () => (await queue.getWaitingCount()) === 13);
    // What a Redis crash between two fsyncs looks like to the queue: the job is simply gone.
    const victim = (await queue.getJobs(['waiting'])).map((j) => j.id!).find((id) => id.startsWith('episode-'))!;
    await (await queue.getJob(victim))!.remove();
    expect(await queue.getJob(victim)).to.equal(undefined);
    await until('ingest to notice the loss and re-add the job', async () => (await queue.getJob(victim)) !== undefined, { timeoutMs: 30_000 });

    const embedder = embeddings.embedder();
    const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, embedding: embeddings.signature });
    const worker = createIngestWorker({ connection, name: queueName, ctx: { client, embedder, aliases } });
    try {
      expect(await ingest.exited, ingest.stderr()).to.equal(0);
    } finally {
      await worker.close();
    }
    expect(ingest.stderr()).to.match(/indexed 11, unchanged 0, failed 0, removed 0/);
    expect(ingest.stderr()).to.match(/re-enqueued/);
    expect(await countDocs(client, prefix, 'episodes')).to.equal(11);
  });

  it('does not let an older queued job bring back an episode the sync removes', async function () {
    const embedder = createHashEmbedder();
    const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId });
    const record = (id: string, channelId: string): EpisodeRecord => ({ id, channelId, title: id, publishedAt: '2024-01-01T00:00:00Z', status: 'published' });
    // An older run's jobs, waiting for a retry: one of an episode since removed from the library,
    // one of another channel's episode that this library does not own.
    const waitingJob = (job: IngestJob) => queue.add(job.kind, job, { jobId: jobIdOf(job), delay: 60_000 });
    // Several, since BullMQ lists only the first two of a state unless asked for the whole range.
    const gone = await Promise.all(['ep_gone1', 'ep_gone2', 'ep_gone3'].map((id) => waitingJob({ kind: 'episode', record: record(id, 'ch_a') })));
    const other = await waitingJob({ kind: 'episode', record: record('ep_other', 'ch_b') });
    const sync: IngestJob = { kind: 'sync', library: 'test', channelIds: ['ch_a'], keepIds: ['ep_kept'] };
    await queue.add('sync', sync, { jobId: jobIdOf(sync) });
    const worker = createIngestWorker({ connection, name: queueName, ctx: { client, embedder, aliases } });
    try {
      const [done] = await waitForJobs(queue, [jobIdOf(sync)], { pollMs: 100 });
      expect(done!.state, done!.reason).to.equal('completed');
    } finally {
      await worker.close();
    }
    for (const job of gone) expect(await queue.getJob(job.id!), `the removed episode’s job ${job.id}`).to.equal(undefined);
    expect(await queue.getJobState(other.id!), 'another channel’s job').to.equal('delayed');
  });

  it('makes the sync wait for a running job of an episode it removes, so the removal comes last', async function () {
    const hash = createHashEmbedder();
    const aliases = await ensureIndices(client, { prefix, modelId: hash.modelId });
    // A worker that is slow to embed: its episode job stays active for a while.
    const slow = { ...hash, embedPassages: async (texts: string[]) => (await new Promise((r) => setTimeout(r, 3000)), hash.embedPassages(texts)) };
    let episode: Extract<IngestJob, { kind: 'episode' }> | undefined;
    for await (const job of libraryJobs(SAMPLE_LIBRARY, { onIssue: () => undefined })) if (!episode && job.kind === 'episode') episode = job;
    const busy = createIngestWorker({ connection, name: queueName, ctx: { client, embedder: slow, aliases } });
    let other: ReturnType<typeof createIngestWorker> | undefined;
    try {
      await queue.add('episode', episode!, { jobId: jobIdOf(episode!) });
      await until('the episode job running', async () => (await queue.getJobState(jobIdOf(episode!))) === 'active');
      other = createIngestWorker({ connection, name: queueName, ctx: { client, embedder: hash, aliases } });
      const sync: IngestJob = { kind: 'sync', library: 'test', channelIds: [episode!.record.channelId], keepIds: [] };
      await queue.add('sync', sync, { jobId: jobIdOf(sync) });
      const outcomes = await waitForJobs(queue, [jobIdOf(episode!), jobIdOf(sync)], { pollMs: 100 });
      expect(outcomes.map((o) => o.state)).to.deep.equal(['completed', 'completed']);
      const [written, removed] = await Promise.all([queue.getJob(jobIdOf(episode!)), queue.getJob(jobIdOf(sync))]);
      expect(removed!.finishedOn!, 'the sync finished after the episode was written').to.be.at.least(written!.finishedOn!);
    } finally {
      await Promise.all([busy.close(), other?.close()]);
    }
    expect(await countDocs(client, prefix, 'episodes', { term: { id: episode!.record.id } })).to.equal(0);
  });

  it('finishes the current job on SIGTERM, takes no new one, and exits 0', async function () {
    lib = await copyLibrary(CORPUS_DIR, (_, i) => i < 6);
    const env = { INDEX_PREFIX: prefix, QUEUE_NAME: queueName, LOG_LEVEL: 'warn', ...embeddings.env };
    const ingest = script('bin/ingest.ts', [lib, '--no-wait'], env);
    children.push(ingest);
    expect(await ingest.exited, ingest.stderr()).to.equal(0);
    const worker = script('bin/worker.ts', [], env);
    children.push(worker);
    let current: string | undefined;
    await until('an active episode job', async () => {
      current = (await queue.getActive()).map((j) => j.id!).find((id) => id.startsWith('episode-'));
      return current !== undefined;
    });
    worker.process.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).to.equal(0);
    expect(await queue.getJobState(current!)).to.equal('completed');
    expect(await queue.getActiveCount()).to.equal(0);
    expect(await queue.getWaitingCount()).to.be.greaterThan(0);
  });

  it('fails a record that can never succeed at once, and retries a store outage with backoff', async function () {
    const embedder = createHashEmbedder();
    await ensureIndices(client, { prefix, modelId: embedder.modelId });
    const aliases = indexAliases(prefix);
    const good = createIngestWorker({ connection, name: queueName, ctx: { client, embedder, aliases }, stalledIntervalMs: 1000 });
    const bad = { kind: 'episode', record: { id: 'ep_bad', channelId: 'ch_x', title: 42, publishedAt: '2024-01-01T00:00:00Z', status: 'published' } };
    await queue.add('episode', bad as unknown as IngestJob, { jobId: 'bad-record', attempts: 5, backoff: { type: 'fixed', delay: 100 } });
    const [invalid] = await waitForJobs(queue, ['bad-record'], { pollMs: 100 });
    expect(invalid!.state).to.equal('failed');
    expect(invalid!.reason).to.equal('episode ep_bad: /title must be string');
    expect((await queue.getJob('bad-record'))!.attemptsMade).to.equal(1);
    await good.close();

    // A store nobody answers on: connection errors are transient, so every attempt is used.
    const deadStore = createOpenSearchClient({ url: 'http://127.0.0.1:9', timeoutMs: 1000 });
    const offline = createIngestWorker({ connection, name: queueName, ctx: { client: deadStore, embedder, aliases } });
    const record: EpisodeRecord = { id: 'ep_ok', channelId: 'ch_x', title: 'Fine', publishedAt: '2024-01-01T00:00:00Z', status: 'published' };
    await queue.add('episode', { kind: 'episode', record }, { jobId: 'store-down', attempts: 3, backoff: { type: 'exponential', delay: 100 } });
    const [down] = await waitForJobs(queue, ['store-down'], { pollMs: 100 });
    await offline.close();
    await deadStore.close();
    expect(down!.state).to.equal('failed');
    expect(down!.reason).to.match(/^get passages mapping: ConnectionError/);
    expect((await queue.getJob('store-down'))!.attemptsMade).to.equal(3);
  });

  it("runs one library's meta jobs one after another (an older one never removes the names a newer one wrote), and two libraries' side by side", async function () {
    const embedder = createHashEmbedder();
    await ensureIndices(client, { prefix, modelId: embedder.modelId });
    const aliases = indexAliases(prefix);
    // Every bulk write is slowed and counted by the library it is for: two of one library at once is the race.
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    let together = 0;
    let mostTogether = 0;
    const slowed = new Proxy(client, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        const bound = (value as (...a: unknown[]) => Promise<unknown>).bind(target);
        if (prop !== 'bulk') return bound;
        return async (...args: unknown[]) => {
          const body = JSON.stringify(args[0]);
          const lib = ['ch_lib-a', 'ch_lib-b'].find((id) => body.includes(id)) ?? 'other';
          running.set(lib, (running.get(lib) ?? 0) + 1);
          peak.set(lib, Math.max(peak.get(lib) ?? 0, running.get(lib)!));
          mostTogether = Math.max(mostTogether, ++together);
          try {
            await new Promise((r) => setTimeout(r, 300));
            return await bound(...args);
          } finally {
            running.set(lib, running.get(lib)! - 1);
            together--;
          }
        };
      },
    }) as Client;
    const meta = (slug: string, topics: string[]): IngestJob => ({
      kind: 'meta',
      library: `/libraries/${slug}`,
      users: [{ id: `u_${slug}`, name: slug, plan: 'paid' }],
      channels: [{ id: `ch_${slug}`, slug, title: slug, providerType: 'rss', ownerId: `u_${slug}`, memberIds: [`u_${slug}`] }],
      facets: topics.map((t) => ({ kind: 'topic' as const, record: { id: `t_${t}`, name: t } })),
    });
    const jobs = [meta('lib-a', ['rivers']), meta('lib-a', ['rivers', 'soil']), meta('lib-b', ['weather'])];
    for (const job of jobs) await enqueue(queue, job);
    const worker = createIngestWorker({ connection, name: queueName, ctx: { client: slowed, embedder, aliases }, concurrency: 3 });
    const outcomes = await waitForJobs(queue, jobs.map(jobIdOf), { pollMs: 100 });
    await worker.close();
    expect(outcomes.map((o) => o.state)).to.deep.equal(['completed', 'completed', 'completed']);
    expect(peak.get('ch_lib-a'), "lib-a's meta jobs at once").to.equal(1);
    expect(mostTogether, 'jobs of two libraries at once').to.be.at.least(2);
    // The newer job ran last: both of lib-a's names are stored.
    await client.indices.refresh({ index: aliases.facets });
    const res = await client.search({ index: aliases.facets, body: { size: 10, query: { term: { channelId: 'ch_lib-a' } } } } as never);
    const names = (res.body as { hits: { hits: { _source: { name: string } }[] } }).hits.hits.map((h) => h._source.name).sort();
    expect(names).to.deep.equal(['rivers', 'soil']);
  });

  it('does not enqueue the same content twice, and `npm run ingest` waits for the worker and sums up', async function () {
    const jobs: IngestJob[] = [];
    for await (const job of libraryJobs(SAMPLE_LIBRARY, { onIssue: () => undefined })) jobs.push(job);
    const firstPass = await Promise.all(jobs.map((j) => enqueue(queue, j)));
    const secondPass = await Promise.all(jobs.map((j) => enqueue(queue, j)));
    expect(firstPass.every((r) => !r.deduplicated)).to.equal(true);
    expect(secondPass.every((r) => r.deduplicated)).to.equal(true);
    expect(await queue.getWaitingCount()).to.equal(13);
    await queue.obliterate({ force: true });

    const embedder = embeddings.embedder();
    const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, embedding: embeddings.signature });
    const worker = createIngestWorker({ connection, name: queueName, ctx: { client, embedder, aliases } });
    try {
      const ingest = script('bin/ingest.ts', [SAMPLE_LIBRARY], {
        INDEX_PREFIX: prefix,
        QUEUE_NAME: queueName,
        LOG_LEVEL: 'warn',
        ...embeddings.env,
      });
      children.push(ingest);
      expect(await ingest.exited, ingest.stderr()).to.equal(0);
      expect(ingest.stderr()).to.match(/indexed 11, unchanged 0, failed 0, removed 0/);
      const again = script('bin/ingest.ts', [SAMPLE_LIBRARY], {
        INDEX_PREFIX: prefix,
        QUEUE_NAME: queueName,
        LOG_LEVEL: 'warn',
        ...embeddings.env,
      });
      children.push(again);
      expect(await again.exited, again.stderr()).to.equal(0);
      expect(again.stderr()).to.match(/indexed 0, unchanged 11, failed 0, removed 0/);
    } finally {
      await worker.close();
    }
    expect(await countDocs(client, prefix, 'episodes')).to.equal(11);
  });
});
