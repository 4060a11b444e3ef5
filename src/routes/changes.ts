// GET /api/v1/channels/{slug}/changes: the channel's change feed, oldest first, resumable from an opaque cursor.
import { accessChannel } from '../auth/access.js';
import { createError } from '../errors.js';
import { decodeCursor, encodeCursor, queryDigest } from '../http/cursor.js';
import { route, type Route } from '../http/route.js';
import { ListChanges } from '../openapi/operations.js';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { DEFAULT_GAP_GRACE_MS, DEFAULT_RETENTION_DAYS } from '../../core/changes/log.js';
import { changesAfter, lastSeq, seqOfChange } from '../../core/changes/read.js';
import { memberView, pageOfChanges, publishedView } from '../../core/changes/views.js';

/** Rows read per visible change on published-only reads, where hidden changes take no place on the page. */
const PUBLISHED_READ_FACTOR = 10;

/**
 * What a changes cursor holds: where the caller is and when the cursor was issued. A member's cursor holds the last
 * seq it was given. A published-only cursor holds the id of the last change read instead (`changeId`, null before
 * the first; `seq` is then 0 until the route looks the id up): a seq there would count the drafts' changes the view
 * hides, and tell an anonymous poller when they happened (security review 2026-11-27, item 11).
 */
export interface ChangesPosition {
  seq: number;
  issuedAt: Date;
  changeId?: string | null;
}

/** The digest binding a cursor to one channel and one view (a member's cursor is no anonymous one). */
const digestOf = (channelId: string, publishedOnly: boolean) => queryDigest({ feed: 'changes', channel: channelId, publishedOnly });

/** The opaque `cursor` for a position in a channel's feed, in the project's keyset cursor form. */
export function encodeChangesCursor({ channelId, publishedOnly }: { channelId: string; publishedOnly: boolean }, { seq, issuedAt, changeId }: ChangesPosition): string {
  if (publishedOnly) return encodeCursor([issuedAt.getTime(), changeId ?? ''], digestOf(channelId, true));
  return encodeCursor([seq, issuedAt.toISOString()], digestOf(channelId, false));
}

/**
 * The position inside a cursor made for this channel and view: 400 `invalid_cursor` when
 * malformed or made for another, 410 `cursor_expired` when issued longer ago than the
 * retention (changes after it may have been purged: the client must list again).
 */
export function decodeChangesCursor(
  cursor: string,
  { channelId, publishedOnly }: { channelId: string; publishedOnly: boolean },
  { now, retentionDays }: { now: Date; retentionDays: number },
): ChangesPosition {
  const [first, second] = decodeCursor(cursor, digestOf(channelId, publishedOnly));
  const position: ChangesPosition = publishedOnly ? { seq: 0, issuedAt: new Date(first), changeId: second === '' ? null : second } : { seq: first, issuedAt: new Date(second) };
  if (position.seq < 0 || Number.isNaN(position.issuedAt.getTime())) throw createError('invalid_cursor', { parameter: 'cursor' });
  if (position.issuedAt.getTime() < now.getTime() - retentionDays * 86_400_000) throw createError('cursor_expired', { parameter: 'cursor' });
  return position;
}

export function listChanges({
  client,
  aliases,
  retentionDays = DEFAULT_RETENTION_DAYS,
  gapGraceMs = DEFAULT_GAP_GRACE_MS,
}: {
  client: Client;
  aliases: IndexAliases;
  /** CHANGES_RETENTION_DAYS: how old a cursor may be. */
  retentionDays?: number;
  gapGraceMs?: number;
}): Route {
  return route(ListChanges, async ({ params, query: { limit, cursor } }, req) => {
    const { channel, publishedOnly } = await accessChannel(req.queries, req.principal!, params.slug);
    const now = new Date();
    const view = { channelId: channel.id, publishedOnly };
    const position = cursor !== undefined ? decodeChangesCursor(cursor, view, { now, retentionDays }) : undefined;
    const fetched = (publishedOnly ? limit * PUBLISHED_READ_FACTOR : limit) + 1;
    const timeout = { requestTimeout: req.queries.timeLeftMs() };
    let afterSeq = position?.seq ?? 0;
    if (position?.changeId) {
      // The change a published-only cursor names is gone: purged past the retention, or the log was lost.
      afterSeq = (await seqOfChange(client, aliases.changes, channel.id, position.changeId, timeout)) ?? -1;
      if (afterSeq < 0) throw createError('cursor_expired', { parameter: 'cursor' });
    }
    const [rows, head] = await Promise.all([
      changesAfter(client, aliases.changes, { channelId: channel.id, afterSeq, size: fetched }, timeout),
      lastSeq(client, aliases.changes, channel.id, timeout),
    ]);
    // A cursor past the last seq handed out belongs to a log that was since lost (index dropped): start again.
    if (afterSeq > head) throw createError('cursor_expired', { parameter: 'cursor' });
    const page = pageOfChanges(rows, { afterSeq, limit, fetched, now, gapGraceMs, view: publishedOnly ? publishedView : memberView });
    const changeId = page.lastId ?? position?.changeId ?? null;
    return { changes: page.changes, cursor: encodeChangesCursor(view, { seq: page.lastSeq, issuedAt: now, changeId }), hasMore: page.hasMore };
  });
}
