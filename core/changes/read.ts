// Reads of the change feed's log: the channel's last seq, the changes after a seq, and the seq of one change.
import type { Client } from '../store/opensearch.js';
import { counterId, type ChangeDoc } from './log.js';

/** The last seq the channel's log handed out (0 when it never recorded anything). Real-time GET. */
export async function lastSeq(client: Client, index: string, channelId: string, { requestTimeout }: { requestTimeout?: number } = {}): Promise<number> {
  const res = await client.get({ index, id: counterId(channelId), _source_includes: ['seq'] } as never, { ignore: [404], ...(requestTimeout ? { requestTimeout } : {}) });
  const body = res.body as { found?: boolean; _source?: { seq?: number } };
  return body.found ? (body._source?.seq ?? 0) : 0;
}

/** Changes of a channel after `afterSeq`, by seq, at most `size` (a page for `pageOfChanges`). */
export async function changesAfter(
  client: Client,
  index: string,
  { channelId, afterSeq, size }: { channelId: string; afterSeq: number; size: number },
  { requestTimeout }: { requestTimeout?: number } = {},
): Promise<ChangeDoc[]> {
  const res = await client.search(
    {
      index,
      body: {
        size,
        query: { bool: { filter: [{ term: { kind: 'change' } }, { term: { channelId } }, { range: { seq: { gt: afterSeq } } }] } },
        sort: [{ seq: 'asc' }],
      },
    } as never,
    requestTimeout ? { requestTimeout } : {},
  );
  return (res.body as { hits: { hits: { _source: ChangeDoc }[] } }).hits.hits.map((h) => h._source);
}

/**
 * The seq of change `id` of `channelId` (a real-time GET: change ids are document ids); undefined when it is not
 * there (purged past the retention, or the log was lost).
 */
export async function seqOfChange(client: Client, index: string, channelId: string, id: string, { requestTimeout }: { requestTimeout?: number } = {}): Promise<number | undefined> {
  const res = await client.get({ index, id, _source_includes: ['kind', 'channelId', 'seq'] } as never, { ignore: [404], ...(requestTimeout ? { requestTimeout } : {}) });
  const body = res.body as { found?: boolean; _source?: Pick<ChangeDoc, 'kind' | 'channelId' | 'seq'> };
  const doc = body.found ? body._source : undefined;
  return doc?.kind === 'change' && doc.channelId === channelId && Number.isSafeInteger(doc.seq) ? doc.seq : undefined;
}
