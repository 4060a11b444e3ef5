// What the worker rebuilds after Redis lost its data: the webhook delivered checkpoint and the follow work left to do (pure parts).
import { expect } from 'chai';
import { deliveredThrough, parseDeliveryJobId } from '../../pipeline/webhooks/recover.js';
import { deliveryJobId } from '../../pipeline/webhooks/queues.js';
import { unfinishedItems } from '../../pipeline/follow/recover.js';
import { MAX_PROCESS_STARTS } from '../../pipeline/follow/queues.js';
import type { ItemSource } from '../../core/library/follow-state.js';

describe('redis loss: the webhook delivered checkpoint', function () {
  it('is the cursor when no delivery is unfinished', function () {
    expect(deliveredThrough(42, [])).to.equal(42);
  });

  it('stops just before the oldest unfinished delivery, whatever order they are read in', function () {
    expect(deliveredThrough(42, [40, 37, 41])).to.equal(36);
  });

  it('never passes the cursor, even when an unfinished delivery is past it (enqueued after the cursor was read)', function () {
    expect(deliveredThrough(42, [50])).to.equal(42);
  });

  it('reads the endpoint and the change back from a delivery job id, and nothing from another id', function () {
    const id = deliveryJobId('wh_0123456789abcdef', 'chg_5f0c6a1e-1b7a-4c53-9d3e-0a1b2c3d4e5f');
    expect(parseDeliveryJobId(id)).to.deep.equal({ endpointId: 'wh_0123456789abcdef', changeId: 'chg_5f0c6a1e-1b7a-4c53-9d3e-0a1b2c3d4e5f' });
    expect(parseDeliveryJobId('repeat:webhooks-dispatch:1')).to.equal(undefined);
  });
});

describe('redis loss: the follow work left to do', function () {
  const item = (over: Partial<ItemSource>): ItemSource => ({ key: 'k', enclosureUrl: null, transcripts: [], chaptersUrl: null, notes: null, digest: 'd2', ...over });

  it('counts the versions not processed (new, changed since processed, started but unfinished) and not the processed ones', function () {
    const items = {
      fresh: item({}),
      changed: item({ processed: { digest: 'd1', outcome: 'published' } }),
      started: item({ starts: { digest: 'd2', count: 1 } }),
      published: item({ processed: { digest: 'd2', outcome: 'published' } }),
      failed: item({ processed: { digest: 'd2', outcome: 'failed' } }),
    };
    expect(unfinishedItems({ kind: 'feed', items })).to.deep.equal({ unfinished: 3, exhausted: 0 });
  });

  it('sets apart a version started more often than any job may start it, and counts nothing of a yt-dlp folder', function () {
    const items = { stuck: item({ starts: { digest: 'd2', count: MAX_PROCESS_STARTS + 1 } }), fresh: item({}) };
    expect(unfinishedItems({ kind: 'feed', items })).to.deep.equal({ unfinished: 1, exhausted: 1 });
    expect(unfinishedItems({ kind: 'ytdlp', items })).to.deep.equal({ unfinished: 0, exhausted: 0 });
  });
});
