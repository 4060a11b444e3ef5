// Every read the API makes, bound to one request's time budget: one function per question asked of the store.
import type { Client, IndexAliases } from './opensearch.js';
import type { ApiKeyDoc, ChannelDoc, ChaptersDoc, EpisodeDoc, TranscriptDoc, UserDoc } from './documents.js';
import { storeUnavailable } from '../errors.js';
import type { EpisodeListQuery, RelatedQuery } from './episode-queries.js';
import { buildEpisodeListBody, buildRelatedBody } from './episode-queries.js';

export interface QueryDeps {
  client: Client;
  aliases: IndexAliases;
}

interface Hit<T> {
  _id: string;
  _source: T;
  sort?: unknown[];
}

/** An id no document has; lookups for a missing parent use it so every path does the same reads. */
export const NO_SUCH_ID = '__no_such_id__';

/**
 * Reads for one request. All of them share one deadline (`budgetMs` from creation), so
 * a store that hangs costs a request at most the budget in total, never one timeout per
 * call: the request still answers 503 in time.
 */
export function createQueries({ client, aliases }: QueryDeps, { budgetMs }: { budgetMs: number }) {
  const deadline = Date.now() + budgetMs;

  function requestTimeout(): number {
    const left = deadline - Date.now();
    if (left <= 0) throw storeUnavailable(new Error('request time budget for the store is spent'));
    return left;
  }

  async function search<T>(index: string, body: Record<string, unknown>): Promise<Hit<T>[]> {
    const res = await client.search({ index, body: body as never }, { requestTimeout: requestTimeout() });
    return res.body.hits.hits as unknown as Hit<T>[];
  }

  /** Real-time GET by `_id`; undefined when the document does not exist. */
  async function get<T>(index: string, id: string): Promise<T | undefined> {
    const res = await client.get({ index, id }, { ignore: [404], requestTimeout: requestTimeout() });
    const body = res.body as { found?: boolean; _source?: T; error?: unknown };
    // A 404 body with an `error` means the index itself is missing: the store is not ready.
    if (body.error) throw storeUnavailable(new Error(JSON.stringify(body.error)));
    return body.found ? body._source : undefined;
  }

  return {
    /** Milliseconds left of the budget, for store calls made elsewhere (search); throws a 503 when none are. */
    timeLeftMs: requestTimeout,

    /** Key records live under `_id` = sha256(key): a real-time GET sees a revocation at once. */
    apiKeyByHash(hash: string): Promise<ApiKeyDoc | undefined> {
      return get<ApiKeyDoc>(aliases['api-keys'], hash);
    },

    /** Users and channels are stored under `_id` = their id: real-time GETs see a plan change at once. */
    user(id: string): Promise<UserDoc | undefined> {
      return get<UserDoc>(aliases.users, id);
    },

    async users(ids: string[]): Promise<UserDoc[]> {
      if (ids.length === 0) return [];
      const res = await client.mget({ index: aliases.users, body: { ids } }, { requestTimeout: requestTimeout() });
      const docs = (res.body as { docs: { found?: boolean; _source?: UserDoc }[] }).docs;
      return docs.flatMap((d) => (d.found && d._source ? [d._source] : []));
    },

    async channelBySlug(slug: string): Promise<ChannelDoc | undefined> {
      const [hit] = await search<ChannelDoc>(aliases.channels, { size: 1, query: { term: { slug } } });
      return hit?._source;
    },

    /** The channel whose custom domain is `domain`, exactly as stored. */
    async channelByDomain(domain: string): Promise<ChannelDoc | undefined> {
      const [hit] = await search<ChannelDoc>(aliases.channels, { size: 1, query: { term: { customDomain: domain } } });
      return hit?._source;
    },

    channelById(id: string): Promise<ChannelDoc | undefined> {
      return get<ChannelDoc>(aliases.channels, id);
    },

    /** Channels a user is a member of, by slug. */
    async channelsOfMember(userId: string): Promise<ChannelDoc[]> {
      const hits = await search<ChannelDoc>(aliases.channels, {
        size: 10_000,
        query: { term: { memberIds: userId } },
        sort: [{ slug: 'asc' }],
      });
      return hits.map((h) => h._source);
    },

    episode(id: string): Promise<EpisodeDoc | undefined> {
      return get<EpisodeDoc>(aliases.episodes, id);
    },

    /** One page of the episode list plus the sort values of each row (for the next cursor). */
    async listEpisodes(query: EpisodeListQuery): Promise<{ episode: EpisodeDoc; sort: unknown[] }[]> {
      const hits = await search<EpisodeDoc>(aliases.episodes, buildEpisodeListBody(query));
      return hits.map((h) => ({ episode: h._source, sort: h.sort ?? [] }));
    },

    async relatedEpisodes(query: RelatedQuery): Promise<EpisodeDoc[]> {
      const body = buildRelatedBody(query);
      if (!body) return [];
      const hits = await search<EpisodeDoc>(aliases.episodes, body);
      return hits.map((h) => h._source);
    },

    transcript(episodeId: string): Promise<TranscriptDoc | undefined> {
      return get<TranscriptDoc>(aliases.transcripts, episodeId);
    },

    chapters(episodeId: string): Promise<ChaptersDoc | undefined> {
      return get<ChaptersDoc>(aliases.chapters, episodeId);
    },
  };
}

export type Queries = ReturnType<typeof createQueries>;
