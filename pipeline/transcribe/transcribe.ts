// The transcription client: an audio file to a cleaned, word-timed transcript through any OpenAI-compatible service (the local one included).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TranscriptRecord } from '../../core/contract/library-format.js';
import { checkPieceSize, decodeChecked, planPieces, writePiece } from './audio.js';
import { cleanTranscript } from './clean.js';
import { normaliseAnswer } from './normalise.js';
import { openPieces, piecesKey, sha256OfFile } from './pieces.js';
import { uploadAudio } from './request.js';
import { sentenceSegments } from './sentences.js';
import { singleService } from './services.js';
import type { RawTranscript, TranscribeOptions, Transcription } from './types.js';

export { TranscribeError, describeTranscribeError, TRANSCRIBE_ERRORS, type TranscribeErrorCode } from './errors.js';
export type { TimedSegment, TimedWord, TranscribeOptions, Transcription } from './types.js';
export { servicesFor, TranscribeServices } from './services.js';
export { piecesDirOf, removePieces } from './pieces.js';

/** Whisper reads only the last 224 tokens of a prompt: about this many characters of the previous piece. */
const PROMPT_CHARS = 600;

/** Shifts a piece's answer onto the whole file's timeline. */
export function offsetTranscript(raw: RawTranscript, offsetSeconds: number): RawTranscript {
  if (offsetSeconds === 0) return raw;
  return {
    ...raw,
    segments: raw.segments.map((s) => ({ ...s, start: s.start + offsetSeconds, end: s.end + offsetSeconds })),
    words: raw.words.map((w) => ({ ...w, start: w.start + offsetSeconds, end: w.end + offsetSeconds })),
  };
}

/**
 * Transcribes an audio file: checks its container (accepted demuxers, local file only), decodes it to measure its
 * real length (more than maxSeconds is `too_long`, whatever the container claims), cuts it at silences (ffmpeg
 * silencedetect) into 16 kHz mono MP3 pieces no larger than maxUploadBytes and offsets each piece's times, sends each
 * as multipart with response_format=verbose_json and timestamp_granularities[]=word and segment, normalises the
 * answer (top-level words, or whisper.cpp's nested token words merged into words), cleans the times and re-cuts the
 * worded segments into sentences. Timed segments without words are kept as the service timed them (no words: word
 * times are never invented); text without timings → TranscribeError 'no_timings'.
 *
 * Pieces go one after another (each is prompted with the previous one's text, so the transcript does not depend on
 * how many services there are), each to the least busy of `services`. With `piecesDir`, each answer is saved there as
 * it arrives, keyed by the audio's sha256, the model, the language and the cut plan; a later run of the same audio
 * sends only the pieces not saved yet.
 */
export async function transcribeFile(audioPath: string, opts: TranscribeOptions): Promise<Transcription> {
  const { url, model, apiKey, language, maxUploadBytes, timeoutMs, maxSeconds, signal, log, piecesDir, piecesLock } = opts;
  const services = opts.services ?? singleService(url);
  const started = performance.now();
  const workDir = await mkdtemp(path.join(tmpdir(), 'cca-transcribe-'));
  try {
    const decoded = await decodeChecked(audioPath, { maxSeconds, workDir, signal });
    const plan = planPieces(decoded, maxUploadBytes);
    const store = piecesDir
      ? await openPieces(piecesDir, { key: piecesKey({ audioSha256: await sha256OfFile(audioPath), model, language, plan }), count: plan.length, lock: piecesLock })
      : undefined;
    const reused = store?.done.filter(Boolean).length ?? 0;
    if (reused > 0) log?.info({ pieces: plan.length, reused, audioSeconds: decoded.seconds }, 'resuming: pieces transcribed before are not sent again');
    else log?.debug({ pieces: plan.length, audioSeconds: decoded.seconds }, 'transcribing');
    const parts: RawTranscript[] = [];
    let detected: string | null = null;
    for (const [i, planned] of plan.entries()) {
      let raw = store?.done[i];
      if (!raw) {
        const prompt = parts.length ? tailText(parts.at(-1)!) : undefined;
        const piece = await writePiece(decoded, planned, i, { maxUploadBytes, workDir, signal });
        await checkPieceSize(piece, maxUploadBytes);
        const answer = await services.run((service) => uploadAudio(piece.path, { url: service, model, apiKey, language, prompt, timeoutMs, signal }), { signal });
        raw = normaliseAnswer(answer);
        await store?.save(i, planned, raw);
        await rm(piece.path, { force: true });
        log?.debug({ piece: i + 1, of: plan.length, offsetSeconds: planned.offsetSeconds }, 'piece transcribed');
      }
      detected ??= raw.language;
      parts.push(offsetTranscript(raw, planned.offsetSeconds));
    }
    const durationMs = Math.round(decoded.seconds * 1000);
    const cleaned = cleanTranscript({ segments: parts.flatMap((p) => p.segments), words: parts.flatMap((p) => p.words) }, durationMs);
    const segments = sentenceSegments(cleaned);
    const seconds = (performance.now() - started) / 1000;
    return { language: language ?? detected, durationMs, segments, audioSeconds: decoded.seconds, seconds, pieces: plan.length, piecesReused: reused };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function tailText(raw: RawTranscript): string | undefined {
  const text = raw.segments.map((s) => s.text.trim()).join(' ');
  return text ? text.slice(-PROMPT_CHARS) : undefined;
}

/**
 * The library's TranscriptDocument (format version 1, speakerLabel null, wordTimings 'source'). A segment the service
 * timed without words has no `words` and is marked `wordsInterpolated`, so its citations start at the segment: without
 * the mark the indexer would share the segment's time out over its sentences by length, an estimate nobody asked for.
 */
export function transcriptRecord(t: Transcription): TranscriptRecord {
  return {
    formatVersion: 1,
    wordTimings: 'source',
    segments: t.segments.map((s) => ({
      speakerLabel: null,
      startMs: s.startMs,
      endMs: s.endMs,
      text: s.text,
      ...(s.words.length ? { words: s.words.map((w) => ({ ...w })) } : { wordsInterpolated: true }),
    })),
  };
}
