// The pure parts of the console's follow and episodes pages: what a creator reads of a refusal, the operator's
// command line, the feed URL as claimed, and the episodes' status counts as one aggregation.
import { expect } from 'chai';
import { FetchError } from '../../core/ground/outbound/errors.js';
import { FollowError } from '../../pipeline/follow/errors.js';
import { feedUrlOf, operatorCommand, previewProblem, shownReason } from '../../src/console/pages/follow.js';
import { countsOf, statusCountsBody } from '../../src/console/episode-reads.js';

describe('console follow and episodes: pure parts', function () {
  it("shows another owner's refusals as the catalogue sentence alone, naming neither their channel nor their id", function () {
    expect(shownReason(new FollowError('channel_taken', '"alice-radio" belongs to u_alice; following it for u_bob would hand it over').message)).to.equal(
      'the channel already exists with another owner.',
    );
    expect(shownReason(new FollowError('feed_taken', 'as "alice-radio"').message)).to.equal('the feed is already followed by another owner.');
    expect(shownReason(new FollowError('owner_mismatch', 'alice-radio belongs to u_alice').message)).to.equal('the channel is already followed for another owner.');
    expect(shownReason(new FollowError('not_paid', 'user "u_free" is on the "free" plan').message)).to.equal(
      'following a feed needs an owner on the paid plan: user "u_free" is on the "free" plan.',
    );
  });

  it('says a preview failure in one sentence, and leaves an unexpected error to the error page', function () {
    expect(previewProblem(new FetchError('private_address', 'http://10.0.0.1/f', 'x'))).to.match(/^The feed’s address is a private one/);
    expect(previewProblem(new FetchError('http_status', 'https://a/f', 'x', { status: 410 }))).to.equal('The feed answered 410.');
    expect(previewProblem(new FollowError('bad_source', 'https://a/f is not an RSS feed (bad)'))).to.equal('That address answered, but not with an RSS feed.');
    expect(previewProblem(new Error('boom'))).to.equal(undefined);
  });

  it('claims only http(s) URLs, normalised, and quotes the operator command for a shell', function () {
    expect(feedUrlOf('HTTPS://Feeds.Example.org/a.xml')).to.equal('https://feeds.example.org/a.xml');
    expect([feedUrlOf('ftp://a/b'), feedUrlOf('feed.xml'), feedUrlOf(''), feedUrlOf(`https://a/${'x'.repeat(2000)}`)]).to.deep.equal([undefined, undefined, undefined, undefined]);
    expect(operatorCommand({ feedUrl: "https://a.example/f.xml?x=1&y='2'", slug: 'show', userId: 'u_1' })).to.equal(
      `npm run follow -- 'https://a.example/f.xml?x=1&y='\\''2'\\''' --channel show --owner u_1`,
    );
  });

  it('counts statuses with no hits and one terms aggregation over the channel, every shown status present', function () {
    const body = statusCountsBody({ id: 'ch_a' });
    expect(body).to.include({ size: 0, track_total_hits: false });
    expect(JSON.stringify(body.query)).to.include('"channelId":"ch_a"').and.include('"archived"');
    expect(Object.keys(body.aggs as object)).to.deep.equal(['statuses']);
    expect(
      countsOf({
        aggregations: {
          statuses: {
            buckets: [
              { key: 'failed', doc_count: 2 },
              { key: 'archived', doc_count: 9 },
            ],
          },
        },
      }),
    ).to.deep.equal({
      pending: 0,
      processing: 0,
      indexed: 0,
      failed: 2,
      published: 0,
    });
  });
});
