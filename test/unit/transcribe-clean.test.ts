import { expect } from 'chai';
import { cleanTranscript, cleanWords, failsThresholds } from '../../pipeline/transcribe/clean.js';
import { maxPieceSeconds, parseSilences, planCuts } from '../../pipeline/transcribe/audio.js';
import { offsetTranscript, transcriptRecord } from '../../pipeline/transcribe/transcribe.js';
import type { RawSegment, RawWord } from '../../pipeline/transcribe/types.js';

const seg = (start: number, end: number, text: string, extra: Partial<RawSegment> = {}): RawSegment => ({
  start,
  end,
  text,
  avgLogprob: -0.3,
  noSpeechProb: 0.01,
  compressionRatio: 1,
  ...extra,
});
const w = (word: string, start: number, end: number): RawWord => ({ word, start, end });

describe('cleaning word times', function () {
  it('clamps times to [0, duration] and keeps each start at or before its end', function () {
    const words = cleanWords([w(' a', -0.5, 0.2), w(' b', 0.9, 0.4), w(' c', 9.5, 12)], 10_000);
    expect(words).to.deep.equal([
      { t: 'a', s: 0, e: 200 },
      { t: 'b', s: 900, e: 900 },
      { t: 'c', s: 9500, e: 10_000 },
    ]);
  });

  it('makes starts monotonic', function () {
    const words = cleanWords([w('a', 1, 1.2), w('b', 0.8, 1.4), w('c', 1.5, 1.6)], 10_000);
    expect(words.map((x) => x.s)).to.deep.equal([1000, 1000, 1500]);
  });

  it('caps a word that swallowed a silence: the first word of a segment keeps its end, a later one its start', function () {
    const words = cleanWords([w('after', 2, 9), w('pause', 9.1, 9.4), w('trailing', 9.5, 15)], 20_000);
    expect(words).to.deep.equal([
      { t: 'after', s: 7000, e: 9000 },
      { t: 'pause', s: 9100, e: 9400 },
      { t: 'trailing', s: 9500, e: 11_500 },
    ]);
  });

  it("drops segments that fail Whisper's thresholds, with their words", function () {
    expect(failsThresholds(seg(0, 1, 'x', { compressionRatio: 2.5 }))).to.equal(true);
    expect(failsThresholds(seg(0, 1, 'x', { avgLogprob: -1.2, noSpeechProb: 0.7 }))).to.equal(true);
    expect(failsThresholds(seg(0, 1, 'x', { avgLogprob: -1.2, noSpeechProb: 0.3 }))).to.equal(false);
    const out = cleanTranscript(
      {
        segments: [seg(0, 1, ' Good.'), seg(1, 2, ' la la la la la la', { compressionRatio: 3.1 }), seg(2, 3, ' Also good.')],
        words: [w(' Good.', 0, 0.8), w(' la', 1.1, 1.2), w(' la', 1.3, 1.4), w(' Also', 2.1, 2.4), w(' good.', 2.4, 2.9)],
      },
      5000,
    );
    expect(out.map((s) => s.text)).to.deep.equal(['Good.', 'Also good.']);
    expect(out.flatMap((s) => s.words.map((x) => x.t))).to.deep.equal(['Good.', 'Also', 'good.']);
  });

  it('collapses repeated identical consecutive segments into the first', function () {
    const out = cleanTranscript(
      {
        segments: [seg(0, 1, ' Thank you.'), seg(1, 2, ' thank you. '), seg(2, 3, ' Thank you.'), seg(3, 4, ' Bye.')],
        words: [w('Thank', 0, 0.4), w('you.', 0.4, 0.9), w('thank', 1, 1.4), w('you.', 1.4, 1.9), w('Thank', 2, 2.4), w('you.', 2.4, 2.9), w('Bye.', 3, 3.5)],
      },
      5000,
    );
    expect(out.map((s) => s.text)).to.deep.equal(['Thank you.', 'Bye.']);
    expect(out[0]!.words).to.have.length(2);
  });

  it('groups top-level words under the segments that hold them, and spans each segment over its words', function () {
    const out = cleanTranscript({ segments: [seg(0, 2.2, ' One two.'), seg(2.5, 4, ' Three.')], words: [w(' One', 0.3, 0.7), w(' two.', 0.7, 1.9), w(' Three.', 2.6, 3.2)] }, 4000);
    expect(out).to.deep.equal([
      {
        startMs: 300,
        endMs: 1900,
        text: 'One two.',
        words: [
          { t: 'One', s: 300, e: 700 },
          { t: 'two.', s: 700, e: 1900 },
        ],
      },
      { startMs: 2600, endMs: 3200, text: 'Three.', words: [{ t: 'Three.', s: 2600, e: 3200 }] },
    ]);
  });

  it('keeps segments and words in time order even when the service answered them out of order', function () {
    const out = cleanTranscript({ segments: [seg(2, 3, ' Later.'), seg(0, 1, ' First.')], words: [w('Later.', 2, 2.5), w('First.', 0, 0.5)] }, 4000);
    expect(out.map((s) => s.startMs)).to.deep.equal([0, 2000]);
  });

  it('writes the library transcript: format 1, source word times, speaker unknown', function () {
    const record = transcriptRecord({
      language: 'en',
      durationMs: 4000,
      audioSeconds: 4,
      seconds: 1,
      segments: [{ startMs: 0, endMs: 500, text: 'Hi.', words: [{ t: 'Hi.', s: 0, e: 500 }] }],
    });
    expect(record).to.deep.equal({
      formatVersion: 1,
      wordTimings: 'source',
      segments: [{ speakerLabel: null, startMs: 0, endMs: 500, text: 'Hi.', words: [{ t: 'Hi.', s: 0, e: 500 }] }],
    });
  });
});

describe('cutting long audio for upload', function () {
  it('reads silencedetect output, an unfinished silence running to the end', function () {
    const stderr = '[silencedetect @ 0x1] silence_start: 4.5\n[silencedetect @ 0x1] silence_end: 5.5 | silence_duration: 1\n[silencedetect @ 0x1] silence_start: 11.9\n';
    expect(parseSilences(stderr, 13)).to.deep.equal([
      { start: 4.5, end: 5.5 },
      { start: 11.9, end: 13 },
    ]);
  });

  it('cuts in the middle of the last silence that keeps a piece under the limit, hard only where speech never pauses', function () {
    const silences = [
      { start: 4, end: 5 },
      { start: 8, end: 9 },
      { start: 14, end: 15 },
    ];
    expect(planCuts(20, silences, 10)).to.deep.equal([8.5, 14.5]);
    expect(planCuts(25, [], 10)).to.deep.equal([10, 20]);
    expect(planCuts(9, silences, 10)).to.deep.equal([]);
  });

  it('sizes pieces from the upload limit at 32 kbps', function () {
    expect(maxPieceSeconds(24 * 1024 ** 2)).to.equal(5662); // about 94 minutes per OpenAI upload
  });

  it("shifts a piece's times by its offset in the file", function () {
    const shifted = offsetTranscript({ language: 'en', duration: 5, segments: [seg(1, 2, 'x')], words: [w('x', 1, 1.5)] }, 60);
    expect(shifted.segments[0]!.start).to.equal(61);
    expect(shifted.words[0]).to.deep.equal({ word: 'x', start: 61, end: 61.5 });
  });
});
