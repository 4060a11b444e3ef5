// The episode list on a small world of our own: status views, sorts with ties and nulls, facets, cursors, parameter errors.
import { expect } from 'chai';
import { SORTS, type SortName } from '../../src/store/episode-queries.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { useApiWorld } from '../support/api-world.js';

describe('API episode list: views, sorts, filters and keyset pagination', function () {
  this.timeout(60_000);
  const world = useApiWorld();

  const visible = () => world.alpha.filter((e) => e.status !== 'archived');
  const list = (query = '') => world.api.request(`/api/v1/channels/alpha/episodes${query}`, { headers: world.memberHeaders });

  /** Follows `nextCursor` to the end and returns every row in order. */
  async function walk(query: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = query ? '&' : '?';
      const res = await list(`${query}${cursor ? `${sep}cursor=${cursor}` : ''}`);
      expect(res.status, res.text).to.equal(200);
      ids.push(...res.body.episodes.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
      pages++;
      if (pages > 100) throw new Error('pagination does not end');
    } while (cursor);
    return { ids, pages };
  }

  /** The order a sort must produce: the field (nulls last), then id ascending. */
  function expectedOrder(sort: SortName, rows: EpisodeRecord[]): string[] {
    const { field, order } = SORTS[sort];
    const value = (e: EpisodeRecord): number | null => {
      const v = (e as unknown as Record<string, unknown>)[field];
      if (v === null || v === undefined) return null;
      return typeof v === 'string' ? Date.parse(v) : (v as number);
    };
    return [...rows]
      .sort((a, b) => {
        const va = value(a);
        const vb = value(b);
        if (va !== vb) {
          if (va === null) return 1;
          if (vb === null) return -1;
          return order === 'desc' ? vb - va : va - vb;
        }
        return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      })
      .map((e) => e.id);
  }

  for (const sort of Object.keys(SORTS) as SortName[]) {
    for (const limit of [1, 4, 7, 100]) {
      it(`walks every non-archived row exactly once, in order, sorting ${sort} by pages of ${limit} (ties and nulls included)`, async function () {
        const { ids, pages } = await walk(`?sort=${sort}&limit=${limit}`);
        expect(new Set(ids).size, 'no repeats').to.equal(ids.length);
        expect(ids).to.deep.equal(expectedOrder(sort, visible()));
        expect(pages).to.equal(Math.max(1, Math.ceil(visible().length / limit)));
      });
    }
  }

  it('defaults to newest first, 20 rows, and a null cursor on the last page', async function () {
    const first = await list();
    expect(first.body.episodes).to.have.length(20);
    expect(first.body.episodes.map((e: { id: string }) => e.id)).to.deep.equal(expectedOrder('newest', visible()).slice(0, 20));
    expect(first.body.nextCursor).to.be.a('string');
    const second = await list(`?cursor=${first.body.nextCursor}`);
    expect(second.body.episodes).to.have.length(visible().length - 20);
    expect(second.body.nextCursor).to.equal(null);
  });

  it('accepts a cursor with another page size (limit is not part of the query)', async function () {
    const first = await list('?sort=popular&limit=5');
    const rest = await list(`?sort=popular&limit=50&cursor=${first.body.nextCursor}`);
    const ids = [...first.body.episodes, ...rest.body.episodes].map((e: { id: string }) => e.id);
    expect(ids).to.deep.equal(expectedOrder('popular', visible()));
  });

  it('answers 400 invalid_cursor for a cursor replayed with other filters or sort, or tampered with', async function () {
    const first = await list('?sort=popular&limit=5&topicIds=t_garden');
    const cursor = first.body.nextCursor as string;
    for (const query of [
      `?sort=newest&limit=5&topicIds=t_garden&cursor=${cursor}`,
      `?sort=popular&limit=5&cursor=${cursor}`,
      `?sort=popular&limit=5&topicIds=t_soil&cursor=${cursor}`,
      `?sort=popular&limit=5&topicIds=t_garden&status=live&cursor=${cursor}`,
      `?sort=popular&limit=5&topicIds=t_garden&cursor=${cursor.slice(0, -2)}`,
      `?cursor=${Buffer.from('{"v":1,"k":[1,"a"],"d":"x"}').toString('base64url')}`,
      '?cursor=%2F%2F%2F',
    ]) {
      const res = await list(query);
      expect(res.status, query).to.equal(400);
      expect(res.body.code, query).to.be.oneOf(['invalid_cursor', 'invalid_parameter']);
      expect(res.body.parameter).to.equal('cursor');
    }
    const other = await world.api.request(`/api/v1/channels/custom/episodes?sort=popular&limit=5&topicIds=t_garden&cursor=${cursor}`, { headers: world.memberHeaders });
    expect(other.status, 'cursor of another channel').to.equal(400);
    const same = await list(`?topicIds=t_garden&sort=popular&limit=5&cursor=${cursor}`);
    expect(same.status, 'same query, parameters in another order').to.equal(200);
  });

  it('maps the status views onto stored statuses (decision 1) and shows drafts to members', async function () {
    const expectations: Record<string, string[]> = {
      all: ['pending', 'processing', 'indexed', 'failed', 'published'],
      queued: ['pending'],
      indexing: ['processing'],
      live: ['indexed', 'published'],
      failed: ['failed'],
    };
    for (const [view, statuses] of Object.entries(expectations)) {
      const { ids } = await walk(`?status=${view}&limit=100`);
      const expected = visible()
        .filter((e) => statuses.includes(e.status))
        .map((e) => e.id);
      expect([...ids].sort(), view).to.deep.equal(expected.sort());
    }
    const drafts = await list('?status=queued');
    expect(drafts.body.episodes.length).to.be.greaterThan(0);
    expect(drafts.body.episodes.every((e: { status: string }) => e.status === 'pending')).to.equal(true);
  });

  it('never returns an archived episode, whatever the filters', async function () {
    for (const query of ['?limit=100', '?status=all&limit=100', '?episodeIds=ep_a07,ep_a13', '?episodeIds=ep_a07', '?topicIds=t_sun&limit=100']) {
      const res = await list(query);
      const ids = res.body.episodes.map((e: { id: string }) => e.id);
      expect(ids, query).not.to.include('ep_a07');
      expect(ids, query).not.to.include('ep_a13');
      expect(res.body.episodes.every((e: { status: string }) => e.status !== 'archived')).to.equal(true);
    }
  });

  it('combines facet filters with AND across parameters and OR within a list (decision 6)', async function () {
    const cases: [string, (e: EpisodeRecord) => boolean][] = [
      ['topicIds=t_soil', (e) => e.topicIds!.includes('t_soil')],
      ['topicIds=t_soil,t_sun', (e) => e.topicIds!.includes('t_soil') || e.topicIds!.includes('t_sun')],
      ['topicIds=t_soil&personIds=p_guest_0', (e) => e.topicIds!.includes('t_soil') && e.personIds!.includes('p_guest_0')],
      ['personIds=p_guest_1,p_guest_2&collectionId=c_one', (e) => !e.personIds!.includes('p_guest_0') && e.collectionIds!.includes('c_one')],
      ['year=2022', (e) => e.publishedAt.startsWith('2022')],
      ['year=2022&topicIds=t_garden', (e) => e.publishedAt.startsWith('2022') && e.topicIds!.includes('t_garden')],
      ['episodeIds=ep_a01,ep_a02,ep_zz', (e) => ['ep_a01', 'ep_a02'].includes(e.id)],
      ['entityIds=x_none', () => false],
      ['year=1999', () => false],
    ];
    for (const [query, keep] of cases) {
      const { ids } = await walk(`?${query}&limit=100`);
      expect([...ids].sort(), query).to.deep.equal(
        visible()
          .filter(keep)
          .map((e) => e.id)
          .sort(),
      );
    }
  });

  it('returns catalog rows with the spec fields, the episode URL on the channel host, and nulls where data is missing', async function () {
    const res = await list('?episodeIds=ep_a00,ep_a01');
    const row = res.body.episodes.find((e: { id: string }) => e.id === 'ep_a00');
    expect(row).to.include({ id: 'ep_a00', viewCount: null, durationMs: null, status: 'published', url: 'https://alpha.creators.example.com/episodes/ep_a00' });
    expect(row).to.have.all.keys(
      'id',
      'title',
      'description',
      'link',
      'thumbnail',
      'mediaUrl',
      'durationMs',
      'publishedAt',
      'viewCount',
      'status',
      'summary',
      'error',
      'url',
      'topicIds',
      'personIds',
      'entityIds',
      'collectionIds',
      'language',
    );
    const custom = await world.api.request('/api/v1/channels/custom/episodes', { headers: world.memberHeaders });
    expect(custom.body.episodes[0].url).to.equal('https://show.example.org/episodes/ep_custom1');
  });

  const badParams: [string, string][] = [
    ['sort=random', 'sort'],
    ['status=archived', 'status'],
    ['status=', 'status'],
    ['year=abc', 'year'],
    ['year=20201', 'year'],
    ['year=999', 'year'],
    ['year=02020', 'year'],
    ['year=2e3', 'year'],
    ['year=2020&year=2021', 'year'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['topicIds=a,,b', 'topicIds'],
    ['topicIds=,a', 'topicIds'],
    ['topicIds=a,', 'topicIds'],
    ['topicIds=', 'topicIds'],
    ['personIds=a,%20b', 'personIds'],
    ['entityIds=,', 'entityIds'],
    ['episodeIds=a,,', 'episodeIds'],
    ['collectionId=a,b', 'collectionId'],
    ['cursor=not%20base64', 'cursor'],
  ];
  for (const [query, parameter] of badParams) {
    it(`answers 400 naming "${parameter}" for ?${query}`, async function () {
      const res = await list(`?${query}`);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.parameter).to.equal(parameter);
      expect(res.body.error).to.include(`"${parameter}"`);
    });
  }

  it('ignores unknown parameters', async function () {
    const res = await list('?limit=2&colour=blue&fast=maybe');
    expect(res.status).to.equal(200);
    expect(res.body.episodes).to.have.length(2);
  });
});
