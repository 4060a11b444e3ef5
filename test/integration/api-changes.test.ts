// The change feed end to end: episodes written by the indexer, read back through the API, against the real OpenSearch and Redis.
import { expect } from 'chai';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { countDocs, privatePrefix, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';
import { indexEpisode, removeEpisodesNotIn, type IndexContext } from '../../indexer/load-episode.js';
import { loadLibrary } from '../../indexer/load-library.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { decodeChangesCursor, encodeChangesCursor } from '../../src/routes/changes.js';
import type { ChangeDoc } from '../../core/changes/log.js';
import { purgeExpiredChanges } from '../../core/changes/purge.js';
import { recordChanges, takeSeqs } from '../../core/changes/record.js';
import { deleteIndices, type Client } from '../../core/store/opensearch.js';

interface Change {
  id: string;
  type: string;
  episodeId: string;
  status: string | null;
  occurredAt: string;
}

describe('API: the change feed (GET /api/v1/channels/{slug}/changes)', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let api: ApiHarness;
  let anonymousApi: ApiHarness;
  let ctx: IndexContext;
  let member: Record<string, string>;
  let outsider: Record<string, string>;

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    api = await startApi({ env: { INDEX_PREFIX: store.prefix } });
    anonymousApi = await startApi({ env: { INDEX_PREFIX: store.prefix, ANONYMOUS_READ: 'published' } });
    member = { 'x-api-key': (await store.key('u_member')).key };
    outsider = { 'x-api-key': (await store.key('u_outsider')).key };
  });

  after(async function () {
    await api?.close();
    await anonymousApi?.close();
    await store?.drop();
    await client?.close();
  });

  /** Writes as the indexer does, then makes the changes readable (the feed reads near-real-time, like every list). */
  async function write(...records: EpisodeRecord[]): Promise<void> {
    for (const r of records) await indexEpisode(ctx, r);
    await client.indices.refresh({ index: store.aliases.changes });
  }

  async function remove(keepIds: string[]): Promise<void> {
    await removeEpisodesNotIn(ctx, { channelIds: ['ch_alpha'], keepIds });
    await client.indices.refresh({ index: store.aliases.changes });
  }

  /** Pages the feed from `cursor` until caught up, as a client does. */
  async function follow(
    from: ApiHarness,
    headers: Record<string, string>,
    cursor?: string,
    limit = 2,
    slug = 'alpha',
  ): Promise<{ changes: Change[]; cursor: string; pages: number }> {
    const changes: Change[] = [];
    let pages = 0;
    for (;;) {
      const res = await from.request(`/api/v1/channels/${slug}/changes?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { headers });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers['cache-control']).to.equal('private, no-store');
      expect(res.body.changes.length).to.be.at.most(limit);
      changes.push(...res.body.changes);
      cursor = res.body.cursor as string;
      pages++;
      if (!res.body.hasMore) return { changes, cursor, pages };
    }
  }

  const brief = (changes: Change[]) => changes.map((c) => `${c.type} ${c.episodeId} ${c.status}`);
  const alpha = (id: string, overrides: Partial<EpisodeRecord> = {}) => episodeRecord(id, 'ch_alpha', overrides);

  it('gives a client paging from the beginning every creation and status change, in order', async function () {
    await write(alpha('ep_c1', { status: 'pending' }), alpha('ep_c2', { status: 'pending' }));
    await write(alpha('ep_c1', { status: 'processing' }), alpha('ep_c1', { status: 'published' }), alpha('ep_c2', { status: 'failed', error: 'no audio' }));
    await write(alpha('ep_c1', { status: 'published', title: 'A better title' }));
    await write(alpha('ep_c2', { status: 'archived', error: 'no audio' }));

    const { changes, pages } = await follow(api, member);
    expect(brief(changes)).to.deep.equal([
      'episode.created ep_c1 pending',
      'episode.created ep_c2 pending',
      'episode.updated ep_c1 processing',
      'episode.updated ep_c1 published',
      'episode.updated ep_c2 failed',
      'episode.updated ep_c1 published',
      'episode.deleted ep_c2 null',
    ]);
    expect(pages).to.be.at.least(4);
    expect(new Set(changes.map((c) => c.id)).size).to.equal(changes.length);
    for (const c of changes) expect(c.occurredAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('gives only what came later when a client resumes from its cursor, and an empty page with a cursor when caught up', async function () {
    const { cursor } = await follow(api, member);
    const caughtUp = await api.request(`/api/v1/channels/alpha/changes?cursor=${cursor}`, { headers: member });
    expect(caughtUp.body).to.include({ hasMore: false });
    expect(caughtUp.body.changes).to.deep.equal([]);
    expect(caughtUp.body.cursor).to.be.a('string');

    await write(alpha('ep_c3', { status: 'pending' }));
    await remove(['ep_c1', 'ep_c2']);
    const later = await follow(api, member, caughtUp.body.cursor as string);
    expect(brief(later.changes)).to.deep.equal(['episode.created ep_c3 pending', 'episode.deleted ep_c3 null']);
    // Replaying the same cursor gives the same changes, ids included: a client de-duplicates on them.
    const again = await follow(api, member, caughtUp.body.cursor as string);
    expect(again.changes).to.deep.equal(later.changes);
  });

  it('records nothing when an unchanged episode is written again, forced or not, or a sync keeps everything', async function () {
    const { cursor } = await follow(api, member);
    await indexEpisode(ctx, alpha('ep_c1', { status: 'published', title: 'A better title' }));
    await indexEpisode(ctx, alpha('ep_c1', { status: 'published', title: 'A better title' }), { force: true });
    await remove(['ep_c1', 'ep_c2']);
    const after = await follow(api, member, cursor);
    expect(after.changes).to.deep.equal([]);
  });

  it('answers an outsider 404 as for an unknown channel, and a free-plan channel 403', async function () {
    const outsiders = await api.request('/api/v1/channels/alpha/changes', { headers: outsider });
    const unknown = await api.request('/api/v1/channels/no-such-channel/changes', { headers: member });
    expect(outsiders.status).to.equal(404);
    expect(outsiders.body.code).to.equal('channel_not_found');
    expect(unknown.body.code).to.equal(outsiders.body.code);
    expect(unknown.body.error).to.equal(outsiders.body.error);
    const free = await api.request('/api/v1/channels/free-show/changes', { headers: member });
    expect(free.status).to.equal(403);
    expect(free.body.code).to.equal('plan_required');
    const anonymous = await api.request('/api/v1/channels/alpha/changes');
    expect(anonymous.status).to.equal(401);
  });

  it('answers 410 cursor_expired for a cursor older than the retention or past the end of the log', async function () {
    const view = { channelId: 'ch_alpha', publishedOnly: false };
    const old = encodeChangesCursor(view, { seq: 1, issuedAt: new Date(Date.now() - 31 * 86_400_000) });
    const res = await api.request(`/api/v1/channels/alpha/changes?cursor=${old}`, { headers: member });
    expect(res.status).to.equal(410);
    expect(res.body).to.include({ code: 'cursor_expired', parameter: 'cursor' });
    expect(res.body.error).to.match(/list the catalog again/);
    const lost = encodeChangesCursor(view, { seq: 1_000_000, issuedAt: new Date() });
    expect((await api.request(`/api/v1/channels/alpha/changes?cursor=${lost}`, { headers: member })).body.code).to.equal('cursor_expired');
  });

  it('answers 400 invalid_cursor for a malformed cursor, or one made for another view', async function () {
    const outOfAlphabet = await api.request('/api/v1/channels/alpha/changes?cursor=%25%25', { headers: member });
    expect(outOfAlphabet.body).to.include({ code: 'invalid_parameter', parameter: 'cursor' });
    for (const cursor of ['bm90LWEtY3Vyc29y', encodeChangesCursor({ channelId: 'ch_alpha', publishedOnly: true }, { seq: 0, issuedAt: new Date() })]) {
      const res = await api.request(`/api/v1/channels/alpha/changes?cursor=${cursor}`, { headers: member });
      expect(res.status, cursor).to.equal(400);
      expect(res.body).to.include({ code: 'invalid_cursor', parameter: 'cursor' });
    }
    const limit = await api.request('/api/v1/channels/alpha/changes?limit=101', { headers: member });
    expect(limit.body).to.include({ code: 'invalid_parameter', parameter: 'limit' });
  });

  it('shows an anonymous caller published episodes only: publishing as a creation, unpublishing as a deletion, pending ones never', async function () {
    const start = await follow(anonymousApi, {});
    const memberStart = await follow(api, member);
    await write(alpha('ep_p1', { status: 'pending' }), alpha('ep_secret', { status: 'pending' }));
    await write(alpha('ep_p1', { status: 'published' }), alpha('ep_secret', { status: 'processing' }));
    await write(alpha('ep_p1', { status: 'published', title: 'Retitled' }), alpha('ep_secret', { status: 'failed' }));
    await write(alpha('ep_p1', { status: 'indexed', title: 'Retitled' }));
    await remove(['ep_c1', 'ep_c2', 'ep_p1']);

    const seen = await follow(anonymousApi, {}, start.cursor, 1);
    expect(brief(seen.changes)).to.deep.equal(['episode.created ep_p1 published', 'episode.updated ep_p1 published', 'episode.deleted ep_p1 null']);
    expect(JSON.stringify(seen)).not.to.contain('ep_secret');
    // The member sees all of it, with the same ids for the changes both see.
    const all = await follow(api, member, memberStart.cursor, 100);
    expect(all.changes.filter((c) => c.episodeId === 'ep_secret').map((c) => c.type)).to.deep.equal(['episode.created', 'episode.updated', 'episode.updated', 'episode.deleted']);
    expect(all.changes.map((c) => c.id)).to.include.members(seen.changes.map((c) => c.id));
    // A member's cursor is no anonymous one.
    expect((await anonymousApi.request(`/api/v1/channels/alpha/changes?cursor=${all.cursor}`)).status).to.equal(400);
  });

  it('waits at a fresh hole in the sequence (a writer still storing) and steps over it once older than the grace (a writer that died)', async function () {
    const view = { channelId: 'ch_custom', publishedOnly: false };
    const seqOf = (cursor: string) => decodeChangesCursor(cursor, view, { now: new Date(), retentionDays: 30 }).seq;
    const { cursor } = await follow(api, member, undefined, 50, 'custom');
    // A writer took a seq and has not stored its change yet; the next writer's change is readable first.
    const hole = await takeSeqs(client, store.aliases.changes, 'ch_custom', 1);
    const next = await recordChanges(client, store.aliases.changes, [
      { channelId: 'ch_custom', episodeId: 'ep_h1', type: 'episode.created', status: 'pending', previousStatus: null },
    ]);
    expect(next[0]!.seq).to.equal(hole + 1);
    await client.indices.refresh({ index: store.aliases.changes });
    const waiting = await follow(api, member, cursor, 50, 'custom');
    expect(waiting.changes).to.deep.equal([]);
    expect(seqOf(waiting.cursor)).to.equal(seqOf(cursor));

    // The same change as it stands once the grace has passed with the hole still open.
    const aged = { ...next[0]!, occurredAt: new Date(Date.now() - 60_000).toISOString() };
    await client.index({ index: store.aliases.changes, id: aged.id, body: aged, refresh: true } as never);
    const stepped = await follow(api, member, cursor, 50, 'custom');
    expect(brief(stepped.changes)).to.deep.equal(['episode.created ep_h1 pending']);
    expect(seqOf(stepped.cursor)).to.equal(hole + 1);
  });

  it('deletes changes older than the retention, and keeps the rest', async function () {
    const channelId = 'ch_retention';
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    await recordChanges(client, store.aliases.changes, [{ channelId, episodeId: 'ep_old', type: 'episode.created', status: 'pending', previousStatus: null }], {
      now: () => longAgo,
    });
    await recordChanges(client, store.aliases.changes, [{ channelId, episodeId: 'ep_new', type: 'episode.created', status: 'pending', previousStatus: null }]);
    await client.indices.refresh({ index: store.aliases.changes });
    expect(await purgeExpiredChanges(client, store.aliases.changes, { retentionDays: 30 })).to.equal(1);
    await client.indices.refresh({ index: store.aliases.changes });
    const left = await client.search({ index: store.aliases.changes, body: { query: { term: { channelId } } } } as never);
    expect((left.body as { hits: { hits: { _source: ChangeDoc }[] } }).hits.hits.map((h) => h._source.episodeId).filter(Boolean)).to.deep.equal(['ep_new']);
  });
});

describe('indexer: the change feed over a whole library', function () {
  this.timeout(120_000);
  let client: Client;
  let prefix: string;

  before(function () {
    client = testClient();
    prefix = privatePrefix('changes');
  });

  after(async function () {
    await deleteIndices(client, prefix);
    await client.close();
  });

  it('records one creation per shown episode on the first load, and nothing when the unchanged library is loaded again, forced or not', async function () {
    const embedder = createHashEmbedder();
    const changes = () => countDocs(client, prefix, 'changes', { term: { kind: 'change' } });
    const first = await loadLibrary({ client, embedder, prefix, dir: SAMPLE_LIBRARY });
    expect(first.ok).to.equal(true);
    // Eleven episodes, one of them archived: an archived episode is never shown, so its arrival is no change.
    expect(await changes()).to.equal(10);
    await loadLibrary({ client, embedder, prefix, dir: SAMPLE_LIBRARY });
    await loadLibrary({ client, embedder, prefix, dir: SAMPLE_LIBRARY, force: true });
    expect(await changes()).to.equal(10);
  });
});
