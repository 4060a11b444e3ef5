// The work order's arithmetic (decision 28): which items are `new`, and the priorities that make BullMQ run recent
// episodes first and the channels in turn.
import { expect } from 'chai';
import { assignTurns, newItems, PRIORITY_BAND, priorityOf, turnOfPriority, type Planned } from '../../pipeline/follow/work-order.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);
const daysAgo = (n: number) => new Date(NOW - n * DAY).toISOString();

/** BullMQ's order of prioritized jobs: lower priority first, equal priorities in the order they were added. */
const bullOrder = <T>(jobs: readonly { job: T; priority: number }[]): T[] =>
  jobs
    .map((j, added) => ({ ...j, added }))
    .sort((a, b) => a.priority - b.priority || a.added - b.added)
    .map((j) => j.job);

describe('work order: recent episodes and backfill', function () {
  const items = [
    { id: 'today', publishedAt: daysAgo(0) },
    { id: 'six-days', publishedAt: daysAgo(6) },
    { id: 'eight-days', publishedAt: daysAgo(8) },
    { id: 'last-year', publishedAt: daysAgo(365) },
    { id: 'undated' },
  ];

  it('counts an episode published within FOLLOW_RECENT_DAYS as new, and the older ones as backfill', function () {
    expect([...newItems(items, { recentDays: 7, recentItems: 0 }, NOW)].sort()).to.deep.equal(['six-days', 'today']);
  });

  it("counts the feed's newest FOLLOW_RECENT_ITEMS as new however old they are", function () {
    const monthly = items.filter((i) => i.id === 'eight-days' || i.id === 'last-year');
    expect([...newItems(monthly, { recentDays: 7, recentItems: 1 }, NOW)]).to.deep.equal(['eight-days']);
    expect([...newItems(items, { recentDays: 0, recentItems: 3 }, NOW)].sort()).to.deep.equal(['eight-days', 'six-days', 'today']);
  });

  it('puts every new priority before every backfill priority, and reads class and turn back from a priority', function () {
    expect(priorityOf('new', PRIORITY_BAND * 5)).to.be.below(priorityOf('backfill', 1));
    expect(priorityOf('backfill', PRIORITY_BAND * 5)).to.be.at.most(2_097_151);
    expect(turnOfPriority(priorityOf('backfill', 42))).to.deep.equal({ cls: 'backfill', turn: 42 });
    expect(turnOfPriority(priorityOf('new', 3))).to.deep.equal({ cls: 'new', turn: 3 });
  });
});

describe('work order: turns between channels', function () {
  const plan = (channel: string, count: number, cls: Planned<string>['cls'] = 'backfill'): Planned<string>[] =>
    Array.from({ length: count }, (_, i) => ({ cls, publishedAt: daysAgo(100 + i), job: `${channel}${i + 1}` }));
  const none = { new: 0, backfill: 0 };

  it("alternates two channels' backlogs, each newest first", function () {
    const a = assignTurns(plan('a', 4), { room: 100, waiting: none, front: none });
    const b = assignTurns(plan('b', 2), { room: 100, waiting: none, front: none });
    expect(bullOrder([...a.add, ...b.add])).to.deep.equal(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('gives a channel that joins late the current round, not a run ahead of the channel already being served', function () {
    // Channel a's jobs were added at turns 1..40; 20 ran, so the front is at 20 and a has turns 21..40 waiting.
    const a = assignTurns(plan('a', 40), { room: 100, waiting: none, front: none }).add.slice(20);
    const b = assignTurns(plan('b', 3), { room: 100, waiting: none, front: { new: 0, backfill: 20 } });
    expect(bullOrder([...a, ...b.add]).slice(0, 7)).to.deep.equal(['b1', 'a21', 'b2', 'a22', 'b3', 'a23', 'a24']);
  });

  it("runs another channel's new episode before any backlog, whatever was queued first", function () {
    const backlog = assignTurns(plan('a', 30), { room: 100, waiting: none, front: none });
    const fresh = assignTurns(plan('b', 1, 'new'), { room: 100, waiting: none, front: { new: 0, backfill: 12 } });
    expect(bullOrder([...backlog.add, ...fresh.add])[0]).to.equal('b1');
  });

  it('queues new before backfill within a channel and defers the oldest backfill past its room', function () {
    const mixed = [...plan('old', 3), { cls: 'new' as const, publishedAt: daysAgo(1), job: 'fresh' }];
    const { add, deferred } = assignTurns(mixed, { room: 2, waiting: none, front: none });
    expect(add.map((a) => a.job)).to.deep.equal(['fresh', 'old1']);
    expect(deferred).to.equal(2);
    expect(assignTurns(mixed, { room: 0, waiting: none, front: none })).to.deep.equal({ add: [], deferred: 4 });
  });

  it("places a channel's new jobs after the ones it already has waiting", function () {
    const { add } = assignTurns(plan('a', 1), { room: 10, waiting: { new: 0, backfill: 5 }, front: { new: 0, backfill: 7 } });
    expect(turnOfPriority(add[0]!.priority)).to.deep.equal({ cls: 'backfill', turn: 12 });
  });
});
