// The worker with two jobs in flight, against the real Redis and OpenSearch: episodes overlap, versions of one episode take turns.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { deleteIndices, ensureIndices, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { sourceHash } from '../../indexer/documents.js';
import { libraryJobs } from '../../indexer/jobs.js';
import type { PassageEmbedder } from '../../indexer/load-episode.js';
import { buildPassages } from '../../core/passages/passages.js';
import { createIngestQueue, createIngestWorker, createRedisConnection, enqueue, type IngestQueue } from '../../indexer/queue.js';
import { waitForJobs } from '../../indexer/job-wait.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { verifyIndexed } from '../../indexer/verify.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { privatePrefix, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

const config = loadConfig(process.env);

/**
 * What the worker did, in order: `active:<tag>` (BullMQ handed it the job), `embed:<tag>` (an
 * embedding call reached the model) and `written:<tag>` (its catalog row, the job's last
 * write, was answered). A tag names an episode, or a version of one.
 */
interface Trace {
  events: string[];
  /** Resolves once a tag other than `tag` has embedded, or after `ms`. */
  otherEmbedded(tag: string, ms: number): Promise<void>;
  embedded(tag: string): void;
}

function createTrace(): Trace {
  const events: string[] = [];
  const waiters: { tag: string; resolve: () => void }[] = [];
  return {
    events,
    otherEmbedded(tag, ms) {
      if (events.some((e) => e.startsWith('embed:') && e !== `embed:${tag}`)) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        waiters.push({ tag, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    embedded(tag) {
      events.push(`embed:${tag}`);
      for (const w of waiters.splice(0)) {
        if (w.tag !== tag) w.resolve();
        else waiters.push(w);
      }
    },
  };
}

/** The hash embedder, slowed to a few ms per call, logging which tag each call embeds and the most calls ever running at once. */
function tracedEmbedder(tagOfText: ReadonlyMap<string, string>, trace: Trace): PassageEmbedder & { maxActive: number } {
  const inner = createHashEmbedder();
  let active = 0;
  const traced = {
    modelId: inner.modelId,
    dimension: inner.dimension,
    maxActive: 0,
    async embedPassages(texts: string[]) {
      for (const tag of new Set(texts.map((t) => tagOfText.get(t) ?? 'unknown'))) trace.embedded(tag);
      traced.maxActive = Math.max(traced.maxActive, ++active);
      try {
        // Long enough for a second call to arrive if calls were not taking turns.
        await new Promise((r) => setTimeout(r, 5));
        return await inner.embedPassages(texts);
      } finally {
        active--;
      }
    },
  };
  return traced;
}

/**
 * The real client, its `_bulk` requests watched: a request writing a catalog row logs
 * `written:<tag>` once answered, and a tag's first request writing passages is held until
 * another tag has started embedding (at most `holdMs`). That hold is the window in which a
 * worker that overlaps two jobs shows it, however fast or slow the machine; a worker that
 * does not overlap them only loses `holdMs`.
 */
function watchedClient(
  client: Client,
  aliases: IndexAliases,
  tags: { ofText: ReadonlyMap<string, string>; ofHash: ReadonlyMap<string, string> },
  trace: Trace,
  holdMs: number,
): Client {
  const held = new Set<string>();
  const bulk = async (params: { body: string | unknown[] }, ...rest: unknown[]): Promise<unknown> => {
    // The indexer writes passages and catalog rows as NDJSON; other writes (the change feed's) pass unwatched.
    if (typeof params.body !== 'string') return (client.bulk as (...args: unknown[]) => Promise<unknown>)(params, ...rest);
    let passagesOf: string | undefined;
    let catalogOf: string | undefined;
    const lines = params.body.split('\n').filter((l) => l !== '');
    for (let i = 0; i < lines.length; i++) {
      const action = JSON.parse(lines[i]!) as Record<string, { _index: string }>;
      if (!('index' in action)) continue;
      const doc = JSON.parse(lines[++i]!) as { text?: string; sourceHash?: string };
      if (action.index!._index === aliases.passages) passagesOf ??= tags.ofText.get(doc.text ?? '');
      if (action.index!._index === aliases.episodes) catalogOf = tags.ofHash.get(doc.sourceHash ?? '');
    }
    if (passagesOf !== undefined && !held.has(passagesOf)) {
      held.add(passagesOf);
      await trace.otherEmbedded(passagesOf, holdMs);
    }
    const res = await (client.bulk as (...args: unknown[]) => Promise<unknown>)(params, ...rest);
    if (catalogOf !== undefined) trace.events.push(`written:${catalogOf}`);
    return res;
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'bulk') return bulk;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Each passage text of `records` mapped to the tag of its record (the texts must not be shared). */
function tagsOf(records: Record<string, EpisodeRecord>): { ofText: Map<string, string>; ofHash: Map<string, string> } {
  const ofText = new Map<string, string>();
  const ofHash = new Map<string, string>();
  for (const [tag, record] of Object.entries(records)) {
    ofHash.set(sourceHash(record), tag);
    for (const p of buildPassages(record)) {
      expect(ofText.get(p.text) ?? tag, `a passage text shared by two tags: ${p.text}`).to.equal(tag);
      ofText.set(p.text, tag);
    }
  }
  return { ofText, ofHash };
}

/** A new version of `record`: every title and every line of speech changed (words dropped: they would no longer match). */
function revised(record: EpisodeRecord): EpisodeRecord {
  return {
    ...record,
    title: `${record.title} (revised)`,
    chapters: record.chapters?.map((c) => ({ ...c, title: `${c.title} (revised)`, moments: c.moments.map((m) => ({ ...m, title: `${m.title} (revised)` })) })),
    transcript: record.transcript && {
      ...record.transcript,
      segments: record.transcript.segments.map(({ words: _words, ...s }) => ({ ...s, text: `${s.text} Revised.` })),
    },
  } as EpisodeRecord;
}

async function sampleEpisodes(n: number): Promise<EpisodeRecord[]> {
  const found: EpisodeRecord[] = [];
  for await (const job of libraryJobs(SAMPLE_LIBRARY, { onIssue: () => undefined })) {
    // Enough passages for several embedding calls of 2 texts each.
    if (job.kind === 'episode' && found.length < n && buildPassages(job.record).length >= 5) found.push(job.record);
  }
  return found;
}

describe('indexer: the worker overlaps episodes', function () {
  this.timeout(120_000);
  // Ends as soon as the other episode embeds; long only so that a loaded machine still shows the overlap.
  const HOLD_MS = 5000;
  let client: Client;
  let connection: Redis;
  let prefix: string;
  let queue: IngestQueue;
  let queueName: string;
  let aliases: IndexAliases;

  beforeEach(async function () {
    client = testClient();
    connection = createRedisConnection(config.redisUrl);
    prefix = privatePrefix('wrkovl');
    queueName = `test-ingest-overlap-${randomBytes(4).toString('hex')}`;
    queue = createIngestQueue({ connection, name: queueName });
    aliases = await ensureIndices(client, { prefix, modelId: createHashEmbedder().modelId });
  });

  afterEach(async function () {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
    await deleteIndices(client, prefix);
    await client.close();
  });

  /** A worker with the default concurrency, its embedder traced and its writes watched. */
  function tracedWorker(tags: ReturnType<typeof tagsOf>, trace: Trace) {
    const embedder = tracedEmbedder(tags.ofText, trace);
    const worker = createIngestWorker({
      connection,
      name: queueName,
      ctx: { client: watchedClient(client, aliases, tags, trace, HOLD_MS), embedder, aliases, embedChunk: 2 },
    });
    worker.on('active', (job) => {
      if (job.data.kind === 'episode') trace.events.push(`active:${tags.ofHash.get(sourceHash(job.data.record))}`);
    });
    return { worker, embedder };
  }

  /** Runs a traced worker until every job of `ids` has completed (each must), then closes it. */
  async function runToCompletion(tags: Parameters<typeof tracedWorker>[0], trace: Parameters<typeof tracedWorker>[1], ids: string[]) {
    const traced = tracedWorker(tags, trace);
    try {
      const outcomes = await waitForJobs(queue, ids, { pollMs: 100 });
      expect(outcomes.map((o) => `${o.state} ${o.reason ?? ''}`)).to.deep.equal(ids.map(() => 'completed '));
    } finally {
      await traced.worker.close();
    }
    return traced;
  }

  it('embeds the next episode while the one before writes, with one embedding call at a time', async function () {
    const [a, b] = await sampleEpisodes(2);
    const tags = tagsOf({ [a!.id]: a!, [b!.id]: b! });
    const trace = createTrace();
    const ids = [(await enqueue(queue, { kind: 'episode', record: a! })).id, (await enqueue(queue, { kind: 'episode', record: b! })).id];
    const { embedder } = await runToCompletion(tags, trace, ids);
    const { events } = trace;
    const first = events.find((e) => e.startsWith('embed:'))!.slice('embed:'.length);
    const second = first === a!.id ? b!.id : a!.id;
    expect(events.indexOf(`written:${first}`), events.join(' ')).to.be.at.least(0);
    expect(events.indexOf(`embed:${second}`), `the second episode embeds before the first one's catalog row is written: ${events.join(' ')}`).to.be.within(
      0,
      events.indexOf(`written:${first}`),
    );
    expect(embedder.maxActive, 'embedding calls running at once').to.equal(1);
    expect((await verifyIndexed(client, aliases, [a!, b!])).problems).to.deep.equal([]);
  });

  it('runs two queued versions of one episode one after the other, in queue order, and the later version stays', async function () {
    const [v1] = await sampleEpisodes(1);
    const v2 = revised(v1!);
    const tags = tagsOf({ v1: v1!, v2 });
    const trace = createTrace();
    const ids = [(await enqueue(queue, { kind: 'episode', record: v1! })).id, (await enqueue(queue, { kind: 'episode', record: v2 })).id];
    expect(ids[0]).to.not.equal(ids[1]);
    await runToCompletion(tags, trace, ids);
    const { events } = trace;
    // Both were in the worker at once (so the test had a chance to see them overlap) ...
    expect(events.indexOf('active:v2'), `v2 taken while v1 ran: ${events.join(' ')}`).to.be.within(0, events.indexOf('written:v1'));
    // ... and yet every step of v1 came before any of v2's work.
    const work = events.filter((e) => !e.startsWith('active:')).map((e) => e.split(':')[1]);
    expect(work.indexOf('v2'), events.join(' ')).to.be.greaterThan(work.lastIndexOf('v1'));
    expect(events.at(-1)).to.equal('written:v2');
    expect((await verifyIndexed(client, aliases, [v2])).problems).to.deep.equal([]);
    const stored = await client.get({ index: aliases.episodes, id: v1!.id });
    expect((stored.body._source as { title: string }).title).to.equal(v2.title);
  });

  it('makes a sync beside an episode job it removes, in the same worker, wait for that job, so the removal comes last', async function () {
    const [episode] = await sampleEpisodes(1);
    const trace = createTrace();
    // The episode's writes are held (no other tag ever embeds), so its job is still running when the sync starts.
    const tags = tagsOf({ ep: episode! });
    const { worker } = tracedWorker(tags, trace);
    try {
      const episodeJob = await enqueue(queue, { kind: 'episode', record: episode! });
      while (!trace.events.includes('embed:ep')) await new Promise((r) => setTimeout(r, 20));
      const syncJob = await enqueue(queue, { kind: 'sync', library: 'test', channelIds: [episode!.channelId], keepIds: [] });
      const outcomes = await waitForJobs(queue, [episodeJob.id, syncJob.id], { pollMs: 100 });
      expect(outcomes.map((o) => `${o.state} ${o.reason ?? ''}`)).to.deep.equal(['completed ', 'completed ']);
      const [written, removed] = await Promise.all([queue.getJob(episodeJob.id), queue.getJob(syncJob.id)]);
      expect(removed!.processedOn!, 'the sync ran beside the episode job').to.be.below(written!.finishedOn!);
      expect(removed!.finishedOn!, 'the sync finished after the episode was written').to.be.at.least(written!.finishedOn!);
    } finally {
      await worker.close();
    }
    expect((await verifyIndexed(client, aliases, [])).problems).to.deep.equal([]);
  });
});
