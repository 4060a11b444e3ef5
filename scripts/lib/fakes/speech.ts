// Real speech for the transcription tests and benchmark: espeak-ng speaks sentences into one WAV (or MP3) with known silences between them.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { x } from 'tinyexec';

/** A word as spoken into the file: where espeak-ng put it. */
export interface SpokenWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** A sentence as spoken into the file, with where its sound truly starts and ends. */
export interface SpokenSentence {
  text: string;
  startMs: number;
  endMs: number;
  /**
   * Each word's span, with `words: true`, read from espeak-ng's own word events. A short word espeak-ng speaks as one
   * unit with its neighbour (the "the" of "in the village") has no event, and no entry here.
   */
  words?: SpokenWord[];
}

export interface SpeakOptions {
  /** Silence between two sentences. */
  gapMs?: number;
  /** Silence before the first sentence. */
  leadMs?: number;
  voice?: string;
  wordsPerMinute?: number;
  /** Also say where each word is (needs python3 and libespeak-ng, which Debian's espeak-ng brings). */
  words?: boolean;
}

interface Pcm {
  sampleRate: number;
  samples: Int16Array;
}

/** The 16-bit mono PCM of a WAV file (espeak-ng writes that). */
export function readWav(data: Buffer): Pcm {
  if (data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let offset = 12;
  let sampleRate = 0;
  while (offset + 8 <= data.length) {
    const id = data.toString('ascii', offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      if (data.readUInt16LE(offset + 10) !== 1 || data.readUInt16LE(offset + 22) !== 16) throw new Error('expected 16-bit mono PCM');
      sampleRate = data.readUInt32LE(offset + 12);
    } else if (id === 'data') {
      const end = Math.min(data.length, offset + 8 + size); // espeak may leave the size at its maximum
      const bytes = data.subarray(offset + 8, end - ((end - offset - 8) % 2));
      return { sampleRate, samples: new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('the WAV file has no data chunk');
}

/** A 16-bit mono PCM WAV file. */
export function wavBytes({ sampleRate, samples }: Pcm): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.length * 2, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.length * 2, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.length * 2)]);
}

/** The span of a clip that is sound, not espeak's own leading and trailing quiet (samples). */
function soundSpan(samples: Int16Array, threshold = 300): { first: number; last: number } {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) < threshold) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) < threshold) last--;
  return { first, last };
}

async function run(cmd: string, args: string[]): Promise<string> {
  const result = await x(cmd, args, { throwOnError: false, nodeOptions: { stdio: ['ignore', 'pipe', 'pipe'] } });
  if (result.exitCode !== 0) throw new Error(`${cmd} failed (${result.exitCode}): ${result.stderr.trim().split('\n').at(-1) ?? ''}; install Debian's espeak-ng and ffmpeg`);
  return result.stdout;
}

const WORDS_SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'espeak-words.py');

/**
 * Where each word of `clip` starts (samples), from espeak-ng's WORD events: the sentence is synthesized again
 * through libespeak-ng, and its samples must be the clip's very samples (same SHA-1; the command line only adds
 * silence after them), so the events describe this clip and no other.
 */
async function wordMarks(text: string, clip: Pcm, voice: string, wordsPerMinute: number): Promise<{ text: string; sample: number }[]> {
  const out = JSON.parse(await run('python3', [WORDS_SCRIPT, voice, String(wordsPerMinute), text])) as {
    sampleRate: number;
    samples: number;
    sha1: string;
    words: { text: string; sample: number }[];
  };
  const same = clip.samples.subarray(0, out.samples);
  const digest = createHash('sha1')
    .update(new Uint8Array(same.buffer, same.byteOffset, same.byteLength))
    .digest('hex');
  if (out.sampleRate !== clip.sampleRate || digest !== out.sha1 || clip.samples.subarray(out.samples).some((v) => v !== 0)) {
    throw new Error(`espeak-ng's word events do not describe the clip it wrote for ${JSON.stringify(text)}`);
  }
  return out.words;
}

/**
 * Each word's span in the sound `[first, last]` of a clip: from its WORD event (or the sound's start) to the last
 * sample above the threshold before the next word's event.
 */
function wordSpans(samples: Int16Array, marks: { text: string; sample: number }[], { first, last }: { first: number; last: number }, threshold = 300) {
  return marks.map((mark, i) => {
    const start = Math.max(mark.sample, first);
    let end = Math.min(marks[i + 1]?.sample ?? last + 1, last + 1) - 1;
    while (end > start && Math.abs(samples[end]!) < threshold) end--;
    return { text: mark.text, start, end: end + 1 };
  });
}

/**
 * Speaks each sentence with espeak-ng and writes them one after another into `file` (WAV, or
 * MP3 when the name ends in `.mp3`), `leadMs` of silence first and `gapMs` between sentences.
 * Returns where each sentence's sound starts and ends in the file: the truth a transcription is checked against.
 */
export async function speak(
  sentences: string[],
  file: string,
  { gapMs = 1000, leadMs = 500, voice = 'en-us', wordsPerMinute = 160, words = false }: SpeakOptions = {},
): Promise<SpokenSentence[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cca-speech-'));
  try {
    const clips: Pcm[] = [];
    const marks: { text: string; sample: number }[][] = [];
    for (const [i, text] of sentences.entries()) {
      const wav = path.join(dir, `s${i}.wav`);
      await run('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '-w', wav, text]);
      clips.push(readWav(await readFile(wav)));
      if (words) marks.push(await wordMarks(text, clips.at(-1)!, voice, wordsPerMinute));
    }
    const sampleRate = clips[0]?.sampleRate ?? 22050;
    const silence = (ms: number) => new Int16Array(Math.round((ms / 1000) * sampleRate));
    const parts: Int16Array[] = [silence(leadMs)];
    const spoken: SpokenSentence[] = [];
    let at = parts[0]!.length;
    const ms = (sample: number) => Math.round((sample / sampleRate) * 1000);
    for (const [i, clip] of clips.entries()) {
      const span = soundSpan(clip.samples);
      const { first, last } = span;
      const sound = clip.samples.subarray(first, last + 1);
      spoken.push({ text: sentences[i]!, startMs: ms(at), endMs: ms(at + sound.length) });
      if (words) {
        spoken.at(-1)!.words = wordSpans(clip.samples, marks[i]!, span).map((w) => ({ text: w.text, startMs: ms(at + w.start - first), endMs: ms(at + w.end - first) }));
      }
      parts.push(sound, silence(gapMs));
      at += sound.length + parts.at(-1)!.length;
    }
    const samples = new Int16Array(at);
    let offset = 0;
    for (const part of parts) {
      samples.set(part, offset);
      offset += part.length;
    }
    const wav = wavBytes({ sampleRate, samples });
    if (file.toLowerCase().endsWith('.mp3')) {
      const tmp = path.join(dir, 'all.wav');
      await writeFile(tmp, wav);
      await run('ffmpeg', ['-hide_banner', '-nostats', '-loglevel', 'error', '-y', '-i', tmp, '-ac', '1', '-b:a', '64k', file]);
    } else {
      await writeFile(file, wav);
    }
    return spoken;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
