// The anonymous (published-only) change feed through the API against the real OpenSearch: its cursor tells nothing of
// the drafts' changes it steps over, and still moves past any number of them (security review 2026-11-27, item 11).
import { expect } from 'chai';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { testClient } from '../support/indexer-env.js';
import { indexEpisode, type IndexContext } from '../../indexer/load-episode.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { lastSeq } from '../../core/changes/read.js';
import type { Client } from '../../core/store/opensearch.js';

interface Page {
  changes: { id: string; type: string; episodeId: string }[];
  cursor: string;
  hasMore: boolean;
}

/** Every value inside a cursor, as a client can read it (base64url JSON). */
const cursorValues = (cursor: string): unknown[] => (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k: unknown[] }).k;

describe('API: the anonymous change feed and hidden drafts', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let anonymousApi: ApiHarness;
  let ctx: IndexContext;
  let drafts = 0;

  const alpha = (id: string, overrides: Partial<EpisodeRecord> = {}) => episodeRecord(id, 'ch_alpha', overrides) as EpisodeRecord;

  async function write(...records: EpisodeRecord[]): Promise<void> {
    for (const r of records) await indexEpisode(ctx, r);
    await client.indices.refresh({ index: store.aliases.changes });
  }

  /** `n` changes of drafts (pending episodes) the anonymous view hides. */
  const hiddenChanges = (n: number) => write(...Array.from({ length: n }, () => alpha(`ep_draft${++drafts}`, { status: 'pending' })));

  /** Pages from `cursor` until caught up, as a client does; the last page's cursor. */
  async function follow(cursor: string | undefined, limit: number): Promise<{ episodes: string[]; cursor: string; pages: number }> {
    const episodes: string[] = [];
    for (let pages = 1; pages <= 50; pages++) {
      const res = await anonymousApi.request(`/api/v1/channels/alpha/changes?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const page = res.body as Page;
      episodes.push(...page.changes.map((c) => `${c.type} ${c.episodeId}`));
      cursor = page.cursor;
      if (!page.hasMore) return { episodes, cursor, pages };
    }
    throw new Error('the feed never caught up');
  }

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    anonymousApi = await startApi({ env: { INDEX_PREFIX: store.prefix, ANONYMOUS_READ: 'published' } });
  });

  after(async function () {
    await anonymousApi?.close();
    await store?.drop();
    await client?.close();
  });

  it("gives a cursor that holds no position in the log, so the drafts' changes it stepped over cannot be counted", async function () {
    const start = await follow(undefined, 10);
    await hiddenChanges(5);
    await write(alpha('ep_public1', { status: 'published' }));
    const seen = await follow(start.cursor, 10);
    expect(seen.episodes).to.deep.equal(['episode.created ep_public1']);
    const head = await lastSeq(client, store.aliases.changes, 'ch_alpha');
    expect(head).to.equal(6);
    // What a poller can read in the cursor: when it was issued and the id of a change, nothing that counts rows.
    const values = cursorValues(seen.cursor);
    expect(values).to.have.length(2);
    expect(values[0]).to.be.a('number').and.to.be.closeTo(Date.now(), 60_000);
    expect(values[1]).to.be.a('string').and.to.match(/^chg_/);
    expect(values).to.not.include(head);
  });

  it('resumes from such a cursor with only what came later, past more hidden changes than one read holds', async function () {
    const { cursor } = await follow(undefined, 1);
    // limit 1 reads 11 rows at a time: 25 hidden changes fill more than two reads before the visible one.
    await hiddenChanges(25);
    await write(alpha('ep_public2', { status: 'published' }));
    const later = await follow(cursor, 1);
    expect(later.episodes).to.deep.equal(['episode.created ep_public2']);
    expect(later.pages).to.be.at.least(3);
    const caughtUp = await follow(later.cursor, 1);
    expect(caughtUp.episodes).to.deep.equal([]);
  });
});
