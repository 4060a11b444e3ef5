// Real speech for the transcription tests and benchmark: espeak-ng speaks sentences into one WAV (or MP3) with known silences between them.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { x } from 'tinyexec';

/** A sentence as spoken into the file, with where its sound truly starts and ends. */
export interface SpokenSentence {
  text: string;
  startMs: number;
  endMs: number;
}

export interface SpeakOptions {
  /** Silence between two sentences. */
  gapMs?: number;
  /** Silence before the first sentence. */
  leadMs?: number;
  voice?: string;
  wordsPerMinute?: number;
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

async function run(cmd: string, args: string[]): Promise<void> {
  const result = await x(cmd, args, { throwOnError: false, nodeOptions: { stdio: ['ignore', 'pipe', 'pipe'] } });
  if (result.exitCode !== 0) throw new Error(`${cmd} failed (${result.exitCode}): ${result.stderr.trim().split('\n').at(-1) ?? ''}; install Debian's espeak-ng and ffmpeg`);
}

/**
 * Speaks each sentence with espeak-ng and writes them one after another into `file` (WAV, or
 * MP3 when the name ends in `.mp3`), `leadMs` of silence first and `gapMs` between sentences.
 * Returns where each sentence's sound starts and ends in the file: the truth a transcription is checked against.
 */
export async function speak(
  sentences: string[],
  file: string,
  { gapMs = 1000, leadMs = 500, voice = 'en-us', wordsPerMinute = 160 }: SpeakOptions = {},
): Promise<SpokenSentence[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cca-speech-'));
  try {
    const clips: Pcm[] = [];
    for (const [i, text] of sentences.entries()) {
      const wav = path.join(dir, `s${i}.wav`);
      await run('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '-w', wav, text]);
      clips.push(readWav(await readFile(wav)));
    }
    const sampleRate = clips[0]?.sampleRate ?? 22050;
    const silence = (ms: number) => new Int16Array(Math.round((ms / 1000) * sampleRate));
    const parts: Int16Array[] = [silence(leadMs)];
    const spoken: SpokenSentence[] = [];
    let at = parts[0]!.length;
    for (const [i, clip] of clips.entries()) {
      const { first, last } = soundSpan(clip.samples);
      const sound = clip.samples.subarray(first, last + 1);
      spoken.push({ text: sentences[i]!, startMs: Math.round((at / sampleRate) * 1000), endMs: Math.round(((at + sound.length) / sampleRate) * 1000) });
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
