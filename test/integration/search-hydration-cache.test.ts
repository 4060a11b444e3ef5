// The hydration cache on a real store: a repeated search is answered from memory with the answer the store gives, and a changed episode is read again on its very next search.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadLibrary } from '../../indexer/load-library.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { loadConfig } from '../../core/config/load.js';
import { createHydrationCache, type HydrationCache } from '../../core/search/hydration-cache.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import { evalSearch } from '../../scripts/eval/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { copyLibrary, privatePrefix, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

const EPISODE_FILE = 'bn-001-flaky-tests.json';
const QUERIES = ['flaky tests infrastructure', 'payments company hot take', 'retry the test until it passes', 'quarantine flaky tests'];
const params = (query: string): SearchParams => ({ query, fast: true, limit: 10, publishedOnly: false });

describe('search: the hydration cache', function () {
  this.timeout(120_000);
  let client: Client;
  let prefix: string;
  let lib: string;
  let channel: ChannelDoc;
  let deps: (cache: HydrationCache) => SearchDeps;

  /** Rewrites the episode file of the copy, then loads the copy again (only that episode changes). */
  async function reload(change: (record: EpisodeRecord) => void): Promise<void> {
    const file = join(lib, 'episodes', EPISODE_FILE);
    const record = JSON.parse(await readFile(file, 'utf8')) as EpisodeRecord;
    change(record);
    await writeFile(file, JSON.stringify(record));
    const summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });
    expect(summary.episodes).to.deep.include({ indexed: 1, failed: 0 });
    await client.indices.refresh({ index: `${prefix}*` });
  }

  /** The passage of the episode whose text opens the transcript, as a search shows it. */
  const opening = (result: Awaited<ReturnType<typeof evalSearch>>['result']) =>
    result.episodes.find((e) => e.episodeId === 'ep_bn_001')?.segments.find((s) => s.text.includes('Build Notes'));

  before(async function () {
    client = testClient();
    prefix = privatePrefix('hyd');
    lib = await copyLibrary(SAMPLE_LIBRARY);
    const summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });
    expect(summary.ok, JSON.stringify(summary.skipped)).to.equal(true);
    await client.indices.refresh({ index: `${prefix}*` });
    const aliases = indexAliases(prefix);
    const record = JSON.parse(await readFile(join(lib, 'episodes', EPISODE_FILE), 'utf8')) as EpisodeRecord;
    const res = await client.get({ index: aliases.channels, id: record.channelId });
    channel = res.body._source as unknown as ChannelDoc;
    const config = loadConfig({ ...process.env, INDEX_PREFIX: prefix });
    deps = (hydrationCache) => ({ client, embedder: undefined, aliases, settings: config.search, channelSites: config.channelSites, hydrationCache });
  });

  after(async function () {
    await deleteIndices(client, prefix);
    await client.close();
    await removeDir(lib);
  });

  it('answers a repeated search from memory, with no second round trip, exactly as the store answers it', async function () {
    const store = deps(createHydrationCache(0));
    for (const query of QUERIES) {
      const cache = createHydrationCache(16 * 1024 * 1024);
      const first = await evalSearch(deps(cache), channel, params(query));
      expect(first.result.episodes.length, query).to.be.greaterThan(0);
      expect(first.trace.hydration.fetched, query).to.be.greaterThan(0);
      const again = await evalSearch(deps(cache), channel, params(query));
      expect(again.trace.hydration, query).to.deep.include({ fetched: 0 });
      expect(again.trace.hydration.cached, query).to.be.greaterThan(0);
      const fromStore = await evalSearch(store, channel, params(query));
      expect(fromStore.trace.hydration.cached).to.equal(0);
      expect(again.result, query).to.deep.equal(fromStore.result);
      expect(again.result.episodes.flatMap((e) => e.segments.flatMap((s) => s.highlights)).length, query).to.be.greaterThan(0);
    }
  });

  it('shows a changed episode’s new title and text on its very next search', async function () {
    const cache = createHydrationCache(16 * 1024 * 1024);
    const query = 'flaky tests build notes';
    const before = await evalSearch(deps(cache), channel, params(query));
    expect(opening(before.result)?.text).to.include('Hi, this is Build Notes');
    await reload((r) => {
      r.title = `${r.title}, revisited`;
      const segment = r.transcript!.segments[0]!;
      segment.text = segment.text.replace('Hi,', 'Hello,');
      segment.words![0]!.t = 'Hello,';
    });
    const after = await evalSearch(deps(cache), channel, params(query));
    expect(after.trace.hydration.fetched).to.be.greaterThan(0);
    expect(after.result.episodes.find((e) => e.episodeId === 'ep_bn_001')?.title).to.match(/, revisited$/);
    expect(opening(after.result)?.text).to.include('Hello, this is Build Notes');
    expect(after.result).to.deep.equal((await runSearch(deps(createHydrationCache(0)), channel, params(query))).result);
  });

  it('reads a passage from the store when its text holds script the in-process analyzer was not checked on', async function () {
    await reload((r) => {
      const segment = r.transcript!.segments[0]!;
      segment.text = segment.text.replace('Build Notes.', 'Build Notes 日本語.');
      segment.words![4]!.t = 'Notes 日本語.';
    });
    const cache = createHydrationCache(16 * 1024 * 1024);
    const query = 'flaky tests build notes';
    await evalSearch(deps(cache), channel, params(query));
    const again = await evalSearch(deps(cache), channel, params(query));
    expect(opening(again.result)?.text).to.include('日本語');
    // Every other passage and row from memory; that one from the store, highlighted by the engine.
    expect(again.trace.hydration.fetched).to.equal(1);
    expect(again.trace.hydration.cached).to.be.greaterThan(0);
    expect(again.result).to.deep.equal((await runSearch(deps(createHydrationCache(0)), channel, params(query))).result);
  });
});
