import { expect } from 'chai';
import { ApiError } from '../../src/errors.js';
import { decodeChangesCursor, encodeChangesCursor } from '../../src/routes/changes.js';
import type { ChangeDoc } from '../../core/changes/log.js';
import { purgeCutoff } from '../../core/changes/purge.js';
import { changeBetween } from '../../core/changes/record.js';
import { memberView, pageOfChanges, publishedView } from '../../core/changes/views.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

function row(seq: number, overrides: Partial<ChangeDoc> = {}): ChangeDoc {
  return {
    kind: 'change',
    id: `chg_${seq}`,
    channelId: 'ch_1',
    seq,
    type: 'episode.updated',
    episodeId: `ep_${seq}`,
    status: 'indexed',
    previousStatus: 'processing',
    occurredAt: ago(60_000),
    ...overrides,
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.code}` : String(error);
  }
  return undefined;
}

describe('change feed: what a write is to a client', function () {
  it('calls a first write a creation, a later one an update', function () {
    expect(changeBetween(undefined, { status: 'pending' })).to.deep.equal({ type: 'episode.created', status: 'pending', previousStatus: null });
    expect(changeBetween({ status: 'pending' }, { status: 'published' })).to.deep.equal({ type: 'episode.updated', status: 'published', previousStatus: 'pending' });
  });

  it('calls archiving and removal deletions, and un-archiving a creation', function () {
    expect(changeBetween({ status: 'published' }, { status: 'archived' })).to.deep.equal({ type: 'episode.deleted', status: null, previousStatus: 'published' });
    expect(changeBetween({ status: 'failed', archived: false }, undefined)).to.deep.equal({ type: 'episode.deleted', status: null, previousStatus: 'failed' });
    expect(changeBetween({ status: 'archived', archived: true }, { status: 'published' })).to.deep.equal({ type: 'episode.created', status: 'published', previousStatus: null });
  });

  it('says nothing of an episode archived before and after, or removed while archived', function () {
    expect(changeBetween({ status: 'archived' }, { status: 'archived' })).to.equal(undefined);
    expect(changeBetween({ status: 'archived', archived: true }, undefined)).to.equal(undefined);
    expect(changeBetween(undefined, { status: 'archived' })).to.equal(undefined);
  });
});

describe('change feed: the published-only view', function () {
  it('shows publishing as a creation, unpublishing as a deletion, an update while published as an update', function () {
    expect(publishedView(row(1, { type: 'episode.updated', previousStatus: 'indexed', status: 'published' }))).to.include({ type: 'episode.created', status: 'published' });
    expect(publishedView(row(2, { type: 'episode.updated', previousStatus: 'published', status: 'failed' }))).to.include({ type: 'episode.deleted', status: null });
    expect(publishedView(row(3, { type: 'episode.deleted', previousStatus: 'published', status: null }))).to.include({ type: 'episode.deleted', status: null });
    expect(publishedView(row(4, { type: 'episode.updated', previousStatus: 'published', status: 'published' }))).to.include({ type: 'episode.updated', status: 'published' });
  });

  it('hides every change of an episode that is unpublished on both sides', function () {
    expect(publishedView(row(1, { type: 'episode.created', previousStatus: null, status: 'pending' }))).to.equal(undefined);
    expect(publishedView(row(2, { type: 'episode.updated', previousStatus: 'pending', status: 'failed' }))).to.equal(undefined);
    expect(publishedView(row(3, { type: 'episode.deleted', previousStatus: 'failed', status: null }))).to.equal(undefined);
  });

  it('keeps the stored id, so the two views name a change alike', function () {
    const r = row(5, { previousStatus: 'published', status: 'published' });
    expect(publishedView(r)!.id).to.equal(memberView(r).id);
  });
});

describe('change feed: a page of the log', function () {
  const page = (rows: ChangeDoc[], opts: Partial<Parameters<typeof pageOfChanges>[1]> = {}) =>
    pageOfChanges(rows, { afterSeq: 0, limit: 10, fetched: 11, now: NOW, gapGraceMs: 10_000, view: memberView, ...opts });

  it('returns the rows after the cursor in seq order, and the last seq as the next position', function () {
    const p = page([row(1), row(2), row(3)]);
    expect(p.changes.map((c) => c.id)).to.deep.equal(['chg_1', 'chg_2', 'chg_3']);
    expect(p).to.include({ lastSeq: 3, hasMore: false });
  });

  it('stops before a recent hole: a writer may still store the missing seq', function () {
    const p = page([row(1), row(3, { occurredAt: ago(2_000) }), row(4, { occurredAt: ago(1_000) })]);
    expect(p.changes.map((c) => c.id)).to.deep.equal(['chg_1']);
    expect(p).to.include({ lastSeq: 1, hasMore: false });
  });

  it('steps over a hole older than the grace: its writer died', function () {
    const p = page([row(1), row(3, { occurredAt: ago(11_000) }), row(4, { occurredAt: ago(1_000) })]);
    expect(p.changes.map((c) => c.id)).to.deep.equal(['chg_1', 'chg_3', 'chg_4']);
    expect(p.lastSeq).to.equal(4);
  });

  it('ends a full page with hasMore and the position of its last row', function () {
    const p = page([row(4), row(5), row(6)], { afterSeq: 3, limit: 2, fetched: 3 });
    expect(p.changes.map((c) => c.id)).to.deep.equal(['chg_4', 'chg_5']);
    expect(p).to.include({ lastSeq: 5, hasMore: true });
  });

  it('moves past hidden rows without giving them a place', function () {
    const hidden = (seq: number) => row(seq, { previousStatus: 'pending', status: 'processing' });
    const shown = (seq: number) => row(seq, { previousStatus: 'published', status: 'published' });
    const p = page([hidden(1), shown(2), hidden(3), hidden(4)], { view: publishedView, limit: 1, fetched: 4 });
    // The page is full after seq 2, but only a visible change would need another place: hidden ones are consumed.
    expect(p.changes.map((c) => c.id)).to.deep.equal(['chg_2']);
    expect(p.lastSeq).to.equal(4);
    expect(p.hasMore).to.equal(true);
  });
});

describe('change feed: cursors', function () {
  const view = { channelId: 'ch_1', publishedOnly: false };
  const rules = { now: NOW, retentionDays: 30 };

  it('round-trips the position', function () {
    const cursor = encodeChangesCursor(view, { seq: 42, issuedAt: NOW });
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeChangesCursor(cursor, view, rules)).to.deep.equal({ seq: 42, issuedAt: NOW });
  });

  it('refuses a malformed cursor, or one of another channel or view, with 400 invalid_cursor', function () {
    const cursor = encodeChangesCursor(view, { seq: 1, issuedAt: NOW });
    expect(codeOf(() => decodeChangesCursor('not a cursor!', view, rules))).to.equal('400 invalid_cursor');
    expect(codeOf(() => decodeChangesCursor(cursor, { ...view, channelId: 'ch_2' }, rules))).to.equal('400 invalid_cursor');
    expect(codeOf(() => decodeChangesCursor(cursor, { ...view, publishedOnly: true }, rules))).to.equal('400 invalid_cursor');
    expect(codeOf(() => decodeChangesCursor(encodeChangesCursor(view, { seq: -1, issuedAt: NOW }), view, rules))).to.equal('400 invalid_cursor');
  });

  it('answers 410 cursor_expired for a cursor issued longer ago than the retention', function () {
    const old = encodeChangesCursor(view, { seq: 1, issuedAt: new Date(NOW.getTime() - 30 * 86_400_000 - 1) });
    const recent = encodeChangesCursor(view, { seq: 1, issuedAt: new Date(NOW.getTime() - 30 * 86_400_000 + 60_000) });
    expect(codeOf(() => decodeChangesCursor(old, view, rules))).to.equal('410 cursor_expired');
    expect(codeOf(() => decodeChangesCursor(recent, view, rules))).to.equal(undefined);
  });

  it('purges only what no valid cursor can still need', function () {
    // A cursor issued just inside the retention reads changes recorded after it; the purge keeps an hour more than that.
    expect(purgeCutoff(NOW, 30).getTime()).to.be.below(NOW.getTime() - 30 * 86_400_000);
  });
});
