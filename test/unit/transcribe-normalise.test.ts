import { expect } from 'chai';
import { TranscribeError, describeTranscribeError } from '../../pipeline/transcribe/errors.js';
import { languageCode, mergeTokenWords, normaliseAnswer } from '../../pipeline/transcribe/normalise.js';
import { openAiEndpoint } from '../../core/ground/openai-protocol.js';

/** OpenAI's verbose_json with both granularities: words at the top level, seconds. */
const openAi = {
  task: 'transcribe',
  language: 'english',
  duration: 4.5,
  text: 'Bread needs time. It rises.',
  segments: [
    { id: 0, seek: 0, start: 0.5, end: 2.1, text: ' Bread needs time.', tokens: [1], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.9, no_speech_prob: 0.01 },
    { id: 1, seek: 0, start: 2.6, end: 3.9, text: ' It rises.', tokens: [2], temperature: 0, avg_logprob: -0.3, compression_ratio: 0.8, no_speech_prob: 0.02 },
  ],
  words: [
    { word: 'Bread', start: 0.5, end: 0.9 },
    { word: 'needs', start: 0.9, end: 1.3 },
    { word: 'time', start: 1.3, end: 2.1 },
    { word: 'It', start: 2.6, end: 2.8 },
    { word: 'rises', start: 2.8, end: 3.9 },
  ],
};

/** whisper.cpp's server: token-level words nested in each segment, special tokens included, no top-level words. */
const whisperCpp = {
  task: 'transcribe',
  language: 'english',
  duration: 3,
  text: ' Hello world, again.',
  segments: [
    {
      id: 0,
      text: ' Hello world, again.',
      start: 0,
      end: 2.4,
      avg_logprob: -0.25,
      no_speech_prob: 0.01,
      words: [
        { word: '[_BEG_]', start: 0, end: 0, probability: 1 },
        { word: ' Hello', start: 0.1, end: 0.5, t_dtw: -1, probability: 0.9 },
        { word: ' wor', start: 0.6, end: 0.8, t_dtw: -1, probability: 0.9 },
        { word: 'ld', start: 0.8, end: 1.0, t_dtw: -1, probability: 0.9 },
        { word: ',', start: 1.0, end: 1.05, t_dtw: -1, probability: 0.9 },
        { word: ' again', start: 1.3, end: 1.9, t_dtw: -1, probability: 0.9 },
        { word: '.', start: 1.9, end: 2.0, t_dtw: -1, probability: 0.9 },
        { word: '[_TT_120]', start: 2.4, end: 2.4, probability: 1 },
      ],
    },
  ],
};

describe('normalising transcription answers', function () {
  it('reads OpenAI verbose_json: top-level words, segments with their quality figures, the language as a code', function () {
    const raw = normaliseAnswer(openAi);
    expect(raw.language).to.equal('en');
    expect(raw.duration).to.equal(4.5);
    expect(raw.words.map((w) => w.word)).to.deep.equal(['Bread', 'needs', 'time', 'It', 'rises']);
    expect(raw.segments[0]).to.deep.equal({ start: 0.5, end: 2.1, text: ' Bread needs time.', avgLogprob: -0.2, noSpeechProb: 0.01, compressionRatio: 0.9 });
  });

  it("merges whisper.cpp's nested token words into words and drops its special tokens", function () {
    const raw = normaliseAnswer(whisperCpp);
    expect(raw.words).to.deep.equal([
      { word: ' Hello', start: 0.1, end: 0.5 },
      { word: ' world,', start: 0.6, end: 1.05 },
      { word: ' again.', start: 1.3, end: 2.0 },
    ]);
    expect(raw.segments[0]!.compressionRatio).to.equal(undefined);
  });

  it('accepts timed segments without words (faster-whisper-server, Groq, LocalAI words: null) and invents no word times', function () {
    for (const answer of [
      { ...openAi, words: undefined },
      { ...openAi, words: null },
      { ...openAi, words: [] },
    ]) {
      const raw = normaliseAnswer(answer);
      expect(raw.segments.map((s) => [s.start, s.end, s.text])).to.deep.equal([
        [0.5, 2.1, ' Bread needs time.'],
        [2.6, 3.9, ' It rises.'],
      ]);
      expect(raw.words).to.deep.equal([]);
    }
  });

  it('refuses a text-only answer with no_timings, naming the cause and what to choose instead', function () {
    for (const answer of [{ text: 'hello there' }, { text: 'hello there', segments: [{ text: 'hello there' }] }]) {
      let err: unknown;
      try {
        normaliseAnswer(answer);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(TranscribeError);
      expect((err as TranscribeError).code).to.equal('no_timings');
      expect((err as TranscribeError).transient).to.equal(false);
      expect(describeTranscribeError(err as TranscribeError)).to.equal(
        'the transcription service answered text without timings: choose a model or response format that returns timed segments (verbose_json)',
      );
    }
  });

  it('makes one segment of timed words that came without segments', function () {
    const raw = normaliseAnswer({ text: 'Bread needs time. It rises.', words: openAi.words });
    expect(raw.segments).to.deep.equal([{ start: 0.5, end: 3.9, text: 'Bread needs time. It rises.' }]);
    expect(raw.words).to.have.length(5);
  });

  it('accepts silence: no speech and no words is an empty transcript, not an error', function () {
    const raw = normaliseAnswer({ text: '', language: 'en', duration: 3, segments: [], words: [] });
    expect(raw.segments).to.deep.equal([]);
    expect(raw.words).to.deep.equal([]);
  });

  it('refuses an answer that is not a transcription as bad_answer', function () {
    for (const answer of [null, 'text', [1], { hello: 1 }]) {
      expect(() => normaliseAnswer(answer))
        .to.throw(TranscribeError)
        .with.property('code', 'bad_answer');
    }
  });

  it('keeps token merging to words that start with a space', function () {
    expect(
      mergeTokenWords([
        { word: 'Hi', start: 0, end: 0.2 },
        { word: '!', start: 0.2, end: 0.3 },
        { word: ' <|endoftext|>', start: 1, end: 1 },
      ]),
    ).to.deep.equal([{ word: 'Hi!', start: 0, end: 0.3 }]);
  });

  it('maps Whisper language names to codes and passes codes through', function () {
    expect(languageCode('English')).to.equal('en');
    expect(languageCode('de')).to.equal('de');
    expect(languageCode('')).to.equal(null);
    expect(languageCode(undefined)).to.equal(null);
  });
});

describe('transcription requests', function () {
  it('posts to /v1/audio/transcriptions under the base URL, or to the URL that already names it', function () {
    expect(openAiEndpoint('http://127.0.0.1:8910', 'audio/transcriptions')).to.equal('http://127.0.0.1:8910/v1/audio/transcriptions');
    expect(openAiEndpoint('https://api.example.com/openai/v1/audio/transcriptions', 'audio/transcriptions')).to.equal('https://api.example.com/openai/v1/audio/transcriptions');
  });

  it('tells a creator what happened in a sentence, by status', function () {
    expect(describeTranscribeError(new TranscribeError('http_status', 'x', { status: 429 }))).to.match(/busy/);
    expect(describeTranscribeError(new TranscribeError('http_status', 'x', { status: 401 }))).to.match(/credentials/);
    expect(describeTranscribeError(new TranscribeError('too_long'))).to.equal('the audio is longer than this service transcribes');
  });
});
