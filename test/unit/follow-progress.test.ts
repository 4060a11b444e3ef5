// The progress `npm run follow -- --list` prints and /metrics exports, as pure functions: the measured rate, the
// estimates with channels taking turns, durations for people, the table and the JSON kept free of terminal controls.
import { expect } from 'chai';
import { formatAudio, formatDuration, formatSourceWork, formatTotals, progressJson } from '../../bin/lib/follow-output.js';
import { emptyBacklog, etasOf, median, rateOf, sumBacklogs, withEtas, type Progress, type SourceProgress } from '../../pipeline/follow/progress.js';
import { oldestNewWaitSeconds } from '../../pipeline/metrics/follow.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const source = (slug: string, over: Partial<SourceProgress> = {}): SourceProgress => ({
  slug,
  source: `https://example.org/${slug}.xml`,
  stopped: false,
  poll: { lastPollAt: null, lastOutcome: null, lastStatus: null, lastError: null, itemsSeen: 0, errors: 0, nextPollAt: null, stoppedAt: null },
  waiting: { new: emptyBacklog(), backfill: emptyBacklog() },
  processing: [],
  failed: [],
  failedTotal: 0,
  ...over,
});

const progressOf = (sources: SourceProgress[]): Progress => ({
  version: 1,
  at: '2026-11-27T12:00:00.000Z',
  rate: null,
  slots: 1,
  totals: { new: sumBacklogs(sources.map((s) => s.waiting.new)), backfill: sumBacklogs(sources.map((s) => s.waiting.backfill)) },
  sources,
});

describe('follow progress: rate and estimates', function () {
  it('takes the median of an odd and an even count, and none of nothing', function () {
    expect(median([180, 60, 120])).to.equal(120);
    expect(median([60, 120, 180, 3600])).to.equal(150);
    expect(median([])).to.equal(null);
  });

  it('measures the rate on the newest episodes transcribed from audio, skipping those read from transcript files', function () {
    const rate = rateOf(
      [
        { transcriptFrom: 'feed' },
        { audioSeconds: 100, transcribeSeconds: 20 },
        null,
        { audioSeconds: 300, transcribeSeconds: 30 },
        { audioSeconds: 1000, transcribeSeconds: 1000 },
      ],
      2,
    );
    expect(rate).to.deep.equal({ wallSecondsPerAudioSecond: 50 / 400, episodes: 2, audioSeconds: 400 });
    expect(rateOf([{ transcriptFrom: 'feed' }, { audioSeconds: 0, transcribeSeconds: 0 }])).to.equal(null);
  });

  it('estimates a source as done once every other source has had the same share, all new work first', function () {
    // A has 1000 s of backfill, B 100 s; C a new episode of 50 s. Rate 0.5 wall s per audio s, one slot.
    const [a, b, c] = etasOf(
      [
        { new: 0, backfill: 1000 },
        { new: 0, backfill: 100 },
        { new: 50, backfill: 0 },
      ],
      0.5,
      1,
    );
    expect(c).to.deep.equal({ new: 25, backfill: 0 });
    expect(b!.backfill, 'B: the new work, then its 100 s while A does 100 s').to.equal((50 + 100 + 100) * 0.5);
    expect(a!.backfill, 'A: everything').to.equal((50 + 1000 + 100) * 0.5);
    expect(etasOf([{ new: 10, backfill: 10 }], 0.5, 2)[0]).to.deep.equal({ new: 2.5, backfill: 5 });
    expect(etasOf([{ new: 10, backfill: 10 }], null, 1)[0]).to.deep.equal({ new: null, backfill: null });
  });

  it('puts the estimates on each source and on the totals (backfill: when everything is done)', function () {
    const a = source('a', { waiting: { new: { ...emptyBacklog(), episodes: 1, audioSeconds: 600 }, backfill: { ...emptyBacklog(), episodes: 3, audioSeconds: 3600 } } });
    const p = withEtas(progressOf([a]), { wallSecondsPerAudioSecond: 0.25, episodes: 20, audioSeconds: 9000 }, 0);
    expect(p.slots, 'at least one slot').to.equal(1);
    expect(p.totals.new.etaSeconds).to.equal(150);
    expect(p.totals.backfill.etaSeconds).to.equal(1050);
    expect(p.sources[0]!.waiting.backfill.etaSeconds).to.equal(1050);
  });

  it('sums backlogs and keeps the oldest queued time, which the gauge turns into an age', function () {
    const total = sumBacklogs([
      { ...emptyBacklog(), episodes: 2, queued: 2, audioSeconds: 10, oldestQueuedAt: '2026-11-27T10:00:00.000Z' },
      { ...emptyBacklog(), episodes: 1, deferred: 1, audioSeconds: 5, estimatedAudioSeconds: 5, oldestQueuedAt: '2026-11-27T09:00:00.000Z' },
    ]);
    expect(total).to.include({ episodes: 3, queued: 2, deferred: 1, audioSeconds: 15, estimatedAudioSeconds: 5, oldestQueuedAt: '2026-11-27T09:00:00.000Z' });
    expect(oldestNewWaitSeconds({ totals: { new: total, backfill: emptyBacklog() } }, Date.parse('2026-11-27T09:01:30.000Z'))).to.equal(90);
    expect(oldestNewWaitSeconds({ totals: { new: emptyBacklog(), backfill: total } }, Date.now())).to.equal(0);
  });
});

describe('follow progress: what people read', function () {
  it('says durations in the unit that reads best', function () {
    expect([0, 44.6, 90, 3599, 3600, 3660 * 3, 47 * 3600, 50 * 3600, 72 * 3600].map(formatDuration)).to.deep.equal([
      '0 s',
      '45 s',
      '2 min',
      '1 h',
      '1 h',
      '3 h 3 min',
      '47 h',
      '2 d 2 h',
      '3 d',
    ]);
    expect([12.4, 60, 1790, 3600, 5400, 1_124_640].map(formatAudio)).to.deep.equal(['12 s', '1 min', '30 min', '1.0 h', '1.5 h', '312.4 h']);
  });

  it("tables a source's waiting work, what runs and what failed, with controls from the feed made visible", function () {
    const s = source('a', {
      waiting: {
        new: { ...emptyBacklog(), episodes: 1, queued: 1, audioSeconds: 1800, etaSeconds: 240 },
        backfill: {
          ...emptyBacklog(),
          episodes: 40,
          queued: 12,
          deferred: 28,
          fromTranscriptFile: 3,
          audioSeconds: 36_000,
          estimatedAudioSeconds: 3600,
          unknownDuration: 2,
          etaSeconds: 5000,
        },
      },
      processing: [{ episodeId: 'e1', title: 'Bread\u001b[2K', since: '2026-11-27T11:59:00.000Z' }],
      failed: [{ episodeId: 'e2', title: 'Gone', error: 'the audio URL answered 404\u202e' }],
      failedTotal: 3,
    });
    const lines = formatSourceWork(s);
    expect(lines).to.deep.equal([
      '  waiting     new       1 episode (1 queued)                         30 min of audio to transcribe                                                                           done in about 4 min',
      '  waiting     backfill  40 episodes (12 queued, 28 for later polls)  10.0 h of audio to transcribe (1.0 h estimated), 2 episodes of unknown length, 3 from transcript files  done in about 1 h 23 min',
      '  processing  -         "Bread\uFFFD[2K"                                  since 2026-11-27T11:59:00.000Z',
      '  failed      -         "Gone"                                       the audio URL answered 404\uFFFD',
      '  failed      -         and 2 more',
    ]);
    expect(formatSourceWork(source('idle'))).to.deep.equal(['  waiting  -  nothing']);
  });

  it('closes with the totals and the measured rate, or says why there is no estimate', function () {
    const a = source('a', { waiting: { new: { ...emptyBacklog(), episodes: 1, audioSeconds: 600 }, backfill: { ...emptyBacklog(), episodes: 3, audioSeconds: 3000 } } });
    expect(formatTotals(progressOf([a]))).to.equal(
      'all sources: 1 new and 3 backfill episodes waiting, 1.0 h of audio to transcribe; no estimate: no episode was transcribed from audio in the last day, and the rate is measured on those',
    );
    const measured = withEtas(progressOf([a]), { wallSecondsPerAudioSecond: 0.5, episodes: 20, audioSeconds: 7200 }, 2);
    expect(formatTotals(measured)).to.equal(
      'all sources: 1 new and 3 backfill episodes waiting, 1.0 h of audio to transcribe; new ones done in about 3 min, all in about 15 min at 0.500 s per audio second (the last 20 episodes transcribed), 2 slots',
    );
  });

  it('keeps the JSON whole but writes C1 controls and bidirectional overrides as escapes', function () {
    const p = progressOf([source('a', { failed: [{ episodeId: 'e', title: 'T\u009b31m\u202e\u001b', error: 'x' }], failedTotal: 1 })]);
    const text = progressJson(p);
    expect(text).to.not.match(CONTROL);
    expect((JSON.parse(text) as Progress).sources[0]!.failed[0]!.title).to.equal('T\u009b31m\u202e\u001b');
  });
});
