// Transcript, chapters and related episodes on a small world of our own, including stored data the API must refuse to serve.
import { expect } from 'chai';
import { enrichedEpisode, episodeRecord } from '../support/api-fixture.js';
import { useApiWorld } from '../support/api-world.js';

describe('API episode resources: transcript, chapters, related', function () {
  this.timeout(60_000);
  const world = useApiWorld();

  const get = (path: string) => world.api.request(path, { headers: world.memberHeaders });

  describe('transcript', function () {
    it('serves the stored transcript exactly as stored, for every non-archived status', async function () {
      for (const id of ['ep_a01', 'ep_a02', 'ep_a04', 'ep_a05', 'ep_a16']) {
        const res = await get(`/api/v1/episodes/${id}/transcript`);
        expect(res.status, id).to.equal(200);
        expect(res.body, id).to.deep.equal(world.alpha.find((e) => e.id === id)!.transcript);
      }
    });

    it('answers 404 transcript_not_found when the episode has no transcript yet', async function () {
      await world.store.episodes([episodeRecord('ep_untranscribed', 'ch_alpha', { status: 'pending', transcript: null })]);
      const res = await get('/api/v1/episodes/ep_untranscribed/transcript');
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('transcript_not_found');
    });

    const broken: [string, unknown][] = [
      ['segments that are not an array', { formatVersion: 1, segments: 'nope' }],
      ['a segment without text', { formatVersion: 1, segments: [{ startMs: 0, endMs: 1 }] }],
      ['a word without its end', { formatVersion: 1, segments: [{ startMs: 0, endMs: 1, text: 'a', words: [{ t: 'a', s: 0 }] }] }],
      ['a word that starts before 0 ms', { formatVersion: 1, segments: [{ startMs: 0, endMs: 1, text: 'a', words: [{ t: 'a', s: -40, e: 1 }] }] }],
      ['another format version', { formatVersion: 2, segments: [] }],
      ['JSON text that does not parse', '{"formatVersion": 1, "segm'],
    ];
    for (const [what, document] of broken) {
      it(`answers 502 transcript_unreadable for a stored transcript with ${what}`, async function () {
        await world.store.put('transcripts', 'ep_a03', { episodeId: 'ep_a03', channelId: 'ch_alpha', status: 'published', archived: false, document });
        try {
          const res = await get('/api/v1/episodes/ep_a03/transcript');
          expect(res.status).to.equal(502);
          expect(res.body.code).to.equal('transcript_unreadable');
        } finally {
          await world.store.episodes([world.alpha[3]!]);
        }
      });
    }

    it('serves a transcript stored as JSON text once parsed', async function () {
      const doc = world.alpha[3]!.transcript;
      await world.store.put('transcripts', 'ep_a03', { episodeId: 'ep_a03', channelId: 'ch_alpha', status: 'published', archived: false, document: JSON.stringify(doc) });
      try {
        const res = await get('/api/v1/episodes/ep_a03/transcript');
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal(doc);
      } finally {
        await world.store.episodes([world.alpha[3]!]);
      }
    });
  });

  describe('chapters', function () {
    it("serves chapters with their key moments as stored, each saying it is the creator's (generated: false)", async function () {
      const res = await get('/api/v1/episodes/ep_a01/chapters');
      expect(res.status).to.equal(200);
      const creators = world.alpha[1]!.chapters!.map((c) => ({ ...c, generated: false, moments: c.moments.map((m) => ({ ...m, generated: false })) }));
      expect(res.body).to.deep.equal(creators);
    });

    it('says generated: true on every chapter and key moment made from the transcript (decision 27), the rest of each as stored', async function () {
      const record = enrichedEpisode('ep_enriched', 'ch_alpha');
      await world.store.episodes([record]);
      const res = await get('/api/v1/episodes/ep_enriched/chapters');
      expect(res.status).to.equal(200);
      const body = res.body as { generated: unknown; moments: { generated: unknown }[] }[];
      expect(body).to.have.length(2);
      expect(body.map((c) => c.generated)).to.deep.equal([true, true]);
      expect(body.flatMap((c) => c.moments.map((m) => m.generated))).to.deep.equal([true, true, true]);
      expect(body).to.deep.equal(record.chapters);
    });

    it('answers [] for an episode without chapters', async function () {
      await world.store.episodes([episodeRecord('ep_nochapters', 'ch_alpha', { chapters: null })]);
      await world.store.remove('chapters', 'ep_nochapters');
      expect((await get('/api/v1/episodes/ep_nochapters/chapters')).body).to.deep.equal([]);
    });
  });

  describe('related (decision 16)', function () {
    /** Expected related list computed from the records: other published, non-archived episodes ranked by shared topics, newest first, then id. */
    function expected(id: string): { id: string; shared: string[] }[] {
      const source = world.alpha.find((e) => e.id === id)!;
      return world.alpha
        .filter((e) => e.id !== id && e.status === 'published')
        .map((e) => ({ e, shared: e.topicIds!.filter((t) => source.topicIds!.includes(t)) }))
        .filter((x) => x.shared.length > 0)
        .sort((a, b) => b.shared.length - a.shared.length || Date.parse(b.e.publishedAt) - Date.parse(a.e.publishedAt) || (a.e.id < b.e.id ? -1 : 1))
        .slice(0, 10)
        .map((x) => ({ id: x.e.id, shared: x.shared }));
    }

    for (const id of ['ep_a00', 'ep_a03', 'ep_a06', 'ep_a10']) {
      it(`ranks up to 10 published episodes by shared topics, ties newest first, for ${id}`, async function () {
        const res = await get(`/api/v1/episodes/${id}/related`);
        expect(res.status).to.equal(200);
        expect(res.body.map((r: { id: string; sharedTopicIds: string[] }) => ({ id: r.id, shared: r.sharedTopicIds }))).to.deep.equal(expected(id));
        for (const r of res.body) {
          expect(r.score).to.equal(r.sharedTopicIds.length);
          expect(r.url).to.equal(`https://alpha.creators.example.com/episodes/${r.id}`);
          expect(r).to.have.all.keys('id', 'title', 'url', 'publishedAt', 'durationMs', 'thumbnail', 'sharedTopicIds', 'score');
        }
      });
    }

    it('never relates archived or unpublished episodes', async function () {
      const res = await get('/api/v1/episodes/ep_a00/related');
      const ids = res.body.map((r: { id: string }) => r.id);
      expect(ids).not.to.include('ep_a07');
      expect(ids).not.to.include('ep_a13');
      for (const id of ids) expect(world.alpha.find((e) => e.id === id)!.status).to.equal('published');
    });

    it('answers [] for an episode without topics', async function () {
      await world.store.episodes([episodeRecord('ep_notopics', 'ch_alpha', { topicIds: [] })]);
      expect((await get('/api/v1/episodes/ep_notopics/related')).body).to.deep.equal([]);
    });
  });

  it('answers 404 for an archived episode on every episode endpoint', async function () {
    for (const id of ['ep_a07', 'ep_a13']) {
      for (const what of ['transcript', 'chapters', 'related']) {
        const res = await get(`/api/v1/episodes/${id}/${what}`);
        expect(res.status, `${id} ${what}`).to.equal(404);
        expect(res.body.code).to.equal('episode_not_found');
      }
    }
  });
});
