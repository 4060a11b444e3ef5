// The change feed's log as stored: per-channel sequence numbers from a counter document, change documents paged by `seq`.
import type { ChangeType } from '../contract/changes.js';
import type { EpisodeStatus } from '../contract/library-format.js';

/** Default retention of the log (CHANGES_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 30;

/**
 * How long a hole in the sequence may stay open before readers step over it. A writer takes
 * its seq before it stores the change, so seq 10 can be readable before seq 9; a hole this
 * old is a writer that died between the two steps. Writers re-record a change whose store
 * took more than half of it (see `recordChanges`), so no stored change stays hidden
 * behind a skipped hole.
 */
export const DEFAULT_GAP_GRACE_MS = 10_000;

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

/** The id of the channel's counter document, which holds the last seq handed out. */
export const counterId = (channelId: string) => `counter:${channelId}`;
