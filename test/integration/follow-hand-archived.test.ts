// A takedown holds: an episode archived by hand stays archived, in its library file and in the real store, when the
// next `npm run follow -- --poll` finds its item still in the feed and changed (security review 2026-11-27, item 12).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { ensureIndices, type Client, type IndexAliases } from '../../src/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { saveEpisode, type FollowedEpisode } from '../../pipeline/follow/library.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../support/hash-embeddings-server.js';
import { startCountingRelay, startFeedServer, type FeedServer } from '../support/feed-server.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';
import { dropFollowStore, followEnv, runFollow } from '../support/follow-env.js';

describe('follow: an episode archived by hand', function () {
  this.timeout(120_000);
  const config = loadConfig(process.env);
  let client: Client;
  let prefix: string;
  let aliases: IndexAliases;
  let libraryDir: string;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  let embeddings: HashEmbeddingsServer;
  let feed: FeedServer;
  let env: Record<string, string>;

  before(async function () {
    client = testClient();
    prefix = privatePrefix('follow-takedown');
    libraryDir = await mkdtemp(join(tmpdir(), 'follow-takedown-lib-'));
    relay = await startCountingRelay('http://127.0.0.1:9');
    embeddings = await startHashEmbeddingsServer();
    env = followEnv({ prefix, libraryDir, transcribeUrl: relay.url, embedderEnv: embeddings.env });
    aliases = await ensureIndices(client, { prefix, modelId: embeddings.model, embedding: embeddings.signature, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: 'u_creator', body: userDocument({ id: 'u_creator', name: 'Creator', plan: 'paid' }), refresh: true } as never);
    feed = await startFeedServer({ title: 'Takedown show', items: [{ guid: 'a', title: 'Said too much', pubDate: new Date(Date.UTC(2026, 1, 1)) }] });
  });

  after(async function () {
    await embeddings?.close();
    await feed?.close();
    await relay?.close();
    if (client) await dropFollowStore({ client, prefix, redisUrl: config.redisUrl });
    await rm(libraryDir, { recursive: true, force: true });
  });

  it('stays archived, in the library and the store, when the next poll finds its item retitled', async function () {
    const first = await runFollow([feed.feedUrl, '--channel', 'takedown', '--owner', 'u_creator'], env);
    expect(first.code, first.stderr).to.equal(0);
    const dir = join(libraryDir, 'takedown');
    const [file] = await readdir(join(dir, 'episodes'));
    const path = join(dir, 'episodes', file!);
    const record = JSON.parse(await readFile(path, 'utf8')) as FollowedEpisode;
    // The creator's takedown: the library file says archived, and the store is told, as an edit plus ingest does.
    await saveEpisode(dir, { ...record, status: 'archived' }, { client, embedder: embeddings.embedder(), aliases });

    feed.removeItem('a');
    feed.addItem({ guid: 'a', title: 'Said too much (full version)', pubDate: new Date(Date.UTC(2026, 1, 1)) });
    const poll = await runFollow(['--poll', 'takedown'], env);
    expect(poll.code, poll.stderr).to.equal(0);
    expect(poll.stdout).to.match(/0 new, 0 updated, 0 to process again/);

    const after = JSON.parse(await readFile(path, 'utf8')) as FollowedEpisode;
    expect(after).to.include({ status: 'archived', title: 'Said too much' });
    await client.indices.refresh({ index: aliases.episodes });
    const row = await client.get({ index: aliases.episodes, id: record.id } as never, { ignore: [404] });
    const source = (row.body as { _source?: { status: string } })._source;
    // Archiving is a deletion for every reader: the row is gone or says archived, never published or pending.
    expect(source?.status ?? 'absent').to.be.oneOf(['archived', 'absent']);
  });
});
