// The change feed as callers see it: the published-only and member views of a stored change, and a page of them
// (shared by the REST route and the webhook dispatcher).
import type { Change } from '../contract/changes.js';
import { DEFAULT_GAP_GRACE_MS, type ChangeDoc } from './log.js';

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
