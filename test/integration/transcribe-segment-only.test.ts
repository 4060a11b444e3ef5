// Services that time segments but not words (faster-whisper-server 0.0.3, Groq) and services that answer text only, through transcribeFile on real speech.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { buildPassages } from '../../core/passages/passages.js';
import { TranscriptDocument } from '../../core/contract/library-format.js';
import { TranscribeError, transcribeFile, transcriptRecord, type TranscribeOptions } from '../../pipeline/transcribe/transcribe.js';
import { speak, type SpokenSentence } from '../../scripts/lib/fakes/speech.js';
import { skipBecause } from '../support/skip.js';
import { startCountingRelay } from '../../scripts/lib/fakes/feed-server.js';

const SENTENCES = [
  'Yesterday we baked sourdough bread in the village oven.',
  'Fresh flour and clean water make the starter strong.',
  'Every morning the baker folds the dough twice.',
];

/**
 * faster-whisper-server 0.0.3's verbose_json for the spoken file, shaped as it answered it (its `transcriptions` builds the
 * segments from faster-whisper's and never adds words; it ran the last two sentences into one segment): times from where
 * the sentences were spoken.
 */
function segmentOnlyAnswer(spoken: SpokenSentence[]) {
  const [first, second, third] = spoken as [SpokenSentence, SpokenSentence, SpokenSentence];
  const timed = [
    { start: first.startMs, end: first.endMs, text: ` ${first.text}` },
    { start: second.startMs, end: third.endMs, text: ` ${second.text} ${third.text}` },
  ];
  return {
    task: 'transcribe',
    language: 'en',
    duration: third.endMs / 1000 + 1,
    text: timed.map((s) => s.text).join(''),
    segments: timed.map((s, id) => ({
      id,
      seek: 0,
      start: s.start / 1000,
      end: s.end / 1000,
      text: s.text,
      tokens: [50364, 1],
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 1.1,
      no_speech_prob: 0.01,
    })),
  };
}

describe('transcribing through a service that times segments but not words', function () {
  this.timeout(60_000);
  let dir: string;
  let audio: string;
  let spoken: SpokenSentence[];
  let server: http.Server;
  let url: string;
  let answer: () => unknown;
  let requests = 0;

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'cca-transcribe-segment-only-'));
    audio = path.join(dir, 'speech.mp3');
    spoken = await speak(SENTENCES, audio);
    // An OpenAI-compatible server of our own on loopback: it reads the whole upload, then answers a fixed body.
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        const ok = req.method === 'POST' && req.url === '/v1/audio/transcriptions';
        res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? answer() : { error: { message: 'not found' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async function () {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const opts = (): TranscribeOptions => ({ url, model: 'whisper-1', maxUploadBytes: 24 * 1024 ** 2, timeoutMs: 10_000 });

  it('keeps each timed segment as timed, writes no word times it was not given, and cites only at segment starts', async function () {
    answer = () => segmentOnlyAnswer(spoken);
    const before = requests;
    const t = await transcribeFile(audio, opts());
    expect(requests - before).to.equal(1);
    expect(t.language).to.equal('en');
    const [first, second, third] = spoken as [SpokenSentence, SpokenSentence, SpokenSentence];
    expect(t.segments.map((s) => ({ startMs: s.startMs, endMs: s.endMs, text: s.text, words: s.words.length }))).to.deep.equal([
      { startMs: first.startMs, endMs: first.endMs, text: first.text, words: 0 },
      { startMs: second.startMs, endMs: third.endMs, text: `${second.text} ${third.text}`, words: 0 },
    ]);
    const record = transcriptRecord(t);
    const valid = new Ajv({ strict: false }).compile(TranscriptDocument);
    expect(valid(record), JSON.stringify(valid.errors)).to.equal(true);
    for (const segment of record.segments) {
      expect(segment).to.not.have.property('words');
      expect(segment.wordsInterpolated).to.equal(true); // cite at the segment: no time inside it is known
    }
    // The indexer's citation marks: the two segment starts, no estimate for the third sentence inside the second segment.
    const passages = buildPassages({ id: 'ep_segment_only', transcript: record, chapters: [] });
    const times = passages.flatMap((p) => p.marks.filter((_, i) => i % 2 === 1)); // flat [charOffset, ms, …]
    expect(times).to.deep.equal([first.startMs, second.startMs]);
  });

  it('refuses a text-only answer (no timed segments, no words) with no_timings, saying what to choose instead', async function () {
    answer = () => ({ text: SENTENCES.join(' ') });
    const err = await transcribeFile(audio, opts()).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'no_timings');
    expect((err as TranscribeError).transient).to.equal(false);
    expect((err as Error).message).to.equal(
      'the transcription service answered text without timings: choose a model or response format that returns timed segments (verbose_json)',
    );
  });

  it('re-cuts timed words that came without segments into sentences', async function () {
    // Asked for word timestamps only, OpenAI answers words and no segments; here each sentence's words share its time evenly.
    answer = () => {
      const words = spoken.flatMap((s) => {
        const list = s.text.replace(/[.,]/g, '').split(' ');
        const step = (s.endMs - s.startMs) / list.length / 1000;
        return list.map((word, i) => ({ word, start: s.startMs / 1000 + i * step, end: s.startMs / 1000 + (i + 1) * step }));
      });
      return { task: 'transcribe', language: 'english', duration: 8, text: SENTENCES.join(' '), words };
    };
    const t = await transcribeFile(audio, opts());
    expect(t.segments.map((s) => s.text)).to.deep.equal(SENTENCES);
    expect(t.segments.map((s) => s.startMs)).to.deep.equal(spoken.map((s) => s.startMs));
  });
});

/** A word-timing service's answer as a segment-only one gives it: `words` left out, at the top level and per segment. */
function withoutWords(answer: Record<string, unknown>): Record<string, unknown> {
  const { words: _words, segments, ...rest } = answer as { words?: unknown; segments?: Record<string, unknown>[] };
  return { ...rest, ...(segments ? { segments: segments.map(({ words: _w, ...segment }) => segment) } : {}) };
}

describe('transcribing through a service that times segments but not words, on real speech', function () {
  this.timeout(5 * 60_000);
  // A faster-whisper-server given the same Whisper base files when one is named; otherwise the provisioned
  // transcription service behind a relay that withholds its word times (what `npm test` runs).
  const given = process.env.SEGMENT_ONLY_TRANSCRIBE_URL;
  const provisioned = process.env.TRANSCRIBE_URL?.split(',')[0]?.trim();

  it('transcribes real speech into timed segments without words, each starting within a second of a sentence', async function () {
    if (!given && !provisioned) skipBecause(this, 'neither SEGMENT_ONLY_TRANSCRIBE_URL nor TRANSCRIBE_URL is set (npm test provisions the transcription service)');
    const relay = given ? undefined : await startCountingRelay(provisioned!, { rewriteAudioAnswer: withoutWords });
    const dir = await mkdtemp(path.join(tmpdir(), 'cca-transcribe-fws-'));
    try {
      const audio = path.join(dir, 'speech.mp3');
      const spoken = await speak(SENTENCES, audio);
      const url = given ?? relay!.url;
      const t = await transcribeFile(audio, { url, model: given ? 'whisper-1' : 'base', maxUploadBytes: 24 * 1024 ** 2, timeoutMs: 4 * 60_000 });
      expect(t.segments).to.have.length.of.at.least(2);
      expect(t.segments.every((s) => s.words.length === 0)).to.equal(true);
      // Each segment starts within a second of a spoken sentence's start.
      for (const segment of t.segments) {
        const nearest = Math.min(...spoken.map((s) => Math.abs(s.startMs - segment.startMs)));
        expect(nearest, segment.text).to.be.at.most(1000);
      }
    } finally {
      await relay?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
