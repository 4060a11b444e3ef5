// The pipeline's work order as BullMQ priorities (pure arithmetic, unit-tested): an episode published recently is
// of class `new` and runs before any `backfill`; within a class the channels take turns, because a channel's k-th
// waiting job gets turn `front + k` (the front being the turn last started) and BullMQ runs equal priorities first in
// first out. No scheduler of our own: the order is the queue's.

/** `new`: published within the recent window or among the feed's newest; `backfill`: the rest of its catalogue. */
export type WorkClass = 'new' | 'backfill';

/** BullMQ priorities run 1 (first) to 2,097,151; the lower half is the `new` class's, the upper half backfill's. */
export const PRIORITY_BAND = 2 ** 20;
const MAX_TURN = PRIORITY_BAND - 1;

/** The job priority of turn `turn` in class `cls` (turns past the band's end share its last priority, first in first out). */
export function priorityOf(cls: WorkClass, turn: number): number {
  return (cls === 'new' ? 0 : PRIORITY_BAND) + Math.min(MAX_TURN, Math.max(1, Math.floor(turn)));
}

/** The class and turn a job's priority stands for; a job without priority (enqueued before the work order) is `new`, turn 0. */
export function turnOfPriority(priority: number | undefined): { cls: WorkClass; turn: number } {
  if (!priority || priority <= 0) return { cls: 'new', turn: 0 };
  return priority > PRIORITY_BAND ? { cls: 'backfill', turn: priority - PRIORITY_BAND } : { cls: 'new', turn: priority };
}

/** What decides an item's class (FOLLOW_RECENT_DAYS, FOLLOW_RECENT_ITEMS). */
export interface RecentRule {
  recentDays: number;
  recentItems: number;
}

/**
 * The ids of the items of class `new`: published within `recentDays` of `now`, or among the `recentItems` newest of the
 * feed (the newest episode of a monthly show is still the one its listeners wait for). An item without a date is backfill.
 */
export function newItems(items: readonly { id: string; publishedAt?: string | undefined }[], { recentDays, recentItems }: RecentRule, now: number): Set<string> {
  const since = now - recentDays * 86_400_000;
  const dated = items.flatMap((i) => {
    const at = i.publishedAt ? Date.parse(i.publishedAt) : Number.NaN;
    return Number.isNaN(at) ? [] : [{ id: i.id, at }];
  });
  dated.sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : 1));
  return new Set(dated.filter((d, rank) => rank < recentItems || (recentDays > 0 && d.at >= since)).map((d) => d.id));
}

/** A job to add, with its class and date (for the order within the channel). */
export interface Planned<T> {
  cls: WorkClass;
  publishedAt?: string | undefined;
  job: T;
}

/**
 * Which of a channel's jobs to add now and with which priority: `new` before backfill and newest first within each,
 * as many as `room` allows (the channel's cap less what it already has queued or running); the rest wait for a later
 * poll. The channel's k-th waiting job of a class gets turn `max(front, 1) + k`: a channel whose backlog ran ahead of
 * the others' does not take the front again, and one that had nothing queued joins the current round.
 */
export function assignTurns<T>(
  plan: readonly Planned<T>[],
  { room, waiting, front }: { room: number; waiting: Record<WorkClass, number>; front: Record<WorkClass, number> },
): { add: { job: T; priority: number }[]; deferred: number } {
  const time = (p: Planned<T>) => (p.publishedAt ? Date.parse(p.publishedAt) || 0 : 0);
  const ordered = [...plan].sort((a, b) => (a.cls === b.cls ? time(b) - time(a) : a.cls === 'new' ? -1 : 1));
  const take = ordered.slice(0, Math.max(0, room));
  const next = { ...waiting };
  const add = take.map((p) => ({ job: p.job, priority: priorityOf(p.cls, Math.max(front[p.cls], 1) + next[p.cls]++) }));
  return { add, deferred: ordered.length - take.length };
}
