// A cached query vector and the index guard's check of it: the search does not wait for the check (they overlap), and
// what the vector found counts only once the check passes; refused, the search answers keyword-only and says so.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadLibrary } from '../../indexer/load-library.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { loadConfig } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { IndexEmbedderMismatchError } from '../../core/embedding/index-guard.js';
import { createQueryVectorCache } from '../../core/embedding/query-cache.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { copyLibrary, privatePrefix, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

const QUERY = 'quarantine flaky tests';
const params = (fast: boolean): SearchParams => ({ query: QUERY, fast, limit: 10, publishedOnly: false });

/** An embedder whose index check answers when the test says: `check()` starts a check, `answer()` settles the latest. */
function checkedEmbedder(): Embedder & { checks: number; answer(refusal?: Error): void } {
  const hash = createHashEmbedder();
  let settle: ((refusal?: Error) => void) | undefined;
  const embedder = {
    ...hash,
    embedQuery: (text: string) => hash.embedQuery(text),
    checks: 0,
    confirmIndex(): Promise<void> {
      embedder.checks++;
      return new Promise<void>((resolve, reject) => (settle = (refusal) => (refusal ? reject(refusal) : resolve())));
    },
    answer(refusal?: Error) {
      settle!(refusal);
    },
  };
  return embedder;
}

describe('search: the index check of a cached query vector', function () {
  this.timeout(120_000);
  let client: Client;
  let prefix: string;
  let lib: string;
  let channel: ChannelDoc;
  let base: Omit<SearchDeps, 'embedder'>;

  before(async function () {
    client = testClient();
    prefix = privatePrefix('chk');
    lib = await copyLibrary(SAMPLE_LIBRARY);
    const summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });
    expect(summary.ok, JSON.stringify(summary.skipped)).to.equal(true);
    await client.indices.refresh({ index: `${prefix}*` });
    const aliases = indexAliases(prefix);
    const record = JSON.parse(await readFile(join(lib, 'episodes', 'bn-001-flaky-tests.json'), 'utf8')) as EpisodeRecord;
    channel = (await client.get({ index: aliases.channels, id: record.channelId })).body._source as unknown as ChannelDoc;
    const config = loadConfig({ ...process.env, INDEX_PREFIX: prefix });
    base = { client, aliases, settings: config.search, channelSites: config.channelSites };
  });

  after(async function () {
    await deleteIndices(client, prefix);
    await client.close();
    await removeDir(lib);
  });

  /** The same store client, counting the `_msearch` calls it sends (each still goes to the real engine). */
  function counting(): { client: Client; sent: () => number } {
    let sent = 0;
    const spy = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'msearch') return (...args: Parameters<Client['msearch']>) => (sent++, target.msearch(...args));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    return { client: spy, sent: () => sent };
  }

  it('sends the search while the check of a cached vector is still running, and answers hybrid once it passes', async function () {
    const embedder = checkedEmbedder();
    const queryCache = createQueryVectorCache(10);
    const fresh = await runSearch({ ...base, embedder, queryCache }, channel, params(false));
    expect(fresh.timings.embedded, 'a fresh vector, checked by the guard before the model ran').to.equal(true);
    expect(embedder.checks).to.equal(0);

    const { client: spy, sent } = counting();
    const searching = runSearch({ ...base, client: spy, embedder, queryCache }, channel, params(false));
    // The first round trip goes out before the check has answered.
    while (sent() === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(embedder.checks).to.equal(1);
    embedder.answer();
    const cached = await searching;
    expect(cached.timings.embedded).to.equal(true);
    expect(cached.result.degraded).to.equal(undefined);
    expect(cached.result).to.deep.equal(fresh.result);
  });

  it("answers keyword-only, said so, when the check refuses the cached vector's index, never with what the vector found", async function () {
    const embedder = checkedEmbedder();
    const queryCache = createQueryVectorCache(10);
    const hybrid = await runSearch({ ...base, embedder, queryCache }, channel, params(false));
    const { client: spy, sent } = counting();
    const searching = runSearch({ ...base, client: spy, embedder, queryCache }, channel, params(false));
    while (sent() === 0) await new Promise((resolve) => setImmediate(resolve));
    embedder.answer(new IndexEmbedderMismatchError('the index behind the alias was built by another embedder'));
    const refused = await searching;
    expect(refused.result.degraded).to.equal('embedder_failed');
    expect(refused.timings.embedded).to.equal(false);
    // The legs, the legs again without the vector, then what the answer shows (a fresh hydration cache for this client).
    expect(sent(), 'the legs sent again without the vector').to.equal(3);
    // Keyword-only: the answer of a fast search, not the hybrid one.
    const fast = await runSearch({ ...base, embedder: undefined }, channel, params(true));
    expect(refused.result.episodes).to.deep.equal(fast.result.episodes);
    expect(hybrid.result.episodes).to.not.deep.equal(fast.result.episodes);
  });
});
