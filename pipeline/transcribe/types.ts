// The shapes the transcription client takes and returns.
import type { Logger } from '../../core/ground/logger.js';
import type { TranscribeServices } from './services.js';

/** How to reach a transcription service speaking OpenAI's `POST /v1/audio/transcriptions`, and the limits to keep. */
export interface TranscribeOptions {
  /** Base URL; the client posts to `<url>/v1/audio/transcriptions` (a URL already ending in that path is used as is). */
  url: string;
  /** `model` field of each request (`whisper-1` for OpenAI; the local service answers with its own model whatever is asked). */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** ISO-639-1 language of the audio when known (a feed's `<language>`); null or absent: the service detects it. */
  language?: string | null;
  /** Largest piece sent in one request; larger audio is cut at silences. */
  maxUploadBytes: number;
  /** Longest one request may take. */
  timeoutMs: number;
  /** Audio longer than this is refused before anything is sent (`too_long`). */
  maxSeconds?: number;
  signal?: AbortSignal;
  log?: Logger;
  /** Several services sharing the pieces (TRANSCRIBE_URL's list, one pool per worker); given, `url` is not used. */
  services?: TranscribeServices;
  /**
   * Where pieces already transcribed are kept (`episodes/<id>.pieces`), so a run stopped part way resumes at the next
   * piece; the caller removes it once the transcript is written. Unset: nothing kept.
   */
  piecesDir?: string;
  /**
   * Held around each read and write of `piecesDir` (the follower passes its channel folder's library lock), so a piece
   * never lands while another writer copies or swaps that folder. Unset: no lock.
   */
  piecesLock?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** A word and its times in milliseconds. */
export interface TimedWord {
  t: string;
  s: number;
  e: number;
}

/** One segment with its words, times in milliseconds. */
export interface TimedSegment {
  startMs: number;
  endMs: number;
  text: string;
  /** Empty when the service timed the segment but not its words. */
  words: TimedWord[];
}

/** A cleaned transcription of one audio file, in sentences where words are timed. */
export interface Transcription {
  /** Language the service detected or was told (ISO-639-1 when it says so), null when it did not say. */
  language: string | null;
  durationMs: number;
  segments: TimedSegment[];
  /** Length of the audio, seconds (from ffprobe). */
  audioSeconds: number;
  /** Wall time the transcription took, seconds. */
  seconds: number;
  /** Pieces the audio was cut into, and how many of them were kept from an earlier run (not sent again); set by transcribeFile. */
  pieces?: number;
  piecesReused?: number;
}

/** A segment as a service answered it, before cleaning (seconds, as in `verbose_json`). */
export interface RawSegment {
  start: number;
  end: number;
  text: string;
  avgLogprob?: number;
  noSpeechProb?: number;
  compressionRatio?: number;
}

/** A word as a service answered it, before cleaning (seconds). */
export interface RawWord {
  word: string;
  start: number;
  end: number;
}

/** One answer normalised to a single shape, whatever the service (OpenAI's top-level words, whisper.cpp's nested tokens). */
export interface RawTranscript {
  language: string | null;
  /** Seconds, when the service said. */
  duration: number | undefined;
  segments: RawSegment[];
  words: RawWord[];
}
