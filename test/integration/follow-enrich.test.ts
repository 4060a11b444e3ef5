// Enrichment in the follow pipeline, through the real worker (in-process), Redis and OpenSearch: an episode that
// arrives with speech only is published with generated chapters, moments and topics shared across the channel; one
// whose feed gives chapters keeps the creator's; a failed enrichment publishes the transcript bare and says so.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { facetDocId, type FacetDoc } from '../../core/store/documents.js';
import { Registry } from 'prom-client';
import type { EnrichParts } from '../../pipeline/enrich/enrich-thread.js';
import { registerPipelineMetrics } from '../../pipeline/metrics/follow.js';
import { loadTally, rebuildTally } from '../../pipeline/enrich/channel-stats.js';
import type { ProcessJob } from '../../pipeline/follow/queues.js';
import type { ProcessResult } from '../../pipeline/follow/process.js';
import { feedXml, startFeedServer, type FeedServer, type FeedServerItem } from '../../scripts/lib/fakes/feed-server.js';
import { startApi } from '../support/api-harness.js';
import { newApiKey, storeApiKey } from '../../src/auth/key-store.js';
import { openFollowStore, runFollow, startSuiteWorkers, until } from '../support/follow-env.js';

const OWNER = 'u_enrich_owner';
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const clock = (s: number) => `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)},000`;

/** Sentences of two subjects, each said for about three minutes: soil, then water rights. */
const SOIL = [
  'Cover crops keep the soil covered through the winter and feed the soil biology.',
  'Soil organic matter builds slowly when farmers stop tilling the soil every spring.',
  'No-till planting leaves crop residue on the soil surface and the soil holds more water.',
  'A soil test tells you how much nitrogen the soil still holds after the harvest.',
];
const WATER = [
  'Water rights on the river were allocated a century ago, before anyone measured the aquifer.',
  'The irrigation district pumps groundwater faster than the aquifer can recharge.',
  'Senior water rights holders can call the river and junior irrigators must stop pumping.',
  'A water market lets an irrigation district lease water rights to the city in dry years.',
];
/** An SRT of six-second cues: `minutes` of each subject in turn. */
function talk(subjects: readonly (readonly string[])[], minutes = 3): string {
  const cues: string[] = [];
  let t = 0;
  for (const sentences of subjects) {
    for (let i = 0; i < (minutes * 60) / 6; i++, t += 6) cues.push(`${cues.length + 1}\n${clock(t)} --> ${clock(t + 6)}\n${sentences[i % sentences.length]}\n`);
  }
  return cues.join('\n');
}

interface EpisodeFile {
  id: string;
  channelId: string;
  title: string;
  status: string;
  error: string | null;
  chapters: { title: string; startMs: number; endMs: number; generated?: boolean; moments: { type: string; title: string; startMs: number; generated?: boolean }[] }[];
  topicIds?: string[];
  transcript: { segments: { startMs: number; endMs: number }[] } | null;
}

describe('follow: enrichment before publishing', function () {
  this.timeout(300_000);
  const cleanups: (() => Promise<void>)[] = [];

  after(async function () {
    for (const c of cleanups.reverse()) await c();
  });

  /** A channel following a loopback feed of `items`, its workers running with `stages`; returns what a test reads. */
  async function follow(
    slug: string,
    items: FeedServerItem[],
    files: Record<string, string>,
    stages: (embed: (t: string[]) => Promise<number[][]>) => EnrichParts & { deadlineMs?: number },
    chaptersOf?: string,
    registry?: Registry,
  ) {
    const store = await openFollowStore(`follow-${slug}`, { owners: [OWNER] });
    const { client, prefix, libraryDir, env, aliases, embeddings } = store;
    const feed: FeedServer = await startFeedServer({ title: slug });
    cleanups.push(async () => {
      await feed.close();
      await store.drop();
    });
    for (const [path, body] of Object.entries(files)) feed.setFile(path, body, path.endsWith('.json') ? 'application/json+chapters' : 'application/srt');
    let xml = feedXml({ title: slug, language: 'en', base: feed.url, items });
    if (chaptersOf)
      xml = xml.replace(
        `<guid isPermaLink="false">${chaptersOf}</guid>`,
        `<guid isPermaLink="false">${chaptersOf}</guid>\n      <podcast:chapters url="${feed.url}/chapters.json" type="application/json+chapters"/>`,
      );
    feed.setFeedAnswer({ status: 200, headers: { 'Content-Type': 'application/rss+xml' }, body: xml });
    const followed = await runFollow([feed.feedUrl, '--channel', slug, '--owner', OWNER], env);
    expect(followed.code, followed.stderr).to.equal(0);
    const embedder = embeddings.embedder();
    const results: ProcessResult[] = [];
    const workers = await startSuiteWorkers({ client, prefix, env, embeddings, enrich: stages((texts) => embedder.embedPassages(texts)) });
    cleanups.push(() => workers.close());
    if (registry) registerPipelineMetrics({ registry, poll: workers.poll, process: workers.process });
    workers.process.on('completed', (_job: Job<ProcessJob>, result: ProcessResult) => results.push(result));
    const dir = join(libraryDir, slug);
    const episodes = async (): Promise<EpisodeFile[]> => {
      const index = aliases.episodes;
      await client.indices.refresh({ index });
      const res = await client.search({ index, body: { size: 100, query: { term: { channelId: `ch_${slug}` } } } } as never);
      const ids = (res.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
      return Promise.all(ids.map(async (id) => JSON.parse(await readFile(join(dir, 'episodes', `${id}.json`), 'utf8')) as EpisodeFile));
    };
    // Finished in the folder and in the catalog: the index step follows the publishing write.
    const finished = (status: unknown) => status === 'published' || status === 'failed';
    await until('every item published', async () => {
      const list = await episodes();
      if (list.length !== items.length || !list.every((e) => finished(e.status))) return false;
      const res = await client.search({ index: aliases.episodes, body: { size: 100, query: { term: { channelId: `ch_${slug}` } } } } as never);
      return (res.body as { hits: { hits: { _source: { status: string } }[] } }).hits.hits.every((h) => finished(h._source.status));
    });
    return { dir, prefix, episodes, results, aliases, env, client, embeddings, feed, xml };
  }

  it('publishes speech-only episodes with generated chapters on segment starts, typed moments and topics they share', async function () {
    const items: FeedServerItem[] = [
      { guid: 'a', title: 'Soil, then water', pubDate: new Date(Date.UTC(2026, 3, 1)), transcript: { path: '/srt/a.srt', type: 'application/srt' } },
      { guid: 'b', title: 'Water, then soil', pubDate: new Date(Date.UTC(2026, 3, 2)), transcript: { path: '/srt/b.srt', type: 'application/srt' } },
      { guid: 'c', title: 'With its own chapters', pubDate: new Date(Date.UTC(2026, 3, 3)), transcript: { path: '/srt/c.srt', type: 'application/srt' } },
    ];
    const creatorChapters = {
      version: '1.2.0',
      chapters: [
        { startTime: 0, title: 'Soil first' },
        { startTime: 180, title: 'Then water' },
      ],
    };
    const { dir, episodes, results, aliases, prefix, env, client, embeddings, feed, xml } = await follow(
      'enriched-radio',
      items,
      { '/srt/a.srt': talk([SOIL, WATER]), '/srt/b.srt': talk([WATER, SOIL]), '/srt/c.srt': talk([SOIL, WATER]), '/chapters.json': JSON.stringify(creatorChapters) },
      (embed) => ({ embed, bounds: { minMs: 60_000, maxMs: 20 * 60_000, singleBelowMs: 3 * 60_000 } }),
      'c',
    );
    const byTitle = new Map((await episodes()).map((e) => [e.title, e]));
    for (const title of ['Soil, then water', 'Water, then soil']) {
      const e = byTitle.get(title)!;
      expect(e.status, title).to.equal('published');
      const starts = new Set(e.transcript!.segments.map((s) => s.startMs));
      expect(e.chapters.length, title).to.be.greaterThan(0);
      for (const c of e.chapters) {
        expect(c.generated).to.equal(true);
        expect(starts.has(c.startMs)).to.equal(true);
        expect(c.moments.length).to.be.within(1, 3);
        for (const m of c.moments) expect(m.generated).to.equal(true);
      }
      expect(e.topicIds?.length, `${title} topics`).to.be.within(3, 8);
    }
    const [a, b] = [byTitle.get('Soil, then water')!, byTitle.get('Water, then soil')!];
    expect(a.topicIds!.filter((t) => b.topicIds!.includes(t)).length, 'topics the two episodes share').to.be.greaterThan(0);
    // The names are in the channel's topics.json, marked, and indexed as facets.
    const topics = JSON.parse(await readFile(join(dir, 'topics.json'), 'utf8')) as { id: string; generated?: boolean }[];
    for (const id of a.topicIds!) expect(topics.find((t) => t.id === id)?.generated, id).to.equal(true);
    await client.indices.refresh({ index: aliases.facets });
    // Under the channel's own id (decision 33), marked there.
    const facet = await client.get({ index: aliases.facets, id: facetDocId(a.channelId, a.topicIds![0]!) } as never).catch(() => undefined);
    expect(facet, 'the topic name is indexed').to.not.equal(undefined);
    expect((facet!.body as { _source: FacetDoc })._source).to.include({ channelId: a.channelId, id: a.topicIds![0], generated: true });
    // The publishing writes kept the channel statistics file: the three episodes counted, as a rebuild counts them.
    const [channel] = JSON.parse(await readFile(join(dir, 'channels.json'), 'utf8')) as { id: string; language?: string | null }[];
    const stats = await loadTally(dir, channel!.id, (channel!.language || 'en').toLowerCase());
    expect(stats.from, 'channel-stats.json written at publish').to.equal('file');
    expect([...stats.tally.episodes.values()].filter((e) => e.text !== null)).to.have.length(3);
    expect(stats.tally.df.entries()).to.deep.equal((await rebuildTally(dir, channel!.id, stats.tally.language)).df.entries());
    // The creator's chapters stay the creator's.
    const c = byTitle.get('With its own chapters')!;
    expect(c.chapters.map((ch) => ch.title)).to.deep.equal(['Soil first', 'Then water']);
    expect(c.chapters.every((ch) => ch.generated !== true)).to.equal(true);
    await until('the job results', async () => results.length === items.length);
    expect(results.filter((r) => r.outcome === 'published').map((r) => r.enrichment)).to.include.members(['enriched']);

    // Through the API: /related meets the two on their shared topics, and a topic filter narrows the list to them.
    const api = await startApi({ env: { ...env, INDEX_PREFIX: prefix }, embedder: embeddings.embedder() });
    try {
      const { key } = await storeApiKey({ client, aliases }, newApiKey({ userId: OWNER }));
      const headers = { 'x-api-key': key };
      const related = await api.request(`/api/v1/episodes/${a.id}/related`, { headers });
      expect(related.status).to.equal(200);
      expect((related.body as { id: string }[]).map((r) => r.id)).to.include(b.id);
      const shared = a.topicIds!.find((t) => b.topicIds!.includes(t))!;
      const listed = await api.request(`/api/v1/channels/enriched-radio/episodes?topicIds=${encodeURIComponent(shared)}`, { headers });
      expect(listed.status).to.equal(200);
      const ids = (listed.body as { episodes: { id: string }[] }).episodes.map((e) => e.id);
      expect(ids).to.include.members([a.id, b.id]);
      expect(ids.length).to.be.below(items.length + 1);
      const chapters = await api.request(`/api/v1/episodes/${a.id}/chapters`, { headers });
      expect((chapters.body as { generated: boolean }[]).every((ch) => ch.generated)).to.equal(true);

      // The next poll of a changed feed (one item retitled, no facets of its own) keeps what enrichment made.
      feed.setFeedAnswer({
        status: 200,
        headers: { 'Content-Type': 'application/rss+xml' },
        body: xml.replace('<title>Soil, then water</title>', '<title>Soil, then water (retitled)</title>'),
      });
      const polled = await runFollow(['--poll', 'enriched-radio'], env);
      expect(polled.code, polled.stderr).to.equal(0);
      const after = new Map((await episodes()).map((e) => [e.id, e]));
      expect(after.get(a.id)?.title, 'the new title applied').to.equal('Soil, then water (retitled)');
      expect(after.get(a.id)?.topicIds, "the retitled episode's generated topics").to.deep.equal(a.topicIds);
      expect(after.get(b.id)?.topicIds, "an untouched episode's generated topics").to.deep.equal(b.topicIds);
      const relatedAfter = await api.request(`/api/v1/episodes/${a.id}/related`, { headers });
      expect(
        (relatedAfter.body as { id: string }[]).map((r) => r.id),
        '/related after the poll',
      ).to.include(b.id);
    } finally {
      await api.close();
    }
  });

  it('publishes the transcript without generated chapters when enrichment fails, and says so in the result', async function () {
    const items: FeedServerItem[] = [
      { guid: 'x', title: 'Enrichment breaks', pubDate: new Date(Date.UTC(2026, 3, 4)), transcript: { path: '/srt/x.srt', type: 'application/srt' } },
    ];
    const { episodes, results } = await follow('bare-radio', items, { '/srt/x.srt': talk([SOIL, WATER]) }, () => ({
      embed: () => Promise.reject(new Error('the embedding service is down')),
    }));
    const [e] = await episodes();
    // The job's result reaches the worker's event after the episode is written.
    await until('the job result', async () => results.length > 0);
    expect(e!.status).to.equal('published');
    expect(e!.error).to.equal(null);
    expect(e!.transcript!.segments.length).to.be.greaterThan(0);
    expect(e!.chapters).to.deep.equal([]);
    expect(results.at(-1)?.enrichment).to.equal('failed');
  });

  it('publishes the transcript bare when enrichment runs past its deadline, and counts it as a failed enrichment', async function () {
    const items: FeedServerItem[] = [
      { guid: 'late', title: 'Enrichment too slow', pubDate: new Date(Date.UTC(2026, 3, 5)), transcript: { path: '/srt/late.srt', type: 'application/srt' } },
    ];
    const registry = new Registry();
    // A deadline no enrichment meets: the thread is stopped while it reads the folder or waits for its first vectors.
    const { episodes, results } = await follow('late-radio', items, { '/srt/late.srt': talk([SOIL, WATER]) }, (embed) => ({ embed, deadlineMs: 1 }), undefined, registry);
    const [e] = await episodes();
    await until('the job result', async () => results.length > 0);
    expect(e!.status).to.equal('published');
    expect(e!.transcript!.segments.length).to.be.greaterThan(0);
    expect(e!.chapters).to.deep.equal([]);
    expect(results.at(-1)?.enrichment).to.equal('failed');
    const counted = (await registry.getSingleMetric('cca_pipeline_enrichments_total')!.get()).values;
    expect(counted.find((v) => v.labels.outcome === 'failed')?.value).to.equal(1);
    expect(counted.find((v) => v.labels.outcome === 'enriched')?.value).to.equal(0);
  });
});
