import { expect } from 'chai';
import { reciprocalRankFusion } from '../../core/search/fusion.js';
import { groupByEpisode } from '../../core/search/group.js';
import { citation, type ChannelSites } from '../../core/ground/channel-urls.js';
import { toSearchResult } from '../../core/search/result.js';
import { MATCHED_VIA_DESCRIPTIONS } from '../../core/search/types.js';
import { CHANNEL, episodeHits, meta, passage, passageHits } from '../support/search-fixtures.js';

/** Channel sites under `baseDomain` at `https://<host>`, as production has them. */
const sites = (baseDomain: string): ChannelSites => ({ baseDomain, scheme: 'https', customDomains: true });

describe('toSearchResult', function () {
  const legs = [
    { name: 'keyword' as const, hits: passageHits('p1@ep_1', 'p2@ep_2') },
    { name: 'semantic' as const, hits: passageHits('p1@ep_1') },
    { name: 'title' as const, hits: episodeHits('ep_3') },
  ];
  legs[0]!.hits[1] = { ...legs[0]!.hits[1]!, startMs: 61_500, passage: passage('p2', 'ep_2', { kind: 'chapter', startMs: 61_500 }) } as never;
  const groups = groupByEpisode(reciprocalRankFusion(legs, { k: 60 }), 10);
  // The shown passages as hydration fetches them (here: the ones the hits carry).
  const passages = new Map(groups.flatMap((g) => g.passages.map((p) => [p.id, p.passage!] as const)));
  const episodes = new Map([
    ['ep_1', meta('ep_1')],
    ['ep_2', meta('ep_2', { summary: null, durationMs: null })],
    ['ep_3', meta('ep_3')],
  ]);

  it('cites each segment at its start in milliseconds on the channel host', function () {
    const r = toSearchResult({ query: 'q', groups, passages, episodes, channel: CHANNEL, channelSites: sites('creators.example.com') });
    const ep2 = r.episodes.find((e) => e.episodeId === 'ep_2')!;
    expect(ep2.url).to.equal('https://demo.creators.example.com/episodes/ep_2');
    expect(ep2.segments[0]).to.include({
      segmentId: 'p2',
      startMs: 61_500,
      url: 'https://demo.creators.example.com/episodes/ep_2?t=61500',
      deepLink: 'episodes/ep_2?t=61500',
    });
    expect(ep2.summary).to.equal(null);
    expect(ep2.durationMs).to.equal(null);
  });

  it('uses the custom domain when the channel has one', function () {
    expect(citation('https://show.example.org', 'ep_9', 1234.9)).to.deep.equal({
      url: 'https://show.example.org/episodes/ep_9?t=1234',
      deepLink: 'episodes/ep_9?t=1234',
    });
    const r = toSearchResult({ query: 'q', groups, passages, episodes, channel: { ...CHANNEL, customDomain: 'show.example.org' }, channelSites: sites('x.test') });
    expect(r.episodes[0]!.url).to.equal('https://show.example.org/episodes/ep_1');
  });

  it('puts the configured scheme and port in every episode url and citation (a local run), and keeps deepLink relative', function () {
    const local: ChannelSites = { baseDomain: 'localhost', scheme: 'http', port: 8080, customDomains: true };
    const r = toSearchResult({ query: 'q', groups, passages, episodes, channel: CHANNEL, channelSites: local });
    const ep2 = r.episodes.find((e) => e.episodeId === 'ep_2')!;
    expect(ep2.url).to.equal('http://demo.localhost:8080/episodes/ep_2');
    expect(ep2.segments[0]).to.include({ url: 'http://demo.localhost:8080/episodes/ep_2?t=61500', deepLink: 'episodes/ep_2?t=61500' });
    const custom = toSearchResult({ query: 'q', groups, passages, episodes, channel: { ...CHANNEL, customDomain: 'show.example.org' }, channelSites: local });
    expect(custom.episodes[0]!.url).to.equal('http://show.example.org:8080/episodes/ep_1');
  });

  it('says which legs and passage kinds matched, per segment and per episode', function () {
    const r = toSearchResult({ query: 'q', groups, passages, episodes, channel: CHANNEL, channelSites: sites('b.test') });
    const byId = new Map(r.episodes.map((e) => [e.episodeId, e]));
    expect(byId.get('ep_1')!.segments[0]!.matchedVia).to.deep.equal(['keyword', 'semantic']);
    expect(byId.get('ep_2')!.matchedVia).to.deep.equal(['keyword', 'chapter']);
    expect(byId.get('ep_3')!.matchedVia).to.deep.equal(['title']);
    expect(byId.get('ep_3')!.segments).to.deep.equal([]);
    for (const via of [...r.episodes, ...r.episodes.flatMap((e) => e.segments)].map((x) => x.matchedVia)) {
      expect(via, 'in the order of MATCHED_VIA_DESCRIPTIONS').to.deep.equal(Object.keys(MATCHED_VIA_DESCRIPTIONS).filter((v) => (via as string[]).includes(v)));
    }
  });

  it('cites the stand-in passage of an episode matched by title alone', function () {
    const titleSegments = new Map([['ep_3', passage('p9', 'ep_3', { kind: 'chapter', startMs: 0 })]]);
    const r = toSearchResult({ query: 'q', groups, passages, episodes, titleSegments, channel: CHANNEL, channelSites: sites('b.test') });
    const ep3 = r.episodes.find((e) => e.episodeId === 'ep_3')!;
    expect(ep3.segments).to.have.length(1);
    expect(ep3.segments[0]!.matchedVia).to.deep.equal(['title', 'chapter']);
    expect(ep3.segments[0]!.url).to.equal('https://demo.b.test/episodes/ep_3?t=0');
  });

  it('drops a segment whose passage is gone since ranking', function () {
    const r = toSearchResult({ query: 'q', groups, passages: new Map(), episodes, channel: CHANNEL, channelSites: sites('b.test') });
    expect(r.episodes.find((e) => e.episodeId === 'ep_1')!.segments).to.deep.equal([]);
  });

  it('drops an episode whose catalog row is gone (archived since ranking)', function () {
    const r = toSearchResult({ query: 'q', groups, passages, episodes: new Map([['ep_2', meta('ep_2')]]), channel: CHANNEL, channelSites: sites('b.test') });
    expect(r.episodes.map((e) => e.episodeId)).to.deep.equal(['ep_2']);
  });
});
