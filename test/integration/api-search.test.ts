// The search route on a small world of our own: parameters (decisions 2–4), access, and what may never be found.
import { expect } from 'chai';
import { useApiWorld } from '../support/api-world.js';

describe('API search route: parameters, access, visibility', function () {
  this.timeout(60_000);
  // No embedder: the semantic leg is off and every search is keyword-only (the qmsum suite runs the model).
  const world = useApiWorld();

  const search = (query: string, h = world.memberHeaders) => world.api.request(`/api/v1/channels/alpha/search${query}`, { headers: h });
  const ids = (body: { episodes: { episodeId: string }[] }) => body.episodes.map((e) => e.episodeId);

  it('finds episodes by their words, with up to 3 cited segments each on the channel host', async function () {
    const res = await search('?q=tomatoes');
    expect(res.status).to.equal(200);
    expect(res.body.query).to.equal('tomatoes');
    expect(res.body.episodes).to.have.length(10);
    for (const e of res.body.episodes) {
      expect(e.url).to.equal(`https://alpha.creators.example.com/episodes/${e.episodeId}`);
      expect(e.segments.length).to.be.within(1, 3);
      for (const s of e.segments) expect(s.url).to.match(new RegExp(`^https://alpha\\.creators\\.example\\.com/episodes/${e.episodeId}\\?t=\\d+$`));
    }
  });

  it('honours limit (1–50) and answers 200 with no episodes when nothing matches', async function () {
    expect((await search('?q=tomatoes&limit=3')).body.episodes).to.have.length(3);
    expect((await search('?q=tomatoes&limit=50')).body.episodes).to.have.length(world.alpha.filter((e) => e.status !== 'archived').length);
    const none = await search('?q=xylophonequartz');
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal({ query: 'xylophonequartz', episodes: [] });
  });

  it('prefers query over q when query is non-blank, else q (decision 2)', async function () {
    expect((await search('?query=tomatoes&q=xylophonequartz')).body.query).to.equal('tomatoes');
    expect((await search('?query=%20%20&q=tomatoes')).body.query).to.equal('tomatoes');
    expect((await search('?query=&q=tomatoes')).body.query).to.equal('tomatoes');
    expect((await search('?q=tomatoes&query=soil')).body.query).to.equal('soil');
  });

  it('answers 200 with query "" and no episodes when both are blank or missing', async function () {
    for (const query of ['', '?query=', '?q=%20', '?query=%20&q=', '?fast=true']) {
      const res = await search(query);
      expect(res.status, query).to.equal(200);
      expect(res.body, query).to.deep.equal({ query: '', episodes: [] });
    }
  });

  it('checks access before answering even an empty query', async function () {
    expect((await search('')).status).to.equal(200);
    expect((await world.api.request('/api/v1/channels/alpha/search')).status).to.equal(401);
    expect((await world.api.request('/api/v1/channels/free-show/search', { headers: world.memberHeaders })).status).to.equal(403);
    expect((await world.api.request('/api/v1/channels/nope/search', { headers: world.memberHeaders })).status).to.equal(404);
  });

  it('applies the facet filters and episode scope', async function () {
    const sun = await search('?q=tomatoes&topicIds=t_sun&limit=50');
    const expected = world.alpha.filter((e) => e.status !== 'archived' && e.topicIds!.includes('t_sun')).map((e) => e.id);
    expect(ids(sun.body).sort()).to.deep.equal(expected.sort());
    const scoped = await search('?q=tomatoes&episodeIds=ep_a01,ep_a02');
    expect(ids(scoped.body).sort()).to.deep.equal(['ep_a01', 'ep_a02']);
    const year = await search('?q=tomatoes&year=2021&limit=50');
    expect(ids(year.body).every((id) => world.alpha.find((e) => e.id === id)!.publishedAt.startsWith('2021'))).to.equal(true);
  });

  it('never finds an archived episode, by title, words or scope', async function () {
    for (const query of ['?q=zebra', '?q=Zebra%20archive%20secret', '?q=tomatoes&episodeIds=ep_a07,ep_a13', '?q=tomatoes&limit=50']) {
      const found = ids((await search(query)).body);
      expect(found, query).not.to.include('ep_a07');
      expect(found, query).not.to.include('ep_a13');
    }
  });

  it('searches drafts for members', async function () {
    const found = ids((await search('?q=tomatoes&limit=50')).body);
    expect(found).to.include('ep_a02'); // pending
    expect(found).to.include('ep_a04'); // processing
  });

  const bad: [string, string][] = [
    ['fast=maybe', 'fast'],
    ['fast=yes', 'fast'],
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['year=21', 'year'],
    ['topicIds=a,,b', 'topicIds'],
    ['episodeIds=,', 'episodeIds'],
    ['collectionId=', 'collectionId'],
    [`query=${'a'.repeat(1001)}`, 'query'],
    ['q=a&q=b', 'q'],
  ];
  for (const [query, parameter] of bad) {
    it(`answers 400 naming "${parameter}" for ?${query.slice(0, 40)}`, async function () {
      const res = await search(`?${query}`);
      expect(res.status).to.equal(400);
      expect(res.body.parameter).to.equal(parameter);
    });
  }

  it('accepts fast as true, false, 1 or 0', async function () {
    for (const fast of ['true', 'false', '1', '0']) expect((await search(`?q=tomatoes&fast=${fast}`)).status, fast).to.equal(200);
  });
});
