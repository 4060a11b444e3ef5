import { expect } from 'chai';
import { reciprocalRankFusion } from '../../core/search/fusion.js';
import { groupByEpisode } from '../../core/search/group.js';
import { planHydration } from '../../core/search/hydrate.js';
import { createHydrationCache } from '../../core/search/hydration-cache.js';
import { indexAliases } from '../../core/store/opensearch.js';
import { CHANNEL, episodeHits, meta, params, passage, passageHits } from '../support/search-fixtures.js';

describe('planHydration', function () {
  const aliases = indexAliases('t-');
  const groups = groupByEpisode(
    reciprocalRankFusion(
      [
        { name: 'keyword', hits: passageHits('p1@ep_1', 'p2@ep_2') },
        { name: 'title', hits: episodeHits('ep_2', 'ep_3') },
      ],
      { k: 60 },
    ),
    10,
  );

  it('fetches the catalog rows the title leg did not return, filtered like the legs', function () {
    const plan = planHydration(aliases, params({ publishedOnly: true }), CHANNEL, groups);
    const rows = plan.searches[1];
    expect(rows!.index).to.equal('t-episodes');
    const text = JSON.stringify(rows!.body);
    expect(text).to.contain('{"ids":{"values":["ep_1"]}}');
    expect(text).to.contain('{"term":{"status":"published"}}').and.contain('{"term":{"archived":false}}');
  });

  it('asks for one passage per episode matched by title alone: its best keyword match, else its opening', function () {
    const plan = planHydration(aliases, params(), CHANNEL, groups);
    const fill = plan.searches[2]!;
    expect(fill.index).to.equal('t-passages');
    expect(fill.body.collapse).to.deep.equal({ field: 'episodeId' });
    expect(fill.body.sort).to.deep.equal([{ _score: 'desc' }, { startMs: 'asc' }, { kind: 'asc' }]);
    expect(JSON.stringify(fill.body.query)).to.contain('{"terms":{"episodeId":["ep_3"]}}');
  });

  it('reads both answers back into rows and stand-in passages', function () {
    const plan = planHydration(aliases, params(), CHANNEL, groups);
    const read = plan.read([
      [],
      [{ _id: 'ep_1', _score: 0, _source: { id: 'ep_1', title: 'One', summary: null, publishedAt: '2020-01-01T00:00:00Z', durationMs: 1 } }],
      [{ _id: 'ep_3:t:0', _score: 0, _source: { ...passage('ep_3:t:0', 'ep_3', { startMs: 0 }) } }],
    ]);
    expect([...read.episodes.keys()].sort()).to.deep.equal(['ep_1', 'ep_2', 'ep_3']);
    expect(read.titleSegments.get('ep_3')?.startMs).to.equal(0);
  });

  it('fetches the text of the shown passages the legs ranked by doc values alone', function () {
    const bare = groups.map((g) => ({ ...g, passages: g.passages.map(({ passage: _text, ...hit }) => hit) }));
    const plan = planHydration(aliases, params(), CHANNEL, bare);
    const [texts] = plan.searches;
    expect(texts!.index).to.equal('t-passages');
    const ids = (texts!.body.query as { bool: { filter: [{ ids: { values: string[] } }] } }).bool.filter[0].ids.values;
    expect(ids).to.have.members(['p1', 'p2']);
    const source = texts!.body._source as { includes: string[]; excludes: string[] };
    expect(source.includes).to.include('text').and.not.include('embedding');
    expect(source.excludes).to.deep.equal(['embedding']);
    const read = plan.read([[{ _id: 'p1', _score: 0, _source: { ...passage('p1', 'ep_1'), text: 'fetched' } }], [], []]);
    expect(read.passages.get('p1')?.text).to.equal('fetched');
    expect(read.passages.has('p2')).to.equal(false);
  });

  it('fetches only the shown passages, highlighted for the query, when the title leg returned every row and every episode has passages', function () {
    const only = groupByEpisode(
      reciprocalRankFusion(
        [
          { name: 'keyword', hits: passageHits('p2@ep_2') },
          { name: 'title', hits: episodeHits('ep_2') },
        ],
        { k: 60 },
      ),
      10,
    );
    const plan = planHydration(aliases, params({ query: 'battery life' }), CHANNEL, only);
    expect(plan.searches).to.have.length(1);
    expect(plan.searches[0]!.body.highlight).to.deep.include({ pre_tags: ['\uE000'], post_tags: ['\uE001'] });
    expect(JSON.stringify(plan.searches[0]!.body.highlight)).to.contain('"query":"battery life"');
    const tagged = 'the \uE000battery\uE001 lasts';
    const read = plan.read([[{ _id: 'p2', _score: 0, _source: { ...passage('p2', 'ep_2'), text: 'the battery lasts' }, highlight: { text: [tagged] } }]]);
    expect(read.passages.get('p2')?.matches).to.deep.equal([{ start: 4, end: 11 }]);
  });

  describe('with a hydration cache', function () {
    const hashed = (hash: string) =>
      groupByEpisode(reciprocalRankFusion([{ name: 'keyword', hits: passageHits('p1@ep_1', 'p2@ep_2').map((h) => ({ ...h, sourceHash: hash })) }], { k: 60 }), 10);
    const rows = (ids: string[]) => ids.map((id) => ({ _id: id, _score: 0, _source: { ...meta(id), sourceHash: 'h1' } }));
    const texts = (ids: string[]) =>
      ids.map((id) => ({ _id: id, _score: 0, _source: { ...passage(id, `ep_${id.slice(1)}`, { text: `the remote control of ${id}` }), sourceHash: 'h1' } }));

    it('reads what it lacks with the record version, keeps it, and needs no round trip for it next time', function () {
      const cache = createHydrationCache(1024 * 1024);
      const first = planHydration(aliases, params({ query: 'remote controls' }), CHANNEL, hashed('h1'), { cache });
      expect(first.counts).to.deep.equal({ cached: 0, fetched: 4 });
      expect((first.searches[0]!.body._source as { includes: string[] }).includes).to.include('sourceHash');
      first.read([texts(['p1', 'p2']), rows(['ep_1', 'ep_2'])]);
      const again = planHydration(aliases, params({ query: 'remote controls' }), CHANNEL, hashed('h1'), { cache });
      expect(again.searches).to.deep.equal([]);
      expect(again.counts).to.deep.equal({ cached: 4, fetched: 0 });
      const read = again.read([]);
      expect(read.episodes.get('ep_1')).to.deep.equal(meta('ep_1'));
      const p1 = read.passages.get('p1')!;
      expect(p1.text).to.equal('the remote control of p1');
      // The query's terms found in process, stemmed as the engine stems them.
      expect(p1.matches!.map((m) => p1.text.slice(m.start, m.end))).to.deep.equal(['remote', 'control']);
    });

    it('reads again what a leg reports under another record version, and what it reports under none', function () {
      const cache = createHydrationCache(1024 * 1024);
      planHydration(aliases, params(), CHANNEL, hashed('h1'), { cache }).read([texts(['p1', 'p2']), rows(['ep_1', 'ep_2'])]);
      expect(planHydration(aliases, params(), CHANNEL, hashed('h2'), { cache }).counts).to.deep.equal({ cached: 0, fetched: 4 });
      expect(planHydration(aliases, params(), CHANNEL, groups, { cache }).counts.cached).to.equal(0);
    });

    it('asks the engine when the query holds script the in-process analyzer was not checked on', function () {
      const cache = createHydrationCache(1024 * 1024);
      planHydration(aliases, params(), CHANNEL, hashed('h1'), { cache }).read([texts(['p1', 'p2']), rows(['ep_1', 'ep_2'])]);
      const plan = planHydration(aliases, params({ query: 'リモコン remote' }), CHANNEL, hashed('h1'), { cache });
      expect(plan.counts.cached).to.equal(0);
      expect(plan.searches.length).to.equal(2);
    });
  });
});
