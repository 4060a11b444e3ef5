// The change feed's log: per-channel sequence numbers from a counter document, change documents paged by `seq`.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../ground/logger.js';
import type { Client } from './opensearch.js';

import type { Change, ChangeType } from '../contract/changes.js';
import type { EpisodeStatus } from '../contract/library-format.js';

/** Default retention of the log (CHANGES_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 30;

/**
 * How long a hole in the sequence may stay open before readers step over it. A writer takes
 * its seq before it stores the change, so seq 10 can be readable before seq 9; a hole this
 * old is a writer that died between the two steps. Writers re-record a change whose store
 * took more than half of it (see {@link recordChanges}), so no stored change stays hidden
 * behind a skipped hole.
 */
export const DEFAULT_GAP_GRACE_MS = 10_000;

/** Retention purges keep this much more than the retention, so a cursor still valid never misses a purged change. */
const PURGE_MARGIN_MS = 60 * 60 * 1000;

/** Purges at most this often per process and index. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** One change as stored: `kind: 'change'`, beside the channels' counter documents (`kind: 'counter'`). */
export interface ChangeDoc {
  kind: 'change';
  /** `chg_<uuid>`: unique and stable, also when the change is re-recorded under a new seq. */
  id: string;
  channelId: string;
  /** Position in the channel's log: 1, 2, 3 … (a hole is a writer that died). */
  seq: number;
  type: ChangeType;
  episodeId: string;
  /** Status after the change; null for a deletion. */
  status: EpisodeStatus | null;
  /** Status before the change; null for a creation. The published-only view is derived from both. */
  previousStatus: EpisodeStatus | null;
  /** When the seq was taken (ISO 8601 UTC). */
  occurredAt: string;
}

/** A change to record: what happened to which episode. */
export type ChangeEntry = Pick<ChangeDoc, 'channelId' | 'type' | 'episodeId' | 'status' | 'previousStatus'>;

/** An episode as the log compares it: stored (or about to be). Undefined: not stored. */
export interface EpisodeState {
  status: EpisodeStatus;
  archived?: boolean | undefined;
}

const isArchived = (e: EpisodeState | undefined): boolean => e !== undefined && (e.archived === true || e.status === 'archived');

/**
 * What a write of `after` over `before` is to a client (undefined: nothing it can see).
 * Archiving is a deletion and un-archiving a creation, since archived episodes are never shown.
 * The caller asks only when something changed (the stored sourceHash differs).
 */
export function changeBetween(before: EpisodeState | undefined, after: EpisodeState | undefined): Pick<ChangeEntry, 'type' | 'status' | 'previousStatus'> | undefined {
  const was = before !== undefined && !isArchived(before);
  const is = after !== undefined && !isArchived(after);
  if (!was && !is) return undefined;
  if (!was) return { type: 'episode.created', status: after!.status, previousStatus: null };
  if (!is) return { type: 'episode.deleted', status: null, previousStatus: before!.status };
  return { type: 'episode.updated', status: after!.status, previousStatus: before!.status };
}

const counterId = (channelId: string) => `counter:${channelId}`;

/** Takes `n` consecutive seqs of the channel's log; returns the first. Atomic on the primary shard. */
export async function takeSeqs(client: Client, index: string, channelId: string, n: number): Promise<number> {
  const res = await client.update({
    index,
    id: counterId(channelId),
    retry_on_conflict: 20,
    // Never auto-create a concrete index where the alias belongs (ensureIndices makes it).
    require_alias: true,
    _source: 'seq',
    body: {
      script: { lang: 'painless', source: 'ctx._source.seq += params.n', params: { n } },
      upsert: { kind: 'counter', channelId, seq: n },
    },
  } as never);
  const last = (res.body as { get?: { _source?: { seq?: number } } }).get?._source?.seq;
  if (!Number.isSafeInteger(last)) throw new Error(`the change counter of ${channelId} answered no seq`);
  return last! - n + 1;
}

/** The last seq the channel's log handed out (0 when it never recorded anything). Real-time GET. */
export async function lastSeq(client: Client, index: string, channelId: string, { requestTimeout }: { requestTimeout?: number } = {}): Promise<number> {
  const res = await client.get({ index, id: counterId(channelId), _source_includes: ['seq'] } as never, { ignore: [404], ...(requestTimeout ? { requestTimeout } : {}) });
  const body = res.body as { found?: boolean; _source?: { seq?: number } };
  return body.found ? (body._source?.seq ?? 0) : 0;
}

async function storeDocs(client: Client, index: string, docs: ChangeDoc[]): Promise<void> {
  const body = docs.flatMap((d) => [{ index: { _index: index, _id: d.id } }, d]);
  const res = await client.bulk({ body, require_alias: true } as never);
  const items = (res.body as { items: Record<string, { status: number; error?: { type?: string; reason?: string } }>[] }).items;
  const failed = items.map((item) => Object.values(item)[0]!).find((item) => item.error);
  if (failed) {
    // Shaped as the client's ResponseError, so the callers' rules (transient or not) apply to the item's own status and type.
    throw Object.assign(new Error(`recording changes: ${failed.error!.type}: ${failed.error!.reason}`), {
      name: 'ResponseError',
      meta: { statusCode: failed.status, body: { error: failed.error } },
    });
  }
}

export interface ChangeLogOptions {
  /** CHANGES_RETENTION_DAYS. */
  retentionDays?: number;
  gapGraceMs?: number;
  now?: () => Date;
  /** Where a failed purge is reported (it never fails the write; the next write tries again). */
  log?: Pick<Logger, 'warn'> | undefined;
}

const lastPurge = new Map<string, number>();

/**
 * Appends changes to their channels' logs: seqs taken per channel, then the documents stored.
 * A store that took more than half the gap grace is done again under new seqs (same ids):
 * readers may have stepped over the old seqs by the time they become readable. Old changes
 * are purged at most once an hour per process. Returns the stored documents.
 */
export async function recordChanges(
  client: Client,
  index: string,
  entries: readonly ChangeEntry[],
  { retentionDays = DEFAULT_RETENTION_DAYS, gapGraceMs = DEFAULT_GAP_GRACE_MS, now = () => new Date(), log }: ChangeLogOptions = {},
): Promise<ChangeDoc[]> {
  if (entries.length === 0) return [];
  const byChannel = new Map<string, ChangeEntry[]>();
  for (const e of entries) byChannel.set(e.channelId, [...(byChannel.get(e.channelId) ?? []), e]);
  const stored: ChangeDoc[] = [];
  for (const [channelId, list] of byChannel) {
    const ids = list.map(() => `chg_${randomUUID()}`);
    for (let attempt = 1; ; attempt++) {
      const taken = now();
      const first = await takeSeqs(client, index, channelId, list.length);
      const docs = list.map((e, i): ChangeDoc => ({ kind: 'change', id: ids[i]!, ...e, seq: first + i, occurredAt: taken.toISOString() }));
      await storeDocs(client, index, docs);
      if (now().getTime() - taken.getTime() <= gapGraceMs / 2 || attempt >= 3) {
        stored.push(...docs);
        break;
      }
    }
  }
  await purgeIfDue(client, index, { retentionDays, now: now() }).catch((err: unknown) => {
    lastPurge.delete(index);
    log?.warn({ err, index }, 'purging expired changes failed; the next write tries again');
  });
  return stored;
}

/** The purge's cut-off: changes that occurred before it are deleted. */
export function purgeCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 86_400_000 - PURGE_MARGIN_MS);
}

/**
 * Deletes the changes older than the retention (plus a margin); counters stay. Returns how many.
 * Pages by (occurredAt, id) and deletes each page with `_bulk`: core APIs only (delete-by-query
 * needs the engine's reindex module).
 */
export async function purgeExpiredChanges(
  client: Client,
  index: string,
  { retentionDays = DEFAULT_RETENTION_DAYS, now = new Date(), pageSize = 1000 }: { retentionDays?: number; now?: Date; pageSize?: number } = {},
): Promise<number> {
  const query = { bool: { filter: [{ term: { kind: 'change' } }, { range: { occurredAt: { lt: purgeCutoff(now, retentionDays).toISOString() } } }] } };
  let deleted = 0;
  let after: unknown[] | undefined;
  for (;;) {
    const res = await client.search({
      index,
      body: { size: pageSize, _source: false, query, sort: [{ occurredAt: 'asc' }, { id: 'asc' }], ...(after ? { search_after: after } : {}) },
    } as never);
    const hits = (res.body as { hits: { hits: { _id: string; sort: unknown[] }[] } }).hits.hits;
    if (hits.length === 0) return deleted;
    const bulk = await client.bulk({ body: hits.map((h) => ({ delete: { _index: index, _id: h._id } })) } as never);
    if ((bulk.body as { errors?: boolean }).errors) throw new Error(`purging expired changes of ${index}: some deletions failed`);
    deleted += hits.length;
    after = hits.at(-1)!.sort;
  }
}

async function purgeIfDue(client: Client, index: string, { retentionDays, now }: { retentionDays: number; now: Date }): Promise<void> {
  const last = lastPurge.get(index) ?? 0;
  if (now.getTime() - last < PURGE_EVERY_MS) return;
  lastPurge.set(index, now.getTime());
  await purgeExpiredChanges(client, index, { retentionDays, now });
}

/** Changes of a channel after `afterSeq`, by seq, at most `size` (a page for {@link pageOfChanges}). */
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
 * A change as an anonymous (published-only) caller sees it: a move into `published` is a
 * creation (the episode enters its view; after an earlier move out it had been told of a
 * deletion), an update while published stays an update, a move out is a deletion, and
 * changes of episodes that are not published on either side are not there at all.
 */
export function publishedView(change: ChangeDoc): Change | undefined {
  const was = change.previousStatus === 'published';
  const is = change.status === 'published';
  const base = { id: change.id, episodeId: change.episodeId, occurredAt: change.occurredAt };
  if (!was && !is) return undefined;
  if (!was) return { ...base, type: 'episode.created', status: 'published' };
  if (!is) return { ...base, type: 'episode.deleted', status: null };
  return { ...base, type: 'episode.updated', status: 'published' };
}

/** A change as a member sees it (every non-archived status; archiving was recorded as a deletion). */
export function memberView(change: ChangeDoc): Change {
  // Archiving is recorded as a deletion (status null); a stored `archived` is never shown.
  const status = change.status === 'archived' ? null : change.status;
  return { id: change.id, type: change.type, episodeId: change.episodeId, status, occurredAt: change.occurredAt };
}

export interface ChangePage {
  changes: Change[];
  /** The seq the next page starts after. */
  lastSeq: number;
  /** The id of the change at `lastSeq`, when this page moved past any; undefined when it stayed at `afterSeq`. */
  lastId?: string | undefined;
  /** True when more changes are readable right now. */
  hasMore: boolean;
}

/**
 * One page from rows read by seq after `afterSeq`. Rows are taken while the seqs run on
 * without a hole; a hole is stepped over only when the row after it was recorded more than
 * `gapGraceMs` ago (its writer died), else the page ends before it, so a late writer's
 * change is never skipped. Rows the view hides move the cursor but fill no place.
 * `fetched`: how many rows were asked for (a full read means there may be more).
 */
export function pageOfChanges(
  rows: readonly ChangeDoc[],
  {
    afterSeq,
    limit,
    fetched,
    now,
    gapGraceMs = DEFAULT_GAP_GRACE_MS,
    view,
  }: { afterSeq: number; limit: number; fetched: number; now: Date; gapGraceMs?: number; view: (c: ChangeDoc) => Change | undefined },
): ChangePage {
  const changes: Change[] = [];
  let last = afterSeq;
  let lastId: string | undefined;
  for (const row of rows) {
    if (row.seq <= last) continue;
    if (row.seq > last + 1 && now.getTime() - Date.parse(row.occurredAt) <= gapGraceMs) return { changes, lastSeq: last, lastId, hasMore: false };
    const shown = view(row);
    if (shown && changes.length === limit) return { changes, lastSeq: last, lastId, hasMore: true };
    if (shown) changes.push(shown);
    last = row.seq;
    lastId = row.id;
  }
  return { changes, lastSeq: last, lastId, hasMore: rows.length >= fetched };
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
