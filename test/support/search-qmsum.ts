// The search suites' view of a loaded qmsum library (the compact corpus or the whole data set): deps for runSearch plus the stored catalog to check answers against.
import { loadConfig, type Config } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import type { SearchDeps } from '../../core/search/search.js';
import { createQueryVectorCache } from '../../core/embedding/query-cache.js';
import type { ChannelDoc, EpisodeDoc, PassageDoc } from '../../core/store/documents.js';
import { indexAliases, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { ensureCorpusLoaded, ensureQmsumLoaded, type QmsumFixture } from './qmsum-fixture.js';

export { QMSUM_LOAD_TIMEOUT_MS } from './qmsum-fixture.js';

export interface QmsumSearch {
  config: Readonly<Config>;
  client: Client;
  aliases: IndexAliases;
  embedder: Embedder;
  /** Fresh deps with their own query-vector cache, so counts of embeddings are the test's own. */
  deps(overrides?: Partial<SearchDeps>): SearchDeps;
  channel(slug: string): Promise<ChannelDoc>;
  /** Every stored catalog row of a channel, archived ones included. */
  episodes(channelId: string): Promise<EpisodeDoc[]>;
  passage(id: string): Promise<PassageDoc | undefined>;
}

/**
 * The shared qmsum fixture (the whole data set, loaded once per run, read-only) with its
 * client and real model. The client is the fixture's, shared by every suite: never close it.
 */
export async function openQmsumSearch(): Promise<QmsumSearch> {
  return searchOver(await ensureQmsumLoaded());
}

/** The same over the compact corpus in the repository (test/data/qmsum-cut), there on every clone. */
export async function openCorpusSearch(): Promise<QmsumSearch> {
  return searchOver(await ensureCorpusLoaded());
}

function searchOver({ prefix, client, embedder: model }: QmsumFixture): QmsumSearch {
  const config = loadConfig({ ...process.env, INDEX_PREFIX: prefix });
  const aliases = indexAliases(prefix);
  return {
    config,
    client,
    aliases,
    embedder: model,
    deps: (overrides = {}) => ({
      client,
      embedder: model,
      aliases,
      settings: config.search,
      channelSites: config.channelSites,
      queryCache: createQueryVectorCache(config.search.queryCacheSize),
      ...overrides,
    }),
    async channel(slug) {
      const res = await client.search({ index: aliases.channels, body: { size: 1, query: { term: { slug } } } as never });
      const doc = res.body.hits.hits[0]?._source as ChannelDoc | undefined;
      if (!doc) throw new Error(`channel ${slug} is not loaded under ${prefix}`);
      return doc;
    },
    async episodes(channelId) {
      const res = await client.search({
        index: aliases.episodes,
        body: { size: 1000, _source: { excludes: ['description'] }, query: { term: { channelId } } } as never,
      });
      return res.body.hits.hits.map((h) => h._source as unknown as EpisodeDoc);
    },
    async passage(id) {
      const res = await client.get({ index: aliases.passages, id, _source_excludes: ['embedding'] } as never, { ignore: [404] });
      return (res.body as { found?: boolean; _source?: PassageDoc }).found ? (res.body as { _source: PassageDoc })._source : undefined;
    },
  };
}
