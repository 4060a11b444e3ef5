// A follow asked for in the console (decision 32), run by the real worker against the real OpenSearch and Redis: it goes
// ahead only when the feed carries the claim's one-time token as `<podcast:txt purpose="verify">`, the token then
// closes, and a feed or a channel slug another owner has is refused with a sentence, never taken.
import { expect } from 'chai';
import { Worker, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { readState } from '../../core/library/follow-state.js';
import { userDocument } from '../../indexer/documents.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { claimFeed, openClaim, previewOf } from '../../pipeline/follow/ownership.js';
import {
  createFollowRequestQueue,
  followRequestQueueName,
  followRequestState,
  requestFollow,
  type FollowRequestJob,
  type FollowRequestResult,
  type FollowRequestState,
} from '../../pipeline/follow/requests.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';

describe('follow from the console: proof of ownership', function () {
  this.timeout(120_000);
  let store: FollowStore;
  let workers: PipelineWorkers;
  let redis: Redis;
  let queue: Queue<FollowRequestJob, FollowRequestResult>;
  let feed: FeedServer;
  let other: FeedServer;

  /** Queues the request and waits until the worker has finished it. */
  const settled = async (request: FollowRequestJob): Promise<FollowRequestState> => {
    await requestFollow(queue, request);
    let last: FollowRequestState = { state: 'unknown' };
    await until('the follow request to finish', async () => {
      last = await followRequestState(queue, request);
      return last.state === 'done' || last.state === 'refused';
    });
    return last;
  };

  before(async function () {
    store = await openFollowStore('follow-ownership', { owners: ['u_alice', 'u_mallory'] });
    const cfg = loadConfig({ ...process.env, ...store.env });
    redis = createRedisConnection(cfg.redisUrl);
    queue = createFollowRequestQueue(redis, store.prefix);
    workers = await startSuiteWorkers({ client: store.client, prefix: store.prefix, env: store.env, embeddings: store.embeddings });
    const item = { guid: 'g1', title: 'First', pubDate: new Date('2026-11-01T00:00:00Z') };
    feed = await startFeedServer({ title: 'Alice radio', items: [item] });
    other = await startFeedServer({ title: 'Another show', items: [item] });
  });

  after(async function () {
    await workers?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    redis?.disconnect();
    await Promise.all([feed?.close(), other?.close()]);
    await store?.drop();
  });

  it('reads a preview: title, item count and only channel-level verify values, bounded', function () {
    const xml = `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Show</title>
      <podcast:txt purpose="verify">tok-1</podcast:txt><podcast:txt>not-a-verify</podcast:txt>${'<podcast:txt purpose="verify">x</podcast:txt>'.repeat(500)}
      <item><title>A</title><guid>a</guid></item><item><title>B</title><guid>b</guid></item></channel></rss>`;
    const preview = previewOf(xml, 'https://feeds.example.org/show.xml');
    expect(preview).to.include({ title: 'Show', itemCount: 2 });
    expect(preview.verifyTokens[0]).to.equal('tok-1');
    expect(preview.verifyTokens).to.have.length(20);
    expect(preview.verifyTokens).to.not.include('not-a-verify');
  });

  it('refuses while the feed lacks the token, follows once it carries it, and the token closes', async function () {
    const claim = await claimFeed(redis, store.prefix, { userId: 'u_alice', feedUrl: feed.feedUrl, slug: 'alice-radio' });
    expect((await claimFeed(redis, store.prefix, { userId: 'u_alice', feedUrl: feed.feedUrl, slug: 'alice-radio' })).token, 'asking again keeps the token').to.equal(claim.token);

    const refused = await settled({ userId: 'u_alice', feedUrl: feed.feedUrl });
    expect(refused.state).to.equal('refused');
    expect(refused.state === 'refused' && refused.reason).to.match(/does not carry <podcast:txt purpose="verify">cca-verify-/);
    expect(await readState(store.libraryDir, 'alice-radio'), 'nothing followed').to.equal(undefined);

    feed.setVerifyTokens(['someone-else', claim.token]);
    const done = await settled({ userId: 'u_alice', feedUrl: feed.feedUrl });
    expect(done).to.deep.include({ state: 'done' });
    expect(done.state === 'done' && done.result).to.include({ slug: 'alice-radio', items: 1, added: 1 });
    expect((await readState(store.libraryDir, 'alice-radio'))?.ownerId).to.equal('u_alice');
    expect(await openClaim(redis, store.prefix, 'u_alice', feed.feedUrl), 'the claim is closed').to.equal(undefined);
  });

  it('refuses a feed another owner follows, even with a valid token of its own in the feed', async function () {
    const claim = await claimFeed(redis, store.prefix, { userId: 'u_mallory', feedUrl: feed.feedUrl, slug: 'mallory-radio' });
    feed.setVerifyTokens([claim.token]);
    const refused = await settled({ userId: 'u_mallory', feedUrl: feed.feedUrl });
    expect(refused).to.deep.equal({ state: 'refused', reason: 'the feed is already followed by another owner: as "alice-radio"' });
    expect(await readState(store.libraryDir, 'mallory-radio')).to.equal(undefined);
    expect((await readState(store.libraryDir, 'alice-radio'))?.ownerId).to.equal('u_alice');
  });

  it("refuses a slug another owner's channel has, even for a proven feed", async function () {
    const claim = await claimFeed(redis, store.prefix, { userId: 'u_mallory', feedUrl: other.feedUrl, slug: 'alice-radio' });
    other.setVerifyTokens([claim.token]);
    const refused = await settled({ userId: 'u_mallory', feedUrl: other.feedUrl });
    expect(refused.state).to.equal('refused');
    expect(refused.state === 'refused' && refused.reason).to.match(/^the channel (already exists with another owner|is already followed for another owner)/);
    const state = await readState(store.libraryDir, 'alice-radio');
    expect(state?.ownerId).to.equal('u_alice');
    expect(state?.source).to.equal(feed.feedUrl);
  });

  it('never reports a finished request without its outcome, however the reads fall against its end', async function () {
    // A queue of its own whose worker refuses at once: read while the requests end, each state must be whole.
    const prefix = `${store.prefix}race-`;
    const raceQueue = createFollowRequestQueue(redis, prefix);
    const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
    const worker = new Worker<FollowRequestJob>(
      followRequestQueueName(prefix),
      async (job) => {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        throw new Error(`refused ${job.data.feedUrl}`);
      },
      { connection: workerConnection, concurrency: 8 },
    );
    try {
      const requests = Array.from({ length: 60 }, (_, i) => ({ userId: 'u_race', feedUrl: `https://feeds.example.org/${i}.xml` }));
      for (const r of requests) await requestFollow(raceQueue, r);
      const seen: FollowRequestState[] = [];
      await until('every request to end', async () => {
        const states = await Promise.all(requests.map((r) => followRequestState(raceQueue, r)));
        seen.push(...states);
        return states.every((s) => s.state === 'refused');
      });
      const refused = seen.filter((s): s is Extract<FollowRequestState, { state: 'refused' }> => s.state === 'refused');
      expect(refused.length).to.be.at.least(requests.length);
      for (const s of refused) expect(s.reason).to.match(/^refused https:\/\/feeds\.example\.org\/\d+\.xml$/);
    } finally {
      await worker.close();
      workerConnection.disconnect();
      await raceQueue.obliterate({ force: true });
      await raceQueue.close();
    }
  });

  it('refuses an owner not on the paid plan with the follow command’s sentence', async function () {
    await store.client.index({ index: store.aliases.users, id: 'u_free', body: userDocument({ id: 'u_free', name: 'Free', plan: 'free' }), refresh: true } as never);
    const claim = await claimFeed(redis, store.prefix, { userId: 'u_free', feedUrl: other.feedUrl, slug: 'free-show' });
    other.setVerifyTokens([claim.token]);
    const refused = await settled({ userId: 'u_free', feedUrl: other.feedUrl });
    expect(refused).to.deep.equal({ state: 'refused', reason: 'following a feed needs an owner on the paid plan: user "u_free" is on the "free" plan' });
  });
});
