// Scrolling reads and delete-where built on them: core APIs only (no reindex module needed).
import type { Client } from '@opensearch-project/opensearch';
import { bulkWrite } from './bulk.js';
import { storeCall } from './errors.js';

export interface Hit<T> {
  _id: string;
  _source?: T;
}

/**
 * Every hit of `query` in `index`, page by page through a scroll context (cleared
 * at the end, also when the caller stops early). `_doc` order: the cheapest.
 */
export async function* scrollHits<T = Record<string, unknown>>(
  client: Client,
  {
    index,
    query = { match_all: {} },
    source = true,
    size = 500,
    keepAlive = '2m',
  }: { index: string; query?: object; source?: boolean | string[]; size?: number; keepAlive?: string },
): AsyncGenerator<Hit<T>[]> {
  let res = await storeCall(`scroll ${index}`, () => client.search({ index, scroll: keepAlive, size, _source: source, body: { query, sort: ['_doc'] } } as never));
  let body = res.body as { _scroll_id?: string; hits: { hits: Hit<T>[] } };
  let scrollId = body._scroll_id;
  try {
    while (body.hits.hits.length > 0) {
      yield body.hits.hits;
      res = await storeCall(`scroll ${index}`, () => client.scroll({ scroll_id: scrollId, scroll: keepAlive } as never));
      body = res.body as typeof body;
      scrollId = body._scroll_id ?? scrollId;
    }
  } finally {
    if (scrollId) await client.clearScroll({ scroll_id: scrollId } as never).catch(() => undefined);
  }
}

/**
 * Deletes every document matching `query` and refreshes when it deleted any, so the
 * deletion is seen. Searches only see refreshed documents: with `refreshFirst` the
 * index is refreshed before, so that documents written a moment ago are found too.
 * Returns how many were deleted.
 */
export async function deleteWhere(client: Client, index: string, query: object, { refreshFirst = true } = {}): Promise<number> {
  if (refreshFirst) await storeCall(`refresh ${index}`, () => client.indices.refresh({ index }));
  const ids: string[] = [];
  for await (const page of scrollHits(client, { index, query, source: false, size: 1000 })) ids.push(...page.map((h) => h._id));
  if (ids.length === 0) return 0;
  const { deleted } = await bulkWrite(
    client,
    ids.map((id) => ({ op: 'delete' as const, index, id })),
  );
  await storeCall(`refresh ${index}`, () => client.indices.refresh({ index }));
  return deleted;
}
