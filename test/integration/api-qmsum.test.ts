// The API over real qmsum libraries (shared, read-only fixtures) with the real model, checked against the library files:
// the compact corpus in the repository on every clone, and the whole data set where it is present.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { SORTS, type SortName } from '../../src/store/episode-queries.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { startApi, type ApiHarness, type ApiResponse } from '../support/api-harness.js';
import { skipWithoutDataset } from '../support/datasets.js';
import { CORPUS_DIR, QMSUM_DIR, QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded, ensureQmsumLoaded, type QmsumFixture } from '../support/qmsum-fixture.js';
import { createTokenKit, type TokenKit } from '../support/api-tokens.js';

type Meta = Omit<EpisodeRecord, 'transcript' | 'chapters'>;

interface Library {
  /** Catalog rows, straight from the files (transcripts and chapters dropped after parsing). */
  episodes: Meta[];
  channels: { id: string; slug: string; ownerId: string }[];
  /** The record of one episode file, transcript and chapters included. */
  file(id: string): EpisodeRecord;
}

async function readLibrary(dir: string): Promise<Library> {
  const meta = await readLibraryMeta(dir);
  const records = new Map<string, EpisodeRecord>();
  const onIssue = (i: { path: string; reason: string }) => {
    throw new Error(`${i.path}: ${i.reason}`);
  };
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue })) records.set(record.id, record);
  const episodes = [...records.values()].map(({ transcript: _t, chapters: _c, ...rest }) => rest);
  return { episodes, channels: meta.channels, file: (id) => records.get(id)! };
}

const PAID = ['product-meetings', 'research-meetings', 'committee-hearings'];

for (const { title, dir, load, dataset, pageSize } of [
  // Pages of 2 over the corpus's few episodes per channel, so that every listing spans several pages.
  { title: 'API over the qmsum corpus', dir: CORPUS_DIR, load: ensureCorpusLoaded, dataset: false, pageSize: 2 },
  { title: 'API over qmsum', dir: QMSUM_DIR, load: ensureQmsumLoaded, dataset: true, pageSize: 37 },
] as { title: string; dir: string; load: () => Promise<QmsumFixture>; dataset: boolean; pageSize: number }[]) {
  describe(title, function () {
    this.timeout(120_000);
    let api: ApiHarness;
    let kit: TokenKit;
    let library: Library;
    let member: Record<string, string>;
    let outsider: Record<string, string>;

    before(async function () {
      if (dataset) skipWithoutDataset(this, 'qmsum');
      this.timeout(QMSUM_LOAD_TIMEOUT_MS);
      const { prefix, client, embedder } = await load();
      kit = createTokenKit();
      // The fixture's client is shared by every suite: the harness must not close it.
      api = await startApi({ env: { INDEX_PREFIX: prefix, ...kit.env }, client, embedder });
      library = await readLibrary(dir);
      member = { authorization: `Bearer ${kit.sign({ sub: 'u_member' })}` };
      outsider = { authorization: `Bearer ${kit.sign({ sub: 'u_outsider' })}` };
    });

    after(async function () {
      await api?.close();
      kit?.cleanup();
    });

    const get = (path: string, headers = member) => api.request(path, { headers });
    const channelId = (slug: string) => library.channels.find((c) => c.slug === slug)!.id;
    const visibleIn = (slug: string) => library.episodes.filter((e) => e.channelId === channelId(slug) && e.status !== 'archived');
    const archived = () => library.episodes.filter((e) => e.status === 'archived');

    async function walk(slug: string, query: string): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const res: ApiResponse = await get(`/api/v1/channels/${slug}/episodes?${query}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.text.slice(0, 200)).to.equal(200);
        ids.push(...res.body.episodes.map((e: { id: string }) => e.id));
        cursor = res.body.nextCursor;
        if (!cursor) return ids;
      }
      throw new Error('pagination does not end');
    }

    it('lists the four channels of u_member with apiAccess from the owners plans, and none for u_outsider', async function () {
      const res = await get('/api/v1/channels');
      const access = Object.fromEntries(res.body.channels.map((c: { slug: string; apiAccess: boolean }) => [c.slug, c.apiAccess]));
      expect(access).to.deep.equal({ 'committee-hearings': true, 'free-plan-demo': false, 'product-meetings': true, 'research-meetings': true });
      expect((await get('/api/v1/channels', outsider)).body.channels).to.deep.equal([]);
    });

    for (const slug of PAID) {
      for (const sort of Object.keys(SORTS) as SortName[]) {
        it(`pages ${slug} sorted ${sort}: every non-archived episode exactly once, in order`, async function () {
          const ids = await walk(slug, `sort=${sort}&limit=${pageSize}`);
          const { field, order } = SORTS[sort];
          const key = (e: Meta) => {
            const v = (e as unknown as Record<string, unknown>)[field];
            return typeof v === 'string' ? Date.parse(v) : ((v as number | null | undefined) ?? null);
          };
          const expected = [...visibleIn(slug)]
            .sort((a, b) => {
              const [va, vb] = [key(a), key(b)];
              if (va !== vb) return va === null ? 1 : vb === null ? -1 : order === 'desc' ? vb - va : va - vb;
              return a.id < b.id ? -1 : 1;
            })
            .map((e) => e.id);
          expect(new Set(ids).size).to.equal(ids.length);
          expect(ids).to.deep.equal(expected);
        });
      }
    }

    it('maps every status view to the stored statuses of the library (decision 1)', async function () {
      const views: Record<string, string[]> = { queued: ['pending'], indexing: ['processing'], live: ['indexed', 'published'], failed: ['failed'] };
      for (const slug of PAID) {
        for (const [view, statuses] of Object.entries(views)) {
          const ids = await walk(slug, `status=${view}&limit=100`);
          const expected = visibleIn(slug)
            .filter((e) => statuses.includes(e.status))
            .map((e) => e.id);
          expect([...ids].sort(), `${slug} ${view}`).to.deep.equal(expected.sort());
        }
      }
    });

    it('shows a drafted (pending) episode in the list and serves its transcript to members', async function () {
      const draft = library.episodes.find((e) => e.status === 'pending' && PAID.some((s) => channelId(s) === e.channelId))!;
      const slug = library.channels.find((c) => c.id === draft.channelId)!.slug;
      expect(await walk(slug, 'status=queued&limit=100')).to.include(draft.id);
      const transcript = await get(`/api/v1/episodes/${draft.id}/transcript`);
      expect(transcript.status).to.equal(200);
      expect(transcript.body).to.deep.equal(library.file(draft.id).transcript);
    });

    it('never returns an archived episode: not in any list, and 404 on transcript, chapters and related', async function () {
      expect(archived().length).to.be.greaterThan(0);
      const listed = new Set<string>();
      for (const slug of PAID) for (const id of await walk(slug, 'limit=100')) listed.add(id);
      for (const e of archived()) {
        expect(listed.has(e.id), e.id).to.equal(false);
        for (const what of ['transcript', 'chapters', 'related']) {
          const res = await get(`/api/v1/episodes/${e.id}/${what}`);
          expect(res.status, `${e.id} ${what}`).to.equal(404);
          expect(res.body.code).to.equal('episode_not_found');
        }
      }
    });

    it('never relates an archived or unpublished episode', async function () {
      const archivedIds = new Set(archived().map((e) => e.id));
      const status = new Map(library.episodes.map((e) => [e.id, e.status]));
      for (const e of library.episodes.filter((x) => x.status !== 'archived' && (x.topicIds ?? []).length > 0 && PAID.some((s) => channelId(s) === x.channelId))) {
        const res = await get(`/api/v1/episodes/${e.id}/related`);
        expect(res.status).to.equal(200);
        expect(res.body.length).to.be.at.most(10);
        for (const r of res.body) {
          expect(archivedIds.has(r.id), `${e.id} → ${r.id}`).to.equal(false);
          expect(status.get(r.id)).to.equal('published');
          expect(r.id).not.to.equal(e.id);
          expect(r.sharedTopicIds.every((t: string) => e.topicIds!.includes(t))).to.equal(true);
        }
        const scores = res.body.map((r: { score: number }) => r.score);
        expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      }
    });

    it('never finds an archived episode by searching for its own title, keyword or hybrid', async function () {
      for (const e of archived()) {
        const slug = library.channels.find((c) => c.id === e.channelId)!.slug;
        for (const fast of ['true', 'false']) {
          const res = await get(`/api/v1/channels/${slug}/search?q=${encodeURIComponent(e.title)}&fast=${fast}&limit=50`);
          expect(res.status).to.equal(200);
          expect(
            res.body.episodes.map((x: { episodeId: string }) => x.episodeId),
            `${e.id} fast=${fast}`,
          ).not.to.include(e.id);
        }
      }
    });

    it('serves transcripts and chapters as the library holds them, for every non-archived status', async function () {
      for (const status of ['published', 'indexed', 'processing', 'failed']) {
        const e = library.episodes.find((x) => x.status === status && PAID.some((s) => channelId(s) === x.channelId))!;
        const file = library.file(e.id);
        const transcript = await get(`/api/v1/episodes/${e.id}/transcript`);
        expect(transcript.body, `${e.id} transcript`).to.deep.equal(file.transcript);
        const chapters = await get(`/api/v1/episodes/${e.id}/chapters`);
        expect(
          chapters.body.map((c: { title: string; startMs: number }) => [c.title, c.startMs]),
          `${e.id} chapters`,
        ).to.deep.equal((file.chapters ?? []).map((c) => [c.title, c.startMs]));
      }
    });

    it('answers 403 on every data endpoint of free-plan-demo to its member', async function () {
      const e = library.episodes.find((x) => x.channelId === channelId('free-plan-demo'))!;
      for (const path of [
        '/api/v1/channels/free-plan-demo/episodes',
        '/api/v1/channels/free-plan-demo/search?q=remote',
        `/api/v1/episodes/${e.id}/transcript`,
        `/api/v1/episodes/${e.id}/chapters`,
        `/api/v1/episodes/${e.id}/related`,
      ]) {
        const res = await get(path);
        expect(res.status, path).to.equal(403);
        expect(res.body.code).to.equal('plan_required');
      }
    });

    it('answers a non-member and an unknown slug or id with byte-identical 404 bodies apart from requestId', async function () {
      const strip = (r: ApiResponse) => r.text.replace(r.body.requestId, '');
      expect(strip(await get('/api/v1/channels/research-meetings/episodes', outsider))).to.equal(strip(await get('/api/v1/channels/research-meetings-2/episodes', outsider)));
      const e = visibleIn('research-meetings')[0]!;
      expect(strip(await get(`/api/v1/episodes/${e.id}/transcript`, outsider))).to.equal(strip(await get('/api/v1/episodes/ep_nope/transcript', outsider)));
    });

    it('searches with the real model: a dev query finds its meeting, with semantic matches among the results', async function () {
      const line = readFileSync(join(dir, 'queries-dev.jsonl'), 'utf8').split('\n')[0]!;
      const q = JSON.parse(line) as { channel: string; query: string; relevant: { episodeId: string }[] };
      const res = await get(`/api/v1/channels/${q.channel}/search?query=${encodeURIComponent(q.query)}&limit=10`);
      expect(res.status).to.equal(200);
      expect(res.body.query).to.equal(q.query);
      expect(res.body.episodes.map((e: { episodeId: string }) => e.episodeId)).to.include(q.relevant[0]!.episodeId);
      expect(res.body.episodes.some((e: { matchedVia: string[] }) => e.matchedVia.includes('semantic'))).to.equal(true);
      const fast = await get(`/api/v1/channels/${q.channel}/search?query=${encodeURIComponent(q.query)}&fast=1`);
      expect(fast.body.episodes.every((e: { matchedVia: string[] }) => !e.matchedVia.includes('semantic'))).to.equal(true);
    });
  });
}
