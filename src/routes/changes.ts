// GET /api/v1/channels/{slug}/changes: the channel's change feed, oldest first, resumable from an opaque cursor.
import type { RequestHandler } from 'express';
import { accessChannel } from '../auth/access.js';
import { createError } from '../errors.js';
import { decodeCursor, encodeCursor, queryDigest } from '../http/cursor.js';
import { validQuery } from '../http/validate-params.js';
import { ChangesQuery } from '../openapi/parameters.js';
import type { Client, IndexAliases } from '../store/opensearch.js';
import { DEFAULT_GAP_GRACE_MS, DEFAULT_RETENTION_DAYS, changesAfter, lastSeq, memberView, pageOfChanges, publishedView } from '../store/changes.js';

/** Rows read per visible change on published-only reads, where hidden changes take no place on the page. */
const PUBLISHED_READ_FACTOR = 10;

/** What a changes cursor holds: the last seq the caller was given and when the cursor was issued. */
export interface ChangesPosition {
  seq: number;
  issuedAt: Date;
}

/** The digest binding a cursor to one channel and one view (a member's cursor is no anonymous one). */
const digestOf = (channelId: string, publishedOnly: boolean) => queryDigest({ feed: 'changes', channel: channelId, publishedOnly });

/** The opaque `cursor` for a position in a channel's feed, in the project's keyset cursor form. */
export function encodeChangesCursor({ channelId, publishedOnly }: { channelId: string; publishedOnly: boolean }, { seq, issuedAt }: ChangesPosition): string {
  return encodeCursor([seq, issuedAt.toISOString()], digestOf(channelId, publishedOnly));
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
  const [seq, issued] = decodeCursor(cursor, digestOf(channelId, publishedOnly));
  const issuedAt = new Date(issued);
  if (seq < 0 || Number.isNaN(issuedAt.getTime())) throw createError('invalid_cursor', { parameter: 'cursor' });
  if (issuedAt.getTime() < now.getTime() - retentionDays * 86_400_000) throw createError('cursor_expired', { parameter: 'cursor' });
  return { seq, issuedAt };
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
}): RequestHandler {
  return async (req, res) => {
    const { limit, cursor } = validQuery(req, ChangesQuery);
    const { channel, publishedOnly } = await accessChannel(req.queries, req.principal!, String(req.params.slug));
    const now = new Date();
    const view = { channelId: channel.id, publishedOnly };
    const afterSeq = cursor !== undefined ? decodeChangesCursor(cursor, view, { now, retentionDays }).seq : 0;
    const fetched = (publishedOnly ? limit * PUBLISHED_READ_FACTOR : limit) + 1;
    const timeout = { requestTimeout: req.queries.timeLeftMs() };
    const [rows, head] = await Promise.all([
      changesAfter(client, aliases.changes, { channelId: channel.id, afterSeq, size: fetched }, timeout),
      lastSeq(client, aliases.changes, channel.id, timeout),
    ]);
    // A cursor past the last seq handed out belongs to a log that was since lost (index dropped): start again.
    if (afterSeq > head) throw createError('cursor_expired', { parameter: 'cursor' });
    const page = pageOfChanges(rows, { afterSeq, limit, fetched, now, gapGraceMs, view: publishedOnly ? publishedView : memberView });
    res.json({ changes: page.changes, cursor: encodeChangesCursor(view, { seq: page.lastSeq, issuedAt: now }), hasMore: page.hasMore });
  };
}
