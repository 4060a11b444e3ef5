// Every read the API makes, bound to one request's time budget: one function per question asked of the store.
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { facetDocId, type ApiKeyDoc, type ChannelDoc, type ChaptersDoc, type EpisodeDoc, type FacetDoc, type TranscriptDoc, type UserDoc } from '../../core/store/documents.js';
import { StoreUnavailableError } from '../../core/store/transient.js';
import type { EpisodeListQuery, RelatedQuery } from './episode-queries.js';
import { buildEpisodeListBody, buildRelatedBody } from './episode-queries.js';
import type { OwnerHints } from './owner-hints.js';

export interface QueryDeps {
  client: Client;
  aliases: IndexAliases;
  /** The process's slug → owner hints; without them every channel read is followed by its owner's. */
  ownerHints?: OwnerHints;
}

/** A channel as read at call time, and a way to its owner (read beside it when the hint was right). */
export interface ChannelAndOwner {
  channel: ChannelDoc | undefined;
  owner(): Promise<UserDoc | undefined>;
}

interface PendingGet {
  index: string;
  id: string;
  /** `_source` fields left out of this document (source filtering per `_mget` item). */
  excludes?: readonly string[] | undefined;
  resolve(doc: unknown): void;
  reject(error: unknown): void;
}

interface Hit<T> {
  _id: string;
  _source: T;
  sort?: unknown[];
}

/** Where a stored transcript keeps its word timings: the largest part of it, read only by the transcript endpoint. */
const WORD_TIMINGS = ['document.segments.words'] as const;
/** The transcript's searched copy of its speech and its length (the episode leg's fields): never part of what a read returns. */
const SEARCHED_SPEECH = ['speech', 'speechMs'] as const;

/** An id no document has; lookups for a missing parent use it so every path does the same reads. */
export const NO_SUCH_ID = '__no_such_id__';

/**
 * Reads for one request. All of them share one deadline (`budgetMs` from creation), so
 * a store that hangs costs a request at most the budget in total, never one timeout per
 * call: the request still answers 503 in time.
 */
export function createQueries({ client, aliases, ownerHints }: QueryDeps, { budgetMs }: { budgetMs: number }) {
  const deadline = Date.now() + budgetMs;
  let pending: PendingGet[] = [];

  function requestTimeout(): number {
    const left = deadline - Date.now();
    if (left <= 0) throw new StoreUnavailableError('request time budget for the store is spent');
    return left;
  }

  async function search<T>(index: string, body: Record<string, unknown>): Promise<Hit<T>[]> {
    const res = await client.search({ index, body: body as never }, { requestTimeout: requestTimeout() });
    return res.body.hits.hits as unknown as Hit<T>[];
  }

  /** Sends the GETs gathered in one tick as one `_mget` and settles each with its document. */
  async function flush(batch: PendingGet[]): Promise<void> {
    try {
      const docs = batch.map(({ index, id, excludes }) => ({ _index: index, _id: id, ...(excludes ? { _source: { excludes: [...excludes] } } : {}) }));
      const res = await client.mget({ body: { docs } }, { requestTimeout: requestTimeout() });
      const found = (res.body as { docs: { found?: boolean; _source?: unknown; error?: unknown }[] }).docs;
      batch.forEach(({ resolve, reject }, i) => {
        const doc = found[i];
        // An item `error` means the index itself is missing (or its shard failed): the store is not ready.
        if (!doc || doc.error) reject(new StoreUnavailableError(JSON.stringify(doc?.error ?? 'missing _mget item')));
        else resolve(doc.found ? doc._source : undefined);
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  /**
   * Real-time GET by `_id`; undefined when the document does not exist. GETs asked for in
   * the same tick travel together as one `_mget`: one round trip, each document as fresh as its own GET.
   */
  function get<T>(index: string, id: string, excludes?: readonly string[]): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      if (pending.length === 0) {
        queueMicrotask(() => {
          const batch = pending;
          pending = [];
          void flush(batch);
        });
      }
      pending.push({ index, id, excludes, resolve: resolve as (doc: unknown) => void, reject });
    });
  }

  async function channelBySlug(slug: string): Promise<ChannelDoc | undefined> {
    const [hit] = await search<ChannelDoc>(aliases.channels, { size: 1, query: { term: { slug } } });
    return hit?._source;
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

    channelBySlug,

    /**
     * The channel behind `slug` (a search, as {@link channelBySlug}) and, in the same round
     * trip, its owner when the slug's owner hint is right; a wrong or missing hint reads the
     * owner when {@link ChannelAndOwner.owner} is called (only members need it).
     */
    async channelAndOwner(slug: string): Promise<ChannelAndOwner> {
      const hinted = ownerHints?.get(slug);
      // Started together: the slug search and the user who owned the slug's channel last time.
      const [channel, hintedOwner] = await Promise.all([channelBySlug(slug), get<UserDoc>(aliases.users, hinted ?? NO_SUCH_ID)]);
      if (channel) ownerHints?.set(slug, channel.ownerId);
      return {
        channel,
        owner: () => (channel === undefined || channel.ownerId === hinted ? Promise.resolve(hintedOwner) : get<UserDoc>(aliases.users, channel.ownerId)),
      };
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
      return get<TranscriptDoc>(aliases.transcripts, episodeId, SEARCHED_SPEECH);
    },

    /** The transcript without its segments' word timings: what a page or its Markdown twin renders (speaker, times, text). */
    transcriptForPage(episodeId: string): Promise<TranscriptDoc | undefined> {
      return get<TranscriptDoc>(aliases.transcripts, episodeId, [...WORD_TIMINGS, ...SEARCHED_SPEECH]);
    },

    chapters(episodeId: string): Promise<ChaptersDoc | undefined> {
      return get<ChaptersDoc>(aliases.chapters, episodeId);
    },

    /**
     * A facet (topic, person, entity, collection) of one channel by the id its episodes hold: its display name there.
     * Another channel's facet of the same id is never it (decision 33): both fields are checked, not only the `_id`.
     */
    async facet(channelId: string, id: string): Promise<FacetDoc | undefined> {
      const doc = await get<FacetDoc>(aliases.facets, facetDocId(channelId, id));
      return doc?.channelId === channelId && doc.id === id ? doc : undefined;
    },
  };
}

export type Queries = ReturnType<typeof createQueries>;
