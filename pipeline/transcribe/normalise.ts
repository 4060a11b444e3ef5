// One shape for every service's answer: OpenAI's `verbose_json` (top-level words) and whisper.cpp's (token words nested in segments).
import { TranscribeError } from './errors.js';
import type { RawSegment, RawTranscript, RawWord } from './types.js';

/** Whisper's language names (OpenAI answers `english`, not `en`) for the languages it knows best; others pass through. */
const LANGUAGE_CODES: Readonly<Record<string, string>> = {
  english: 'en', chinese: 'zh', german: 'de', spanish: 'es', russian: 'ru', korean: 'ko', french: 'fr', japanese: 'ja',
  portuguese: 'pt', turkish: 'tr', polish: 'pl', catalan: 'ca', dutch: 'nl', arabic: 'ar', swedish: 'sv', italian: 'it',
  indonesian: 'id', hindi: 'hi', finnish: 'fi', vietnamese: 'vi', hebrew: 'he', ukrainian: 'uk', greek: 'el', malay: 'ms',
  czech: 'cs', romanian: 'ro', danish: 'da', hungarian: 'hu', tamil: 'ta', norwegian: 'no', thai: 'th', urdu: 'ur',
  croatian: 'hr', bulgarian: 'bg', lithuanian: 'lt', latin: 'la', welsh: 'cy', slovak: 'sk', persian: 'fa', latvian: 'lv',
  bengali: 'bn', serbian: 'sr', slovenian: 'sl', estonian: 'et', icelandic: 'is', irish: 'ga', afrikaans: 'af', filipino: 'tl',
}; // prettier-ignore

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `en`, or a Whisper language name mapped to its code; null when the service did not say. */
export function languageCode(value: unknown): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  const lower = value.trim().toLowerCase();
  return LANGUAGE_CODES[lower] ?? lower;
}

function rawWord(v: unknown): RawWord | undefined {
  if (!isObject(v) || typeof v.word !== 'string') return undefined;
  const start = num(v.start);
  const end = num(v.end);
  return start === undefined || end === undefined ? undefined : { word: v.word, start, end };
}

function rawSegment(v: unknown): RawSegment | undefined {
  if (!isObject(v)) return undefined;
  const start = num(v.start);
  const end = num(v.end);
  if (start === undefined || end === undefined) return undefined;
  const segment: RawSegment = { start, end, text: typeof v.text === 'string' ? v.text : '' };
  const avgLogprob = num(v.avg_logprob);
  const noSpeechProb = num(v.no_speech_prob);
  const compressionRatio = num(v.compression_ratio);
  if (avgLogprob !== undefined) segment.avgLogprob = avgLogprob;
  if (noSpeechProb !== undefined) segment.noSpeechProb = noSpeechProb;
  if (compressionRatio !== undefined) segment.compressionRatio = compressionRatio;
  return segment;
}

/** whisper.cpp's special tokens (`[_BEG_]`, `[_TT_150]`, `<|endoftext|>`) are not words. */
const SPECIAL_TOKEN = /^\s*(\[_[A-Z]+_?\d*\]|<\|[^|]*\|>)\s*$/;

/**
 * Merges whisper.cpp's token-level words into words: a token that starts with a space (or is
 * the first) starts a word, any other token (`ld` after ` wor`, a comma) extends the previous one.
 */
export function mergeTokenWords(tokens: RawWord[]): RawWord[] {
  const words: RawWord[] = [];
  for (const token of tokens) {
    if (!token.word || SPECIAL_TOKEN.test(token.word)) continue;
    const last = words.at(-1);
    if (last && !/^\s/.test(token.word)) {
      last.word += token.word;
      last.end = Math.max(last.end, token.end);
    } else {
      words.push({ ...token });
    }
  }
  return words;
}

/**
 * Reads a `verbose_json` answer. Words come from the top-level `words` (OpenAI, the local
 * service) or, failing that, from each segment's nested token words (whisper.cpp), merged.
 * Timed segments without words are accepted (faster-whisper-server, Groq: citations start at the
 * segment; word times are never invented); words without segments make one segment of them.
 * Throws `bad_answer` when it is not a transcription at all, and `no_timings` when the service
 * answered speech as text with neither timed segments nor timed words.
 */
export function normaliseAnswer(body: unknown): RawTranscript {
  if (!isObject(body)) throw new TranscribeError('bad_answer', 'the transcription service answered something other than a JSON object');
  const rawSegments = Array.isArray(body.segments) ? body.segments : [];
  const segments = rawSegments.map(rawSegment).filter((s): s is RawSegment => s !== undefined);
  if (!Array.isArray(body.segments) && typeof body.text !== 'string') {
    throw new TranscribeError('bad_answer', 'the transcription service answered without text or segments');
  }
  let words: RawWord[] = [];
  if (Array.isArray(body.words)) {
    words = body.words.map(rawWord).filter((w): w is RawWord => w !== undefined);
  } else {
    const nested = rawSegments.flatMap((s) => (isObject(s) && Array.isArray(s.words) ? s.words.map(rawWord).filter((w): w is RawWord => w !== undefined) : []));
    words = mergeTokenWords(nested);
  }
  words = words.filter((w) => w.word.trim());
  const text = typeof body.text === 'string' ? body.text : '';
  if (!segments.some((s) => s.text.trim()) && words.length) {
    // Asked for words only, a service answers no segments: one segment spans them (re-cut into sentences later).
    const spanned = text.trim() || words.map((w) => w.word.trim()).join(' ');
    segments.splice(0, segments.length, { start: words[0]!.start, end: Math.max(...words.map((w) => w.end)), text: spanned });
  }
  if (!segments.some((s) => s.text.trim()) && text.trim()) throw new TranscribeError('no_timings');
  return { language: languageCode(body.language), duration: num(body.duration), segments, words };
}
