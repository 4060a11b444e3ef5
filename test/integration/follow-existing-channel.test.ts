// `npm run follow` onto a slug the store already holds, against the real OpenSearch and Redis: another owner's channel
// is refused with a sentence and left as it was, unless --force-owner; the same owner's channel keeps its members and
// custom domain (security review 2026-11-27, item 8).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { channelDocument, userDocument } from '../../indexer/documents.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow } from '../support/follow-env.js';

describe('follow: onto a channel the store already holds', function () {
  this.timeout(120_000);
  let client: Client;
  let aliases: IndexAliases;
  let libraryDir: string;
  let feed: FeedServer;
  let env: Record<string, string>;
  /** Closes what the store opened, drops its queues and indices, deletes the library folder. */
  let drop: (() => Promise<void>) | undefined;

  const channel = async (id: string): Promise<ChannelDoc> => {
    const res = await client.get({ index: aliases.channels, id } as never);
    return (res.body as { _source: ChannelDoc })._source;
  };
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );

  before(async function () {
    ({ client, libraryDir, env, aliases, drop } = await openFollowStore('follow-taken', { owners: [] }));
    for (const id of ['u_alice', 'u_mallory', 'u_member'])
      await client.index({ index: aliases.users, id, body: userDocument({ id, name: id, plan: 'paid' }), refresh: true } as never);
    for (const slug of ['imported', 'handed']) {
      const record = {
        id: `ch_${slug}`,
        slug,
        title: 'Imported show',
        providerType: 'rss' as const,
        ownerId: 'u_alice',
        memberIds: ['u_alice', 'u_member'],
        customDomain: `${slug}.example.org`,
      };
      await client.index({ index: aliases.channels, id: record.id, body: channelDocument(record), refresh: true } as never);
    }
    feed = await startFeedServer({ title: 'Followed show', items: [] });
  });

  after(async function () {
    await feed?.close();
    await drop?.();
  });

  it('refuses another owner with a sentence and leaves the channel, its members and domain, and the library as they were', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'imported', '--owner', 'u_mallory'], env);
    expect(run.code, run.stdout).to.equal(1);
    expect(run.stderr.trim()).to.equal(
      'follow: the channel already exists with another owner: "imported" belongs to u_alice; following it for u_mallory would hand it and its episodes over (pass --force-owner to do that)',
    );
    expect(await channel('ch_imported')).to.include({ ownerId: 'u_alice', customDomain: 'imported.example.org' });
    expect((await channel('ch_imported')).memberIds).to.have.members(['u_alice', 'u_member']);
    expect(await exists(join(libraryDir, 'imported'))).to.equal(false);
    expect(feed.requests, 'the feed was never fetched').to.have.length(0);
  });

  it('follows for the same owner, keeping the stored members and custom domain', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'imported', '--owner', 'u_alice'], env);
    expect(run.code, run.stderr).to.equal(0);
    await client.indices.refresh({ index: aliases.channels });
    const after = await channel('ch_imported');
    expect(after).to.include({ ownerId: 'u_alice', customDomain: 'imported.example.org', title: 'Followed show' });
    expect(after.memberIds).to.have.members(['u_alice', 'u_member']);
  });

  it('hands the channel over with --force-owner, keeping its members and domain', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'handed', '--owner', 'u_mallory', '--force-owner'], env);
    expect(run.code, run.stderr).to.equal(0);
    await client.indices.refresh({ index: aliases.channels });
    const after = await channel('ch_handed');
    expect(after).to.include({ ownerId: 'u_mallory', customDomain: 'handed.example.org' });
    expect(after.memberIds).to.have.members(['u_mallory', 'u_alice', 'u_member']);
  });
});
