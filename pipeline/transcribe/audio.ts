// Audio on disk for the transcription client: its container checked (ffprobe), its real length measured by decoding it
// (ffmpeg), and pieces of a fixed format cut at silences, small enough to upload. Every run is bounded in time and output.
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
/** The decoded audio: 16-bit PCM, 16 kHz mono (what the pieces are encoded from; its length is what was decoded). */
const PCM_BYTES_PER_SECOND = 16_000 * 2;
/** AUDIO_MAX_SECONDS's default, the bound of a run given no `maxSeconds`. */
const DEFAULT_MAX_SECONDS = 6 * 3600;

/**
 * The container demuxers a downloaded file may be read with (ffmpeg's names; `mov` reads mp4/m4a, `matroska` webm).
 * Anything else is refused: a playlist (HLS), a concat list or an image sequence would make ffmpeg read other files.
 */
export const AUDIO_DEMUXERS = ['mp3', 'mov', 'matroska', 'ogg', 'wav', 'flac', 'aac'] as const;

/** Input options of every run: local files only (no protocol a demuxer could open), accepted demuxers only, `format` forced once known. */
const guarded = (format?: string) => ['-protocol_whitelist', 'file', '-format_whitelist', AUDIO_DEMUXERS.join(','), ...(format ? ['-f', format] : [])];

/**
 * How long a run on `seconds` of audio may take: a minute plus a tenth of real time (decoding and encoding speech run
 * at a hundred times real time or more here; a run ten times slower is stuck or hostile).
 */
export const runTimeoutMs = (seconds: number): number => 60_000 + Math.ceil(seconds * 100);

async function run(
  cmd: string,
  args: string[],
  { signal, timeoutMs }: { signal?: AbortSignal | undefined; timeoutMs: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const timedOut = () => {
    signal?.throwIfAborted();
    return new TranscribeError('audio_timeout', `${cmd} did not finish within ${Math.round(timeoutMs / 1000)} s`);
  };
  try {
    const result = await x(cmd, args, { nodeOptions: { stdio: ['ignore', 'pipe', 'pipe'], killSignal: 'SIGKILL' }, throwOnError: false, signal: both });
    if (both.aborted) throw timedOut();
    return { code: result.exitCode ?? 1, stdout: result.stdout, stderr: result.stderr };
  } catch (err) {
    if (err instanceof TranscribeError) throw err;
    if (both.aborted) throw timedOut();
    return { code: 127, stdout: '', stderr: err instanceof Error ? err.message : String(err) };
  }
}

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.trim() ?? '';

function missingTool(cmd: string, stderr: string): TranscribeError {
  return new TranscribeError('bad_audio', `${cmd} could not run (${lastLine(stderr)}): install ffmpeg`);
}

/** What ffprobe says of a file: the accepted demuxer that reads it and the duration its container claims (not to be trusted). */
export interface AudioProbe {
  format: (typeof AUDIO_DEMUXERS)[number];
  claimedSeconds: number | null;
}

/**
 * The container of a file (ffprobe, accepted demuxers only) and that it holds an audio stream; anything else is
 * `bad_audio`, with the same sentence whatever a refused file names (a playlist naming a path that exists or not).
 */
export async function probeAudio(file: string, { signal, timeoutMs = runTimeoutMs(0) }: { signal?: AbortSignal | undefined; timeoutMs?: number } = {}): Promise<AudioProbe> {
  const args = ['-v', 'error', ...guarded(), '-show_entries', 'format=format_name,duration:stream=codec_type', '-of', 'json', file];
  const result = await run('ffprobe', args, { signal, timeoutMs });
  if (result.code === 127) throw missingTool('ffprobe', result.stderr);
  let parsed: { format?: { format_name?: string; duration?: string }; streams?: { codec_type?: string }[] } = {};
  try {
    parsed = JSON.parse(result.stdout || '{}') as typeof parsed;
  } catch {
    // an unreadable answer is a file ffprobe could not read
  }
  const names = (parsed.format?.format_name ?? '').split(',');
  const format = AUDIO_DEMUXERS.find((d) => names.includes(d));
  // The file's own name out of the message: what a refused file names must not change what is said of it.
  const said = lastLine(result.stderr).replaceAll(file, 'the file') || 'not an accepted container';
  if (result.code !== 0 || !format) throw new TranscribeError('bad_audio', `ffprobe could not read the audio (${said})`);
  if (!parsed.streams?.some((s) => s.codec_type === 'audio')) throw new TranscribeError('bad_audio', 'the file holds no audio stream');
  const claimed = Number(parsed.format?.duration);
  return { format, claimedSeconds: Number.isFinite(claimed) && claimed > 0 ? claimed : null };
}

/**
 * Length of an audio file in seconds, as its container claims it (ffprobe, accepted demuxers only): for files we
 * made or trust (benchmarks, the demo). Downloaded audio is measured by decoding it ({@link decodeAudio}).
 */
export async function probeSeconds(file: string, signal?: AbortSignal): Promise<number> {
  const { claimedSeconds } = await probeAudio(file, { signal });
  if (claimedSeconds === null) throw new TranscribeError('bad_audio', 'ffprobe could not read the audio (no duration)');
  return claimedSeconds;
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

/** The audio as decoded: how long it really is (at most `maxSeconds` + 1) and its silences. */
export interface DecodedAudio {
  /** 16 kHz mono 16-bit WAV in the work folder. */
  path: string;
  seconds: number;
  silences: Silence[];
}

/**
 * Decodes the first audio stream of `file` with the demuxer `format` into 16 kHz mono PCM, at most `maxSeconds` + 1 s
 * of it, finding silences on the way. The length is what was decoded, never what the container claims (an MP3 whose
 * Xing header says 1 s may hold hours).
 */
export async function decodeAudio(
  file: string,
  { format, maxSeconds, workDir, signal }: { format: string; maxSeconds: number; workDir: string; signal?: AbortSignal | undefined },
): Promise<DecodedAudio> {
  const out = path.join(workDir, 'decoded.wav');
  const cap = maxSeconds + 1;
  // -35 dB and 0.3 s: a pause between sentences, not the gap between words.
  const args = [
    ...['-hide_banner', '-nostats', '-nostdin', '-y', ...guarded(format), '-i', file, '-map', '0:a:0', '-t', String(cap)],
    ...['-af', 'silencedetect=noise=-35dB:d=0.3', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-fs', String(Math.ceil(cap * PCM_BYTES_PER_SECOND) + 1024 ** 2)],
    ...['-f', 'wav', out],
  ];
  const result = await run('ffmpeg', args, { signal, timeoutMs: runTimeoutMs(cap) });
  if (result.code === 127) throw missingTool('ffmpeg', result.stderr);
  if (result.code !== 0) throw new TranscribeError('bad_audio', `ffmpeg could not read the audio (${lastLine(result.stderr)})`);
  // Our own WAV: its header is the count of samples decoded.
  const probed = await run('ffprobe', ['-v', 'error', ...guarded('wav'), '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', out], {
    signal,
    timeoutMs: runTimeoutMs(0),
  });
  const seconds = Number(probed.stdout.trim());
  if (probed.code !== 0 || !Number.isFinite(seconds) || seconds <= 0) throw new TranscribeError('bad_audio', 'ffmpeg decoded no audio');
  return { path: out, seconds, silences: parseSilences(result.stderr, seconds) };
}

/** Encodes `seconds` of the decoded WAV from `offset` as a piece; ffmpeg stops writing a little past `maxBytes`. */
async function encodePiece(
  wav: string,
  out: string,
  { offset, seconds, maxBytes, signal }: { offset: number; seconds: number; maxBytes: number; signal?: AbortSignal | undefined },
): Promise<void> {
  const range = [...(offset > 0 ? ['-ss', offset.toFixed(3)] : []), '-t', seconds.toFixed(3)];
  const args = [
    ...['-hide_banner', '-nostats', '-nostdin', '-y', ...range, ...guarded('wav'), '-i', wav],
    ...['-vn', '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', `${PIECE_BITRATE_KBPS}k`, '-fs', String(maxBytes + 64 * 1024), '-f', 'mp3', out],
  ];
  const result = await run('ffmpeg', args, { signal, timeoutMs: runTimeoutMs(seconds) });
  if (result.code !== 0) throw new TranscribeError('bad_audio', `ffmpeg could not convert the audio (${lastLine(result.stderr)})`);
}

/** Where each piece lies in the decoded audio (seconds): one piece when the whole fits `maxUploadBytes`, else cut at silences. */
export function planPieces(decoded: Pick<DecodedAudio, 'seconds' | 'silences'>, maxUploadBytes: number): Omit<AudioPiece, 'path'>[] {
  const limit = maxPieceSeconds(maxUploadBytes);
  if (limit < 5) throw new TranscribeError('too_long', `an upload limit of ${maxUploadBytes} bytes holds less than 5 s of audio`);
  const bounds = [0, ...planCuts(decoded.seconds, decoded.silences, limit), decoded.seconds];
  return bounds.slice(0, -1).map((offsetSeconds, i) => ({ offsetSeconds, seconds: bounds[i + 1]! - offsetSeconds }));
}

/** Encodes the `index`-th planned piece of the decoded WAV into `workDir` (16 kHz mono MP3, never the downloaded bytes as they are). */
export async function writePiece(
  decoded: Pick<DecodedAudio, 'path'>,
  planned: Omit<AudioPiece, 'path'>,
  index: number,
  { maxUploadBytes, workDir, signal }: { maxUploadBytes: number; workDir: string; signal?: AbortSignal | undefined },
): Promise<AudioPiece> {
  const out = path.join(workDir, `piece-${String(index).padStart(4, '0')}.mp3`);
  await encodePiece(decoded.path, out, { offset: planned.offsetSeconds, seconds: planned.seconds, maxBytes: maxUploadBytes, signal });
  return { path: out, ...planned };
}

/**
 * The pieces to upload, always 16 kHz mono MP3 made from the decoded audio (never the downloaded bytes as they are):
 * one piece when the whole fits `maxUploadBytes`, else pieces cut at silences, written into `workDir`.
 */
export async function splitAudio(
  decoded: Pick<DecodedAudio, 'path' | 'seconds' | 'silences'>,
  { maxUploadBytes, workDir, signal }: { maxUploadBytes: number; workDir: string; signal?: AbortSignal | undefined },
): Promise<AudioPiece[]> {
  const pieces: AudioPiece[] = [];
  for (const [i, planned] of planPieces(decoded, maxUploadBytes).entries()) pieces.push(await writePiece(decoded, planned, i, { maxUploadBytes, workDir, signal }));
  return pieces;
}

/**
 * Refuses a piece larger than the upload limit (`piece_too_large`) before it is sent: a service with a smaller limit
 * than ours would refuse it, and one with none would decode whatever it is given.
 */
export async function checkPieceSize(piece: Pick<AudioPiece, 'path'>, maxUploadBytes: number): Promise<void> {
  const { size } = await stat(piece.path);
  if (size > maxUploadBytes) throw new TranscribeError('piece_too_large', `a piece of ${size} bytes is over the ${maxUploadBytes}-byte upload limit`);
}

/**
 * A downloaded file checked and decoded: its container checked, its real length measured by decoding it (more than
 * `maxSeconds` is `too_long`), its silences found; the pieces are planned from it, and encoded one at a time.
 */
export async function decodeChecked(
  file: string,
  { maxSeconds = DEFAULT_MAX_SECONDS, workDir, signal }: { maxSeconds?: number | undefined; workDir: string; signal?: AbortSignal | undefined },
): Promise<DecodedAudio> {
  const { format } = await probeAudio(file, { signal });
  const decoded = await decodeAudio(file, { format, maxSeconds, workDir, signal });
  if (decoded.seconds > maxSeconds) throw new TranscribeError('too_long', `the audio lasts more than the ${maxSeconds} s transcribed`);
  return decoded;
}

/**
 * A downloaded file made ready to upload: its container checked, its real length measured by decoding it (more than
 * `maxSeconds` is `too_long`), and its pieces encoded.
 */
export async function prepareAudio(
  file: string,
  {
    maxSeconds = DEFAULT_MAX_SECONDS,
    maxUploadBytes,
    workDir,
    signal,
  }: { maxSeconds?: number | undefined; maxUploadBytes: number; workDir: string; signal?: AbortSignal | undefined },
): Promise<{ seconds: number; pieces: AudioPiece[] }> {
  const decoded = await decodeChecked(file, { maxSeconds, workDir, signal });
  return { seconds: decoded.seconds, pieces: await splitAudio(decoded, { maxUploadBytes, workDir, signal }) };
}
