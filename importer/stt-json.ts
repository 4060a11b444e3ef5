// JSON transcripts, told apart by their shape (never by extension or MIME type): openai-whisper and WhisperX
// (`segments[].words[]`, seconds), whisper.cpp `-oj` (`transcription[].offsets`, ms), Podcast Index JSON
// (`segments[]` of speaker, startTime, endTime, body, seconds; often one word a segment).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { WordRecord } from '../core/contract/library-format.js';
import { cleanText, ms, spreadWords, type DraftSegment, type DraftTranscript } from './text.js';

const Seconds = Type.Number({ minimum: 0 });

const WhisperWord = Type.Object({
  word: Type.String(),
  start: Type.Optional(Seconds),
  end: Type.Optional(Seconds),
  probability: Type.Optional(Type.Number()),
  score: Type.Optional(Type.Number()),
  speaker: Type.Optional(Type.String()),
});
/** openai-whisper (`word_timestamps=True`) and WhisperX: seconds; WhisperX adds `speaker` and `score`, and may leave number words untimed. */
export const WhisperJson = Type.Object({
  segments: Type.Array(Type.Object({ start: Seconds, end: Seconds, text: Type.String(), speaker: Type.Optional(Type.String()), words: Type.Optional(Type.Array(WhisperWord)) })),
});

/** whisper.cpp `-oj`: `offsets` in ms. */
export const WhisperCppJson = Type.Object({
  transcription: Type.Array(Type.Object({ offsets: Type.Object({ from: Type.Number({ minimum: 0 }), to: Type.Number({ minimum: 0 }) }), text: Type.String() })),
});

/** Podcast Index JSON transcript (Podcasting 2.0): seconds. */
export const PodcastIndexJson = Type.Object({
  segments: Type.Array(Type.Object({ startTime: Seconds, endTime: Seconds, body: Type.String(), speaker: Type.Optional(Type.String()) })),
});

/** JSON Chapters 1.2. */
export const ChaptersJson = Type.Object({
  chapters: Type.Array(Type.Object({ startTime: Seconds, title: Type.Optional(Type.String()), endTime: Type.Optional(Seconds), toc: Type.Optional(Type.Boolean()) })),
});
export type ChaptersJsonRecord = Static<typeof ChaptersJson>;

const is = <T extends TSchema>(schema: T, value: unknown): value is Static<T> => Value.Check(schema, value);

/** Which JSON this is, by its shape; undefined when none fits. */
export function jsonKind(value: unknown): 'whisper' | 'whisper.cpp' | 'podcast-index' | 'chapters' | undefined {
  if (is(ChaptersJson, value)) return 'chapters';
  if (is(WhisperCppJson, value)) return 'whisper.cpp';
  if (is(PodcastIndexJson, value)) return 'podcast-index';
  if (is(WhisperJson, value)) return 'whisper';
  return undefined;
}

/** Whisper words with times where the source gives them; untimed ones (WhisperX numbers) spread between their neighbours. */
function whisperWords(words: Static<typeof WhisperWord>[], startMs: number, endMs: number): { words: WordRecord[]; interpolated: boolean } {
  const out: WordRecord[] = [];
  let interpolated = false;
  for (let i = 0; i < words.length;) {
    const w = words[i]!;
    const t = cleanText(w.word);
    if (w.start !== undefined && w.end !== undefined) {
      if (t) out.push({ t, s: ms(w.start), e: Math.max(ms(w.start), ms(w.end)) });
      i++;
      continue;
    }
    // A run of untimed words, spread from the end of the word before to the start of the word after.
    let j = i;
    while (j < words.length && (words[j]!.start === undefined || words[j]!.end === undefined)) j++;
    const from = out.at(-1)?.e ?? startMs;
    const to = j < words.length ? ms(words[j]!.start!) : endMs;
    out.push(
      ...spreadWords(
        cleanText(
          words
            .slice(i, j)
            .map((x) => x.word)
            .join(' '),
        ),
        from,
        Math.max(from, to),
      ),
    );
    interpolated = true;
    i = j;
  }
  return { words: out, interpolated };
}

function fromWhisper(json: Static<typeof WhisperJson>): DraftTranscript {
  const segments: DraftSegment[] = json.segments.map((seg) => {
    const startMs = ms(seg.start);
    const endMs = Math.max(startMs, ms(seg.end));
    const text = cleanText(seg.text);
    const speaker = seg.speaker ?? seg.words?.find((w) => w.speaker)?.speaker ?? null;
    if (!seg.words || seg.words.length === 0) return { speaker, startMs, endMs, text, words: spreadWords(text, startMs, endMs), interpolated: true };
    const { words, interpolated } = whisperWords(seg.words, startMs, endMs);
    return { speaker, startMs, endMs, text, words, interpolated };
  });
  // Source timing when the file timed any word itself; its segments with gaps say so one by one.
  const timed = json.segments.some((seg) => seg.words?.some((w) => w.start !== undefined && w.end !== undefined));
  return { segments, timing: timed ? 'source' : 'interpolated', format: json.segments.some((s) => s.words?.some((w) => 'score' in w)) ? 'whisperx' : 'whisper' };
}

function fromWhisperCpp(json: Static<typeof WhisperCppJson>): DraftTranscript {
  const segments = json.transcription.map((t) => {
    const startMs = Math.round(t.offsets.from);
    const endMs = Math.max(startMs, Math.round(t.offsets.to));
    const text = cleanText(t.text);
    return { speaker: null, startMs, endMs, text, words: spreadWords(text, startMs, endMs), interpolated: true };
  });
  return { segments, timing: 'interpolated', format: 'whisper.cpp' };
}

/** Ends a merged segment: a sentence end, a pause, a new speaker, or a long run of words. */
const SENTENCE_END = /[.!?…]["”’)]?$/;
const PAUSE_MS = 1500;
const MAX_WORDS = 60;

function fromPodcastIndex(json: Static<typeof PodcastIndexJson>): DraftTranscript {
  const entries = json.segments
    .map((s) => ({ speaker: s.speaker ? cleanText(s.speaker) : null, s: ms(s.startTime), e: Math.max(ms(s.startTime), ms(s.endTime)), text: cleanText(s.body) }))
    .filter((e) => e.text !== '');
  const wordLevel = entries.length > 0 && entries.filter((e) => !e.text.includes(' ')).length / entries.length >= 0.8;
  if (!wordLevel) {
    const segments = entries.map((e) => ({ speaker: e.speaker, startMs: e.s, endMs: e.e, text: e.text, words: spreadWords(e.text, e.s, e.e), interpolated: true }));
    return { segments, timing: 'interpolated', format: 'podcast-index' };
  }
  // One word an entry: merge the words of one speaker into sentences, keeping each word's own time.
  const segments: DraftSegment[] = [];
  let current: DraftSegment | undefined;
  for (const e of entries) {
    const last = current?.words?.at(-1);
    const close = !current || !last || e.speaker !== current.speaker || e.s - last.e > PAUSE_MS || SENTENCE_END.test(last.t) || current.words!.length >= MAX_WORDS;
    if (close) {
      current = { speaker: e.speaker, startMs: e.s, endMs: e.e, text: '', words: [] };
      segments.push(current);
    }
    current!.words!.push({ t: e.text, s: e.s, e: e.e });
    current!.endMs = Math.max(current!.endMs, e.e);
  }
  for (const s of segments) s.text = s.words!.map((w) => w.t).join(' ');
  return { segments, timing: 'source', format: 'podcast-index' };
}

/** A JSON transcript as a draft, or undefined when its shape is not a transcript we know. */
export function parseJsonTranscript(value: unknown): DraftTranscript | undefined {
  switch (jsonKind(value)) {
    case 'whisper':
      return fromWhisper(value as Static<typeof WhisperJson>);
    case 'whisper.cpp':
      return fromWhisperCpp(value as Static<typeof WhisperCppJson>);
    case 'podcast-index':
      return fromPodcastIndex(value as Static<typeof PodcastIndexJson>);
    default:
      return undefined;
  }
}
