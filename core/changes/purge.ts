// The change feed's retention: changes older than CHANGES_RETENTION_DAYS (plus a margin) are deleted; counters stay.
import type { Logger } from '../ground/logger.js';
import type { Client } from '../store/opensearch.js';
import { DEFAULT_RETENTION_DAYS } from './log.js';

/** Retention purges keep this much more than the retention, so a cursor still valid never misses a purged change. */
const PURGE_MARGIN_MS = 60 * 60 * 1000;

/** Purges at most this often per process and index. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

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

const lastPurge = new Map<string, number>();

/**
 * Purges the index when this process has not done so for an hour. A failed purge never fails the
 * write that asked for it: it is reported to `log` and the next write tries again.
 */
export async function purgeIfDue(
  client: Client,
  index: string,
  { retentionDays, now, log }: { retentionDays: number; now: Date; log?: Pick<Logger, 'warn'> | undefined },
): Promise<void> {
  const last = lastPurge.get(index) ?? 0;
  if (now.getTime() - last < PURGE_EVERY_MS) return;
  lastPurge.set(index, now.getTime());
  await purgeExpiredChanges(client, index, { retentionDays, now }).catch((err: unknown) => {
    lastPurge.delete(index);
    log?.warn({ err, index }, 'purging expired changes failed; the next write tries again');
  });
}
