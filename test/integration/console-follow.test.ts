// Following a feed from the console over HTTP, with the real worker, OpenSearch and Redis: the preview, the one-time
// token, the worker refusing the follow until the feed carries it, then following it; the episodes page showing the
// new episodes pending, then their statuses (a broken enclosure failed with its sentence); a slug or a feed another
// owner has refused with the follow command's sentence, naming nothing of theirs.
import { expect } from 'chai';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { csrfOf, elementText, signedInAs, type ConsoleClient } from '../support/console-client.js';
import { openFollowStore, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { readState } from '../../core/library/follow-state.js';
import { identityDeps } from '../../src/console/router.js';

const srt = (text: string) => `1\n00:00:00,000 --> 00:00:03,000\n${text}\n`;
const decode = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

describe('console: follow a feed', function () {
  this.timeout(180_000);
  let store: FollowStore;
  let workers: PipelineWorkers;
  let api: ApiHarness;
  let alice: ConsoleClient;
  let bob: ConsoleClient;
  let feed: FeedServer;
  let other: FeedServer;

  before(async function () {
    store = await openFollowStore('console-follow', { owners: ['u_alice', 'u_bob'] });
    workers = await startSuiteWorkers({ client: store.client, prefix: store.prefix, env: store.env, embeddings: store.embeddings });
    api = await startApi({ env: { ...store.env, PUBLIC_BASE_URL: 'http://127.0.0.1:8080', CHANNEL_BASE_DOMAIN: 'creators.example.com' } });
    const identity = identityDeps({ config: api.config, client: api.client, redis: api.redis });
    alice = await signedInAs(api.baseUrl, identity, 'u_alice', 'creator');
    bob = await signedInAs(api.baseUrl, identity, 'u_bob', 'creator');
    feed = await startFeedServer({
      title: 'Alice radio',
      items: [
        { guid: 'good', title: 'Good news', pubDate: new Date('2026-11-02T00:00:00Z'), transcript: { path: '/srt/good.srt', type: 'application/srt' } },
        { guid: 'broken', title: 'Broken audio', pubDate: new Date('2026-11-01T00:00:00Z'), enclosure: '/audio/missing.mp3' },
      ],
    });
    feed.setFile('/srt/good.srt', srt('Good morning, and welcome.'), 'application/srt');
    other = await startFeedServer({ title: 'Another show', items: [{ guid: 'x', title: 'X', pubDate: new Date('2026-11-01T00:00:00Z') }] });
  });

  after(async function () {
    await workers?.close();
    if (api) {
      await api.redis.del(...(await api.redis.keys(`*${store.prefix}*`)), 'none');
      await api.close();
    }
    await Promise.all([feed?.close(), other?.close()]);
    await store?.drop();
  });

  const statusPath = (url: string) => `/console/follow/status?feed=${encodeURIComponent(url)}`;

  /** Previews `url` as `slug`: the page, and the token it shows. */
  async function preview(as: ConsoleClient, url: string, slug: string) {
    const page = await as.submit('/console/follow', { feed: url, slug });
    expect(page.status, page.text.slice(0, 400)).to.equal(200);
    const token = /cca-verify-[A-Za-z0-9_-]+/.exec(page.text)?.[0];
    expect(token, 'the one-time token').to.be.a('string');
    return { page, token: token! };
  }

  /** "Check and follow" from `page`, then the status page until the worker has decided. */
  async function checkAndWait(as: ConsoleClient, page: string, url: string): Promise<string> {
    const asked = await as.post('/console/follow/check', { _csrf: csrfOf(page), feed: url });
    expect(asked.status).to.equal(303);
    expect(asked.location).to.equal(statusPath(url));
    let text = '';
    await until('the follow request to be decided', async () => {
      // A 503 page (Redis slow on a loaded machine) is not a decision: ask again.
      const answer = await as.get(statusPath(url));
      text = answer.text;
      return answer.status === 200 && !/data-live=/.test(text);
    });
    return text;
  }

  const episodeRows = async (as: ConsoleClient, slug: string) => {
    const page = await as.get(`/console/episodes/${slug}`);
    return { page, rows: [...page.text.matchAll(/data-episode="[^"]+" data-status="([^"]+)"><th scope="row">([^<]+)</g)].map((m) => ({ title: m[2]!, status: m[1]! })) };
  };

  it('previews the feed, refuses it without the token, follows once the feed carries it, and shows its episodes pending, then their statuses', async function () {
    const { page, token } = await preview(alice, feed.feedUrl, 'alice-radio');
    expect(page.text).to.match(/data-preview-title[^>]*>Alice radio</);
    expect(page.text).to.match(/data-preview-items[^>]*>2</);
    expect(decode(elementText(page.text, 'verify-line')!)).to.equal(`<podcast:txt purpose="verify">${token}</podcast:txt>`);
    expect(decode(page.text)).to.include(`npm run follow -- ${feed.feedUrl} --channel alice-radio --owner u_alice`);

    const refused = await checkAndWait(alice, page.text, feed.feedUrl);
    expect(decode(refused), /data-reason>[^<]*|role="status">[^]{0,300}/.exec(decode(refused))?.[0]).to.match(
      /data-reason>the feed does not prove that its owner asked for this follow: .* does not carry <podcast:txt purpose="verify">cca-verify-/,
    );
    expect(await readState(store.libraryDir, 'alice-radio'), 'nothing followed').to.equal(undefined);
    expect(refused, 'the token is shown again to fix the feed').to.include(token);

    // Processing waits, so that the new episodes are seen pending first.
    await workers.process.pause();
    feed.setVerifyTokens([token]);
    const done = await checkAndWait(alice, refused, feed.feedUrl);
    expect(done).to.include('Followed as alice-radio: 2 items in the feed, 2 new');
    expect((await readState(store.libraryDir, 'alice-radio'))?.ownerId).to.equal('u_alice');

    let pending: Awaited<ReturnType<typeof episodeRows>> | undefined;
    await until('the new episodes listed', async () => (pending = await episodeRows(alice, 'alice-radio')).rows.length === 2);
    expect(pending!.rows).to.deep.equal([
      { title: 'Good news', status: 'pending' },
      { title: 'Broken audio', status: 'pending' },
    ]);
    expect(pending!.page.text).to.match(/data-count="pending"[^]*?<strong>2<\/strong>/);
    expect(pending!.page.text, 'the page follows what waits').to.match(/id="episodes-live"[^>]*data-live=/);

    workers.process.resume();
    let settled: Awaited<ReturnType<typeof episodeRows>> | undefined;
    await until('both episodes processed', async () => {
      settled = await episodeRows(alice, 'alice-radio');
      return settled.page.status === 200 && !/data-live=/.test(settled.page.text);
    });
    expect(settled!.rows).to.deep.equal([
      { title: 'Good news', status: 'published' },
      { title: 'Broken audio', status: 'failed' },
    ]);
    expect(settled!.page.text).to.match(/data-status="failed">[^]*?<p class="error-sentence">the audio URL answered 404<\/p>/);
  });

  it("refuses a slug another owner's channel has, to a member of it, with the follow command's sentence and nothing of the owner's", async function () {
    const found = await store.client.search({ index: store.aliases.channels, body: { query: { term: { slug: 'alice-radio' } } } } as never);
    const channelDocId = (found.body as { hits: { hits: { _id: string }[] } }).hits.hits[0]!._id;
    await store.client.update({ index: store.aliases.channels, id: channelDocId, body: { doc: { memberIds: ['u_alice', 'u_bob'] } }, refresh: true } as never);
    expect((await bob.get('/console/episodes/alice-radio')).status, 'bob is a member').to.equal(200);
    const { page, token } = await preview(bob, other.feedUrl, 'alice-radio');
    other.setVerifyTokens([token]);
    const refused = await checkAndWait(bob, page.text, other.feedUrl);
    expect(refused).to.match(/data-reason>the channel (already exists with another owner|is already followed for another owner)\.</);
    expect(refused, "the owner's id is not told").to.not.include('u_alice');
    const state = await readState(store.libraryDir, 'alice-radio');
    expect([state?.ownerId, state?.source]).to.deep.equal(['u_alice', feed.feedUrl]);
  });

  it('refuses a feed another owner follows, even with its own token in the feed', async function () {
    const { page, token } = await preview(bob, feed.feedUrl, 'bob-radio');
    feed.setVerifyTokens([token]);
    const refused = await checkAndWait(bob, page.text, feed.feedUrl);
    expect(refused).to.match(/data-reason>the feed is already followed by another owner\.</);
    expect(refused, "the other owner's channel is not told").to.not.include('alice-radio');
    expect(await readState(store.libraryDir, 'bob-radio')).to.equal(undefined);
  });

  it("shows one user's request to nobody else", async function () {
    const theirs = await bob.get(statusPath(other.feedUrl));
    expect(theirs.status).to.equal(200);
    expect((await alice.get(statusPath(other.feedUrl))).status).to.equal(404);
  });
});
