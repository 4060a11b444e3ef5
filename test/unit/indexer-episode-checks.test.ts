// Ingest's checks beyond the schema (issue 32, items 2 and 12): the caps of EPISODE_LIMITS, key moments that end
// before they start, and segments out of order or overlapping more than a caption file's frame or two.
import { expect } from 'chai';
import { checkEpisode } from '../../core/library/checks.js';

const episode = (extra: Record<string, unknown>) => ({ id: 'ep_1', channelId: 'ch_a', title: 'T', publishedAt: '2024-01-01T00:00:00.000Z', status: 'published', ...extra });
const segments = (n: number, words = 0) =>
  Array.from({ length: n }, (_, i) => ({
    startMs: i * 10,
    endMs: i * 10 + 10,
    text: 'x',
    ...(words ? { words: Array.from({ length: words }, () => ({ t: 'x', s: i * 10, e: i * 10 + 10 })) } : {}),
  }));
const transcript = (segs: unknown[]) => ({ transcript: { formatVersion: 1, segments: segs } });
const chapters = (n: number, moments = 0) =>
  Array.from({ length: n }, (_, i) => ({
    title: `c${i}`,
    startMs: i,
    endMs: i + 1,
    moments: Array.from({ length: moments }, () => ({ type: 'quote', title: 'q', startMs: i, endMs: i + 1 })),
  }));

describe('checkEpisode: caps and order', function () {
  it('accepts an episode at every cap', function () {
    expect(checkEpisode(episode({ ...transcript(segments(50_000, 20)), chapters: chapters(2_000, 5) })).ok).to.equal(true);
  });

  it('refuses an episode past a cap, naming the limit', function () {
    const reason = (extra: Record<string, unknown>) => {
      const checked = checkEpisode(episode(extra));
      return checked.ok ? 'accepted' : checked.reason;
    };
    expect(reason(transcript(segments(50_001)))).to.equal('transcript has 50,001 segments: more than the 50,000 allowed');
    expect(reason(transcript(segments(1_001, 1_000)))).to.equal('transcript has 1,001,000 words: more than the 1,000,000 allowed');
    expect(reason({ chapters: chapters(2_001) })).to.equal('episode has 2,001 chapters: more than the 2,000 allowed');
    expect(reason({ chapters: chapters(1_001, 10) })).to.equal('episode has 10,010 key moments: more than the 10,000 allowed');
  });

  it('refuses a key moment that ends before it starts, and accepts one without an end', function () {
    const moment = (endMs: number | null) => ({ chapters: [{ title: 'c', startMs: 0, endMs: 100, moments: [{ type: 'quote', title: 'q', startMs: 50, endMs }] }] });
    expect(checkEpisode(episode(moment(40)))).to.deep.equal({ ok: false, reason: '/chapters/0/moments/0 endMs 40 is before startMs 50' });
    expect(checkEpisode(episode(moment(null))).ok).to.equal(true);
    expect(checkEpisode(episode(moment(50))).ok).to.equal(true);
  });

  it('refuses segments out of order and overlaps beyond a minute; accepts the overlaps of real transcripts', function () {
    const two = (a: [number, number], b: [number, number]) =>
      episode(
        transcript([
          { startMs: a[0], endMs: a[1], text: 'a' },
          { startMs: b[0], endMs: b[1], text: 'b' },
        ]),
      );
    expect(checkEpisode(two([5_000, 6_000], [1_000, 2_000]))).to.deep.equal({
      ok: false,
      reason: "/transcript/segments/1 startMs 1000 is before the previous segment's start 5000: segments out of order",
    });
    expect(checkEpisode(two([0, 100_000], [30_000, 31_000]))).to.deep.equal({
      ok: false,
      reason: '/transcript/segments/1 starts at 30000, 70,000 ms before the previous segment ends: more than the 60,000 ms of overlap allowed',
    });
    expect(checkEpisode(two([279_000, 280_000], [279_000, 285_000])).ok, 'an interjection timed to the second (seen-unseen)').to.equal(true);
    expect(checkEpisode(two([0, 20_000], [6_100, 9_000])).ok, 'a 13.9 s overlap, the largest of our data sets').to.equal(true);
    expect(checkEpisode(two([0, 3_000], [3_000, 6_000])).ok).to.equal(true);
  });
});
