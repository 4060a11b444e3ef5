// Facets belong to their channel (decision 33; security review 2026-12-01, finding 2), against the real OpenSearch: two
// followed feeds written and indexed by the follower's own steps (feedSnapshot → writeChannel → indexLibraryMeta, each
// episode saved as the follower saves it), the victim's guest `John Smith` and a second channel's look-alike `John
// Smith (ЅСАМ)` written after it. Each channel's pages, twins and catalog filters see their own names and ids only.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, type Client } from '../../core/store/opensearch.js';
import { feedSnapshot } from '../../pipeline/follow/feed-source.js';
import { channelIdOf } from '../../importer/item-identity.js';
import { indexLibraryMeta, saveEpisode, saveOwner, writeChannel } from '../../pipeline/follow/library.js';
import { runJob } from '../../indexer/jobs.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { createApiTestStore, type ApiTestStore } from '../support/api-fixture.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { countingEmbedder } from '../support/indexer-env.js';

const SCAM = '\u0405\u0421\u0410\u041c';
const BASE_DOMAIN = 'creators.example.com';

/** A feed of one item naming `person` as its guest and `keywords` as its topics. */
function feed(title: string, items: { guid: string; title: string; person: string; keywords: string[] }[]): string {
  const rendered = items.map(
    (i, n) => `<item>
      <title>${i.title}</title>
      <guid isPermaLink="false">${i.guid}</guid>
      <pubDate>${new Date(Date.UTC(2024, 0, 2 + n)).toUTCString()}</pubDate>
      <enclosure url="https://media.example.org/${i.guid}.mp3" length="1000" type="audio/mpeg"/>
      <itunes:keywords>${i.keywords.join(', ')}</itunes:keywords>
      <podcast:person role="guest">${i.person}</podcast:person>
    </item>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
  <channel><title>${title}</title><link>https://${title.toLowerCase().replace(/\W+/g, '-')}.example.org/</link>${rendered.join('\n')}</channel>
</rss>`;
}

describe('facets per channel (decision 33)', function () {
  this.timeout(60_000);
  let client: Client;
  let store: ApiTestStore;
  let ctx: IndexContext;
  let api: ApiHarness;
  const dirs: string[] = [];
  /** Episode id of each channel's first item. */
  const episodes: Record<string, string[]> = {};

  /** One poll's library and index steps, as the follower runs them, then each item saved as published. */
  async function follow(slug: string, xml: string): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), `facets-${slug}-`));
    dirs.push(dir);
    const ownerId = `u_${slug}`;
    const snapshot = feedSnapshot(xml, { slug, feedUrl: `https://${slug}.example.org/feed.xml` });
    await saveOwner(dir, { id: ownerId, name: slug, plan: 'paid' });
    await writeChannel(dir, { slug, ownerId, channel: snapshot.channel, people: snapshot.people, topics: snapshot.topics });
    await indexLibraryMeta(ctx, dir);
    episodes[slug] = [];
    for (const item of snapshot.items) {
      await saveEpisode(dir, { ...item.record, status: 'published' }, ctx);
      episodes[slug].push(item.record.id);
    }
  }

  /** A GET on a channel's host (fetch drops Host: the raw request sets it). */
  async function page(slug: string, path: string): Promise<string> {
    const res = await api.request(path, { headers: { host: `${slug}.${BASE_DOMAIN}` }, unchecked: true });
    expect(res.status, `${slug} ${path}`).to.equal(200);
    return res.text;
  }

  const namesOf = (html: string, cls: 'people' | 'topics') => new RegExp(`class="${cls}"[^>]*>([\\s\\S]*?)</(p|ul|div)>`).exec(html)?.[1] ?? '';

  before(async function () {
    client = createOpenSearchClient({ url: loadConfig(process.env).opensearchUrl, timeoutMs: 30_000 });
    store = await createApiTestStore(client);
    ctx = { client, embedder: countingEmbedder(createHashEmbedder(), 'test-model'), aliases: store.aliases };
    // What a store indexed before decision 33 held: the facet under its bare id, with no channel, in the attacker's words.
    await store.put('facets', 'p_john-smith', { id: 'p_john-smith', kind: 'person', name: `John Smith (${SCAM})`, channelId: null });
    await follow(
      'victim',
      feed('Victim Show', [
        { guid: 'v1', title: 'Vaccines explained', person: 'John Smith', keywords: ['vaccines', '東京', 'Москва'] },
        { guid: 'v2', title: 'More on vaccines', person: 'John Smith', keywords: ['vaccines'] },
      ]),
    );
    // Written after the victim's: under global facets, the last writer's name was the one every page showed.
    await follow('mallory', feed('Mallory Show', [{ guid: 'm1', title: 'Totally real', person: `John Smith (${SCAM})`, keywords: [`Vaccines ${SCAM}`] }]));
    api = await startApi({ env: { INDEX_PREFIX: store.prefix, CHANNEL_BASE_DOMAIN: BASE_DOMAIN, CHANNEL_CUSTOM_DOMAINS: 'off' } });
  });

  after(async function () {
    await api?.close();
    await store?.drop();
    await client?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("shows the victim's own names on its episode page and twin, and the look-alike only on the other channel's", async function () {
    const victim = await page('victim', `/episodes/${episodes.victim![0]}`);
    expect(namesOf(victim, 'people')).to.include('John Smith').and.not.include(SCAM);
    expect(namesOf(victim, 'topics')).to.include('vaccines').and.not.include(SCAM);
    const twin = await page('victim', `/episodes/${episodes.victim![0]}.md`);
    expect(twin).to.match(/People:\*\* John Smith\s*$/m);
    expect(twin).to.not.include(SCAM);

    const mallory = await page('mallory', `/episodes/${episodes.mallory![0]}`);
    expect(namesOf(mallory, 'people')).to.include(`John Smith (${SCAM})`);
    expect(await page('mallory', `/episodes/${episodes.mallory![0]}.md`)).to.include(`John Smith (${SCAM})`);
  });

  it('keeps non-Latin topics of one channel apart, each under its own name', async function () {
    const topics = namesOf(await page('victim', `/episodes/${episodes.victim![0]}`), 'topics');
    expect(topics).to.include('東京').and.include('Москва');
    const stored = await client.search({ index: store.aliases.facets, body: { size: 50, query: { term: { channelId: channelIdOf('victim') } } } } as never);
    const docs = (stored.body.hits.hits as { _id: string; _source: { id: string; name: string; channelId: string } }[]).map((h) => h._source);
    const ids = docs.filter((d) => d.name === '東京' || d.name === 'Москва').map((d) => d.id);
    expect(ids).to.have.length(2);
    expect(new Set(ids).size).to.equal(2);
  });

  it("stores each channel's names under ids of that channel, and drops the global document of before", async function () {
    const res = await client.search({ index: store.aliases.facets, body: { size: 50, query: { match_all: {} } } } as never);
    const hits = res.body.hits.hits as { _id: string; _source: { id: string; name: string; channelId: string | null } }[];
    expect(
      hits.every((h) => h._source.channelId !== null && h._id.startsWith(`${h._source.channelId}:`)),
      JSON.stringify(hits.map((h) => h._id)),
    ).to.equal(true);
    expect(hits.map((h) => h._id)).to.not.include('p_john-smith');
    const smiths = hits.filter((h) => h._source.id.startsWith('p_john-smith')).map((h) => [h._source.channelId, h._source.name]);
    expect(smiths).to.have.deep.members([
      [channelIdOf('victim'), 'John Smith'],
      [channelIdOf('mallory'), `John Smith (${SCAM})`],
    ]);
  });

  it("refuses a meta job whose name claims another library's channel, and leaves that channel's name as it was", async function () {
    const claim = { kind: 'person' as const, record: { id: 'p_john-smith', name: 'Renamed', channelId: channelIdOf('victim') } };
    let refused: unknown;
    await runJob(ctx, { kind: 'meta', library: 'elsewhere', users: [], channels: [], facets: [claim] }).catch((err: unknown) => (refused = err));
    expect((refused as { code?: string } | undefined)?.code).to.equal('invalid_record');
    expect(namesOf(await page('victim', `/episodes/${episodes.victim![1]}`), 'people'))
      .to.include('John Smith')
      .and.not.include('Renamed');
  });

  it("filters each channel's catalog by the ids its episodes hold: the victim's p_john-smith and t_vaccines as before", async function () {
    const { key } = await store.key('u_victim');
    // The catalog rows were written without a refresh: read what every write made, not what the last refresh saw.
    await client.indices.refresh({ index: store.aliases.episodes });
    const list = async (slug: string, query: string) => {
      const res = await api.request(`/api/v1/channels/${slug}/episodes?${query}`, { headers: { 'x-api-key': key } });
      expect(res.status, res.text).to.equal(200);
      return (res.body as { episodes: { id: string }[] }).episodes.map((e) => e.id);
    };
    expect(await list('victim', 'personIds=p_john-smith')).to.have.members(episodes.victim!);
    expect(await list('victim', 'topicIds=t_vaccines')).to.have.members(episodes.victim!);

    const { key: malloryKey } = await store.key('u_mallory');
    const res = await api.request('/api/v1/channels/mallory/episodes', { headers: { 'x-api-key': malloryKey } });
    const [row] = (res.body as { episodes: { id: string; personIds: string[] }[] }).episodes;
    expect(row!.personIds).to.have.length(1);
    expect(row!.personIds[0]).to.not.equal('p_john-smith');
    const byId = await api.request(`/api/v1/channels/mallory/episodes?personIds=${encodeURIComponent(row!.personIds[0]!)}`, { headers: { 'x-api-key': malloryKey } });
    expect((byId.body as { episodes: { id: string }[] }).episodes.map((e) => e.id)).to.deep.equal(episodes.mallory);
  });
});
