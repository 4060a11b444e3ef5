// Hybrid search over real qmsum meetings (the compact corpus in the repository) with the real model: ranking, filters, citations and visibility.
import { expect } from 'chai';
import { channelHost } from '../../core/ground/channel-urls.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { SearchResult } from '../../core/search/types.js';
import type { ChannelDoc, EpisodeDoc } from '../../core/store/documents.js';
import { QMSUM_LOAD_TIMEOUT_MS, openCorpusSearch, type QmsumSearch } from '../support/search-qmsum.js';
import { evalSearch } from '../../scripts/eval/search.js';

const params = (query: string, overrides: Partial<SearchParams> = {}): SearchParams => ({
  query,
  fast: false,
  limit: 10,
  publishedOnly: false,
  ...overrides,
});
const ids = (r: SearchResult) => r.episodes.map((e) => e.episodeId);
const searchChannel = async (deps: SearchDeps, channel: ChannelDoc, p: SearchParams) => (await runSearch(deps, channel, p)).result;

describe('search over qmsum meetings', function () {
  this.timeout(120_000);
  let qm: QmsumSearch;
  let channel: ChannelDoc;
  let catalog: Map<string, EpisodeDoc>;

  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    qm = await openCorpusSearch();
    channel = await qm.channel('research-meetings');
    catalog = new Map((await qm.episodes(channel.id)).map((e) => [e.id, e]));
  });

  it('ranks a passage found by both legs above one found at the same or a worse rank by a single leg', async function () {
    const { trace } = await evalSearch(qm.deps(), channel, params('disadvantages of ATLAS as a storage format'));
    const keyword = trace.legs.find((l) => l.name === 'keyword')!;
    const semantic = trace.legs.find((l) => l.name === 'semantic')!;
    expect(keyword.hits.length).to.be.greaterThan(0);
    expect(semantic.hits.length).to.be.greaterThan(0);
    const position = new Map(trace.fused.map((h, i) => [`${h.type}:${h.id}`, i]));
    const passages = trace.fused.filter((h) => h.type === 'passage');
    const both = passages.filter((h) => h.legs.keyword && h.legs.semantic);
    const single = passages.filter((h) => !h.legs.keyword !== !h.legs.semantic);
    let compared = 0;
    for (const b of both) {
      const worst = Math.max(b.legs.keyword!.rank, b.legs.semantic!.rank);
      for (const s of single) {
        const rank = (s.legs.keyword ?? s.legs.semantic)!.rank;
        if (worst > rank) continue;
        compared++;
        expect(position.get(`passage:${b.id}`), `${b.id} (k#${b.legs.keyword!.rank} s#${b.legs.semantic!.rank}) vs ${s.id} (#${rank})`).to.be.lessThan(
          position.get(`passage:${s.id}`)!,
        );
      }
    }
    expect(compared, 'pairs of a both-leg passage and a single-leg one').to.be.greaterThan(10);
  });

  it('never calls the embedder when fast=true, and sends no k-NN search', async function () {
    const before = qm.embedder.embeddedCount;
    const { result, trace } = await evalSearch(qm.deps(), channel, params('belief net structure for the tourist domain', { fast: true }));
    expect(qm.embedder.embeddedCount).to.equal(before);
    expect(trace.embedded).to.equal(false);
    expect(JSON.stringify(trace.searches)).not.to.contain('"knn"');
    expect(result.episodes.length).to.be.greaterThan(0);
    for (const e of result.episodes) expect(e.matchedVia).not.to.include('semantic');
  });

  it('answers an empty or blank query with no episodes', async function () {
    expect(await searchChannel(qm.deps(), channel, params(''))).to.deep.equal({ query: '', episodes: [] });
    expect(await searchChannel(qm.deps(), channel, params(' \t '))).to.deep.equal({ query: '', episodes: [] });
  });

  it('answers as the evaluation’s search does with no tuning, so the eval measures the product', async function () {
    const asked = [
      params('disadvantages of ATLAS as a storage format'),
      params('how should the wizard recruit participants', { fast: true }),
      params('belief net structure', { limit: 3, publishedOnly: true }),
      params('what did the professor think about the belief net', { year: [...catalog.values()].find((e) => !e.archived)!.year }),
    ];
    for (const p of asked) {
      const product = (await runSearch(qm.deps(), channel, p)).result;
      expect(product.episodes.length, p.query).to.be.greaterThan(0);
      expect((await evalSearch(qm.deps(), channel, p)).result, p.query).to.deep.equal(product);
    }
  });

  it('embeds a repeated query once', async function () {
    const deps = qm.deps();
    const before = qm.embedder.embeddedCount;
    const first = await searchChannel(deps, channel, params('how should the wizard recruit participants'));
    const second = await searchChannel(deps, channel, params('how should the wizard recruit participants'));
    expect(qm.embedder.embeddedCount - before).to.equal(1);
    expect(ids(second)).to.deep.equal(ids(first));
  });

  it('cites each segment from a sentence start of its passage to the passage end, in milliseconds, on the channel host', async function () {
    const result = await searchChannel(qm.deps(), channel, params('XML format to link up different components'));
    const host = channelHost(channel, qm.config.channelSites);
    expect(result.episodes.length).to.be.greaterThan(0);
    for (const e of result.episodes) {
      expect(e.url).to.equal(`https://${host}/episodes/${e.episodeId}`);
      expect(e.segments.length).to.be.within(1, 3);
      for (const s of e.segments) {
        const stored = await qm.passage(s.segmentId);
        expect(stored, s.segmentId).to.not.equal(undefined);
        expect(stored!.episodeId).to.equal(e.episodeId);
        // Speech is cited from one of its passage's marks (a sentence or turn start) through its end; a title as it is.
        const marks = stored!.marks;
        if (stored!.kind === 'transcript') {
          const at = Array.from({ length: marks.length / 2 }, (_, i) => i).find((i) => marks[2 * i + 1] === s.startMs && stored!.text.slice(marks[2 * i]!) === s.text);
          expect(at, `${s.segmentId} cited at ${s.startMs}`).to.not.equal(undefined);
        } else {
          expect([marks, s.startMs, s.text]).to.deep.equal([[], stored!.startMs, stored!.text]);
        }
        expect(s.endMs).to.equal(stored!.endMs);
        expect(s.url).to.equal(`https://${host}/episodes/${e.episodeId}?t=${s.startMs}`);
        expect(s.deepLink).to.equal(`episodes/${e.episodeId}?t=${s.startMs}`);
        for (const h of s.highlights ?? []) expect(s.text.slice(h.start, h.end).toLowerCase(), s.segmentId).to.match(/^(xml|format|link|up|differ|compon)/);
      }
    }
  });

  it('names the episode whose title matches first, matched via title', async function () {
    const target = [...catalog.values()].find((e) => !e.archived && e.title.includes('ATLAS'))!;
    const result = await searchChannel(qm.deps(), channel, params(target.title));
    expect(result.episodes[0]!.episodeId).to.equal(target.id);
    expect(result.episodes[0]!.matchedVia).to.include('title');
    expect(result.episodes[0]!.title).to.equal(target.title);
  });

  it('cites a passage of each episode matched by title alone, found in the engine', async function () {
    // With the passage legs weighed 0 only the title leg ranks: every episode is a title-only match.
    const { result } = await evalSearch(qm.deps(), channel, params('belief net structure'), {
      weights: { keyword: 0, semantic: 0, title: 1 },
    });
    expect(result.episodes.length).to.be.greaterThan(1);
    for (const e of result.episodes) {
      expect(e.matchedVia).to.include('title');
      expect(e.segments).to.have.length(1);
      const [segment] = e.segments;
      expect(segment!.matchedVia).to.include('title');
      expect((await qm.passage(segment!.segmentId))?.episodeId).to.equal(e.episodeId);
    }
  });

  describe('filters', function () {
    const query = 'what did the professor think about the belief net';
    let unfiltered: SearchResult;
    let top: EpisodeDoc;

    before(async function () {
      unfiltered = await searchChannel(qm.deps(), channel, params(query));
      top = catalog.get(unfiltered.episodes[0]!.episodeId)!;
    });

    /** A value of `field` that some live episode has and the unfiltered top episode lacks. */
    function valueNotOnTop(field: 'topicIds' | 'personIds' | 'collectionIds'): string {
      const counts = new Map<string, number>();
      for (const e of catalog.values()) if (!e.archived) for (const v of e[field]) counts.set(v, (counts.get(v) ?? 0) + 1);
      const candidates = [...counts].filter(([v]) => !top[field].includes(v)).sort((a, b) => b[1] - a[1]);
      expect(candidates.length, `a ${field} value the top episode lacks`).to.be.greaterThan(0);
      return candidates[0]![0];
    }

    async function expectNarrowed(filter: Partial<SearchParams>, holds: (e: EpisodeDoc) => boolean) {
      const result = await searchChannel(qm.deps(), channel, params(query, filter));
      expect(result.episodes.length, 'filtered results').to.be.greaterThan(0);
      for (const e of result.episodes) expect(holds(catalog.get(e.episodeId)!), `${e.episodeId} satisfies ${JSON.stringify(filter)}`).to.equal(true);
      expect(ids(result)).to.not.deep.equal(ids(unfiltered));
    }

    it('topicIds: every episode has one of the topics', async function () {
      const topic = valueNotOnTop('topicIds');
      await expectNarrowed({ topicIds: [topic] }, (e) => e.topicIds.includes(topic));
    });

    it('personIds: every episode has one of the people', async function () {
      const person = valueNotOnTop('personIds');
      await expectNarrowed({ personIds: [person, 'pe_nobody'] }, (e) => e.personIds.includes(person));
    });

    it('collectionId: every episode is in the collection', async function () {
      const collection = valueNotOnTop('collectionIds');
      await expectNarrowed({ collectionId: collection }, (e) => e.collectionIds.includes(collection));
    });

    it('year: every episode was published that year', async function () {
      const year = [...new Set([...catalog.values()].map((e) => e.year))].find((y) => y !== top.year)!;
      await expectNarrowed({ year }, (e) => e.year === year);
    });

    it('episodeIds: only the listed episodes', async function () {
      const scope = [...catalog.values()]
        .filter((e) => !e.archived && e.id !== top.id)
        .slice(0, 3)
        .map((e) => e.id);
      await expectNarrowed({ episodeIds: scope }, (e) => scope.includes(e.id));
    });

    it('combines filters with AND, and an entity nobody has gives no episodes', async function () {
      const topic = valueNotOnTop('topicIds');
      const year = [...catalog.values()].find((e) => !e.archived && e.topicIds.includes(topic))!.year;
      await expectNarrowed({ topicIds: [topic], year }, (e) => e.topicIds.includes(topic) && e.year === year);
      expect((await searchChannel(qm.deps(), channel, params(query, { entityIds: ['en_nobody'] }))).episodes).to.deep.equal([]);
    });

    it('keeps fast searches filtered too', async function () {
      const year = [...new Set([...catalog.values()].map((e) => e.year))].find((y) => y !== top.year)!;
      const result = await searchChannel(qm.deps(), channel, params(query, { year, fast: true }));
      for (const e of result.episodes) expect(catalog.get(e.episodeId)!.year).to.equal(year);
    });
  });

  describe('visibility', function () {
    it('never returns an archived episode, even searched by its exact title or id', async function () {
      const archived = [];
      for (const slug of ['research-meetings', 'product-meetings', 'committee-hearings']) {
        const c = await qm.channel(slug);
        for (const e of await qm.episodes(c.id)) if (e.archived || e.status === 'archived') archived.push({ c, e });
      }
      expect(archived.length, 'archived episodes in qmsum').to.be.greaterThan(0);
      for (const { c, e } of archived) {
        for (const fast of [false, true]) {
          const byTitle = await searchChannel(qm.deps(), c, params(e.title, { fast, limit: 50 }));
          expect(ids(byTitle), `${e.id} by title`).not.to.include(e.id);
          const byId = await searchChannel(qm.deps(), c, params(e.title, { fast, episodeIds: [e.id] }));
          expect(byId.episodes, `${e.id} scoped by id`).to.deep.equal([]);
        }
      }
    });

    it('returns drafts to members, and only published episodes to anonymous readers', async function () {
      const draft = [...catalog.values()].find((e) => !e.archived && e.status !== 'published')!;
      const member = await searchChannel(qm.deps(), channel, params(draft.title));
      expect(ids(member)).to.include(draft.id);
      const anonymous = await searchChannel(qm.deps(), channel, params(draft.title, { publishedOnly: true }));
      expect(ids(anonymous)).not.to.include(draft.id);
      expect(anonymous.episodes.length).to.be.greaterThan(0);
      for (const e of anonymous.episodes) expect(catalog.get(e.episodeId)!.status).to.equal('published');
    });
  });
});
