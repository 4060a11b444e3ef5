// The change feed's writer: what an episode's write is to a client, and appending it to the channel's log under the next seqs.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../ground/logger.js';
import type { EpisodeStatus } from '../contract/library-format.js';
import { isArchived } from '../store/documents.js';
import type { Client } from '../store/opensearch.js';
import { DEFAULT_GAP_GRACE_MS, DEFAULT_RETENTION_DAYS, counterId, type ChangeDoc, type ChangeEntry } from './log.js';
import { purgeIfDue } from './purge.js';

/** An episode as the log compares it: stored (or about to be). Undefined: not stored. */
export interface EpisodeState {
  status: EpisodeStatus;
  archived?: boolean | undefined;
}

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
  await purgeIfDue(client, index, { retentionDays, now: now(), log });
  return stored;
}
