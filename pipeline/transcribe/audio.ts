// Audio on disk for the transcription client: its duration (ffprobe), and pieces cut at silences small enough to upload (ffmpeg).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { x } from 'tinyexec';
import { TranscribeError } from './errors.js';

/** A piece of the audio to send, and where it starts in the whole file. */
export interface AudioPiece {
  path: string;
  offsetSeconds: number;
  seconds: number;
}

/**
 * Pieces are MP3 at this bitrate, 16 kHz mono: Whisper resamples to 16 kHz mono anyway, every
 * provider takes MP3, and at a constant bitrate a piece's size follows from its length.
 */
export const PIECE_BITRATE_KBPS = 32;
const PIECE_BYTES_PER_SECOND = (PIECE_BITRATE_KBPS * 1000) / 8;
/** Room for MP3 frame padding and headers: a piece is planned at 90% of the upload limit. */
const PIECE_FILL = 0.9;

async function run(cmd: string, args: string[], signal?: AbortSignal): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const result = await x(cmd, args, { nodeOptions: { stdio: ['ignore', 'pipe', 'pipe'] }, throwOnError: false, signal });
    return { code: result.exitCode ?? 1, stdout: result.stdout, stderr: result.stderr };
  } catch (err) {
    signal?.throwIfAborted();
    return { code: 127, stdout: '', stderr: err instanceof Error ? err.message : String(err) };
  }
}

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.trim() ?? '';

/** Length of an audio file in seconds (ffprobe). A file ffprobe cannot read is `bad_audio`. */
export async function probeSeconds(file: string, signal?: AbortSignal): Promise<number> {
  const result = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file], signal);
  if (result.code === 127) throw new TranscribeError('bad_audio', `ffprobe could not run (${lastLine(result.stderr)}): install ffmpeg`);
  const seconds = Number(result.stdout.trim());
  if (result.code !== 0 || !Number.isFinite(seconds) || seconds <= 0) {
    throw new TranscribeError('bad_audio', `ffprobe could not read the audio (${lastLine(result.stderr) || 'no duration'})`);
  }
  return seconds;
}

/** A silence as ffmpeg's silencedetect reports it, seconds. */
export interface Silence {
  start: number;
  end: number;
}

/** Parses silencedetect's `silence_start: 12.3` / `silence_end: 13.1 | ...` lines. */
export function parseSilences(stderr: string, durationSeconds: number): Silence[] {
  const silences: Silence[] = [];
  let start: number | undefined;
  for (const line of stderr.split('\n')) {
    const s = /silence_start:\s*(-?[\d.]+)/.exec(line);
    if (s) start = Math.max(0, Number(s[1]));
    const e = /silence_end:\s*([\d.]+)/.exec(line);
    if (e && start !== undefined) {
      silences.push({ start, end: Number(e[1]) });
      start = undefined;
    }
  }
  if (start !== undefined) silences.push({ start, end: durationSeconds });
  return silences;
}

/**
 * Where to cut: greedily, the middle of the last silence before each piece would pass
 * `maxPieceSeconds`; a hard cut at the limit only where the speech has no pause at all.
 * Returns the cut times (seconds), without 0 and the end.
 */
export function planCuts(durationSeconds: number, silences: Silence[], maxPieceSeconds: number): number[] {
  const cuts: number[] = [];
  let from = 0;
  while (durationSeconds - from > maxPieceSeconds) {
    const limit = from + maxPieceSeconds;
    const middles = silences.map((s) => (s.start + s.end) / 2).filter((m) => m > from + 1 && m <= limit);
    const cut = middles.length ? middles.at(-1)! : limit;
    cuts.push(cut);
    from = cut;
  }
  return cuts;
}

/** The longest piece that fits the upload limit. */
export function maxPieceSeconds(maxUploadBytes: number): number {
  return Math.floor((maxUploadBytes * PIECE_FILL) / PIECE_BYTES_PER_SECOND);
}

async function detectSilences(file: string, durationSeconds: number, signal?: AbortSignal): Promise<Silence[]> {
  // -35 dB and 0.3 s: a pause between sentences, not the gap between words.
  const result = await run('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-af', 'silencedetect=noise=-35dB:d=0.3', '-f', 'null', '-'], signal);
  if (result.code !== 0) throw new TranscribeError('bad_audio', `ffmpeg could not read the audio (${lastLine(result.stderr)})`);
  return parseSilences(result.stderr, durationSeconds);
}

async function encodePiece(file: string, out: string, offset: number, seconds: number | undefined, signal?: AbortSignal): Promise<void> {
  const range = [...(offset > 0 ? ['-ss', offset.toFixed(3)] : []), ...(seconds === undefined ? [] : ['-t', seconds.toFixed(3)])];
  const args = ['-hide_banner', '-nostats', '-y', ...range, '-i', file, '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', `${PIECE_BITRATE_KBPS}k`, out];
  const result = await run('ffmpeg', args, signal);
  if (result.code !== 0) throw new TranscribeError('bad_audio', `ffmpeg could not convert the audio (${lastLine(result.stderr)})`);
}

/**
 * The pieces to upload: the file itself when it fits `maxUploadBytes`; otherwise 16 kHz mono
 * MP3, one piece when that fits, else pieces cut at silences, written into `workDir`.
 */
export async function splitAudio(
  file: string,
  { durationSeconds, maxUploadBytes, workDir, signal }: { durationSeconds: number; maxUploadBytes: number; workDir: string; signal?: AbortSignal },
): Promise<AudioPiece[]> {
  if ((await stat(file)).size <= maxUploadBytes) return [{ path: file, offsetSeconds: 0, seconds: durationSeconds }];
  const limit = maxPieceSeconds(maxUploadBytes);
  if (limit < 5) throw new TranscribeError('too_long', `an upload limit of ${maxUploadBytes} bytes holds less than 5 s of audio`);
  const cuts = durationSeconds > limit ? planCuts(durationSeconds, await detectSilences(file, durationSeconds, signal), limit) : [];
  const bounds = [0, ...cuts, durationSeconds];
  const pieces: AudioPiece[] = [];
  for (let i = 0; i < bounds.length - 1; i++) {
    const offsetSeconds = bounds[i]!;
    const seconds = bounds[i + 1]! - offsetSeconds;
    const out = path.join(workDir, `piece-${String(i).padStart(4, '0')}.mp3`);
    await encodePiece(file, out, offsetSeconds, i === bounds.length - 2 ? undefined : seconds, signal);
    pieces.push({ path: out, offsetSeconds, seconds });
  }
  return pieces;
}
