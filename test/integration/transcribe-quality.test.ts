// Transcription quality on real human speech: five LibriVox readings (reference text and forced-aligned word times) through the local service, held to a word error rate and word-start floor.
import { expect } from 'chai';
import { createLogger } from '../../core/ground/logger.js';
import { transcribeFile } from '../../pipeline/transcribe/transcribe.js';
import { ensureSpeechSamples, SPEECH_SAMPLES } from '../../scripts/ops/provision/speech-samples.js';
import { alignWords, normaliseWords, quantile, readReferenceClip, scoreTranscription, type ReferenceClip } from '../support/word-error.js';

/**
 * The floor, from the figures measured on 2026-11-27 (docs/performance.md, "Quality on real speech"): WER 0.014
 * (1 error in 71 words), word starts median 60 ms and p90 210 ms from the forced alignment. The margins allow about
 * four more word errors and twice the start errors before a change of engine settings, model or client fails here.
 */
const MAX_WER = 0.08;
const MAX_MEDIAN_START_MS = 120;
const MAX_P90_START_MS = 400;

describe('transcription quality on real human speech (LibriVox readings with forced alignments)', function () {
  this.timeout(5 * 60_000);
  let clips: ReferenceClip[];
  let url: string;

  before(async function () {
    const given = process.env.TRANSCRIBE_URL;
    if (!given) throw new Error('TRANSCRIBE_URL is not set: run `npm run services -- up` (or npm test, which provisions it)');
    url = given;
    const dir = await ensureSpeechSamples({ log: createLogger({ name: 'speech-samples', fd: 2, level: 'warn' }) });
    clips = SPEECH_SAMPLES.clips.map((id) => readReferenceClip(dir, id));
  });

  it('transcribes the readings within the word error rate and word-start floor', async function () {
    let words = 0;
    let errors = 0;
    const starts: number[] = [];
    for (const clip of clips) {
      const t = await transcribeFile(clip.wav, { url, model: 'base', maxUploadBytes: 24 * 1024 ** 2, timeoutMs: 2 * 60_000 });
      expect(t.language, clip.id).to.equal('en');
      const score = scoreTranscription(
        clip.words,
        t.segments.flatMap((s) => s.words),
      );
      words += score.referenceWords;
      errors += score.errors;
      starts.push(...score.startErrorsMs);
    }
    const figures = { words, errors, wer: errors / words, timedMatches: starts.length, medianStartMs: quantile(starts, 0.5), p90StartMs: quantile(starts, 0.9) };
    expect(words, 'reference words').to.equal(71);
    expect(figures.wer, JSON.stringify(figures)).to.be.at.most(MAX_WER);
    // Start errors are measured over the words both have; most of them must be there to measure.
    expect(starts.length, JSON.stringify(figures)).to.be.at.least(0.85 * words);
    expect(figures.medianStartMs, JSON.stringify(figures)).to.be.at.most(MAX_MEDIAN_START_MS);
    expect(figures.p90StartMs, JSON.stringify(figures)).to.be.at.most(MAX_P90_START_MS);
  });
});

describe('scoring a transcription against a reference', function () {
  it('compares normalised words: case, punctuation, hyphens, small numbers and Mr spelled out', function () {
    expect(normaliseWords('And Mr. Dashwood, ill-disposed — at 21 or 100?')).to.deep.equal([
      'and',
      'mister',
      'dashwood',
      'ill',
      'disposed',
      'at',
      'twenty',
      'one',
      'or',
      'one',
      'hundred',
    ]);
    expect(normaliseWords('‘Don’t,’ she said')).to.deep.equal(["don't", 'she', 'said']);
  });

  it('counts a substitution, a deletion and an insertion once each, and matches the rest in order', function () {
    const a = alignWords(['the', 'cat', 'sat', 'on', 'the', 'mat'], ['the', 'hat', 'sat', 'the', 'mat', 'today']);
    expect({ s: a.substitutions, d: a.deletions, i: a.insertions }).to.deep.equal({ s: 1, d: 1, i: 1 });
    expect(a.matches).to.deep.equal([
      [0, 0],
      [2, 2],
      [4, 3],
      [5, 4],
    ]);
  });

  it('measures start errors over matching words only, a split word timed at its first part', function () {
    const reference = [
      { t: 'ill', startMs: 1000, endMs: 1200 },
      { t: 'disposed', startMs: 1200, endMs: 1800 },
      { t: 'man', startMs: 2000, endMs: 2400 },
    ];
    const score = scoreTranscription(reference, [
      { t: 'ill-disposed', s: 1050 },
      { t: 'men.', s: 2000 },
    ]);
    expect(score).to.deep.equal({ referenceWords: 3, errors: 1, wer: 1 / 3, startErrorsMs: [50] });
  });
});
