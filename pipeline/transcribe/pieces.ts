// Pieces already transcribed, kept beside the episode (`episodes/<id>.pieces/`) so a worker killed during a long
// episode resumes at the next piece. Each file carries the key of the run it belongs to (the audio's sha256, the
// model, the language hint and where every piece lies): a changed file, model or cut plan never reuses a stale piece.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeLibraryJson } from '../../core/library/writer.js';
import { readJsonFile } from '../../core/library/reader.js';
import type { AudioPiece } from './audio.js';
import type { RawTranscript } from './types.js';

/** One transcribed piece as kept on disk: the service's answer normalised, on the piece's own timeline. */
export interface SavedPiece {
  formatVersion: 1;
  /** {@link piecesKey} of the run: a file of another key is stale. */
  key: string;
  index: number;
  /** Pieces in the run. */
  of: number;
  offsetSeconds: number;
  seconds: number;
  answer: RawTranscript;
}

/** The pieces folder of an episode file (`episodes/<id>.json` → `episodes/<id>.pieces`): not a `.json` file, so no reader of the library takes it for an episode. */
export { piecesDirOf } from '../../core/library/layout.js';

const pieceFile = (dir: string, index: number) => join(dir, `piece-${String(index).padStart(4, '0')}.json`);

/** sha256 of a file, streamed (an hour of audio is tens of MB). */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * What a saved piece must match to be reused: the audio's bytes, the model asked for, the language hint, and every
 * piece's bounds to the millisecond (the same audio cut for another upload limit is another run).
 */
export function piecesKey({
  audioSha256,
  model,
  language,
  plan,
}: {
  audioSha256: string;
  model: string;
  language: string | null | undefined;
  plan: readonly Omit<AudioPiece, 'path'>[];
}): string {
  const bounds = plan.map((p) => [Math.round(p.offsetSeconds * 1000), Math.round(p.seconds * 1000)]);
  return createHash('sha256')
    .update(JSON.stringify({ v: 1, audioSha256, model, language: language ?? null, bounds }))
    .digest('hex');
}

/** A run's pieces folder: the answers already saved for it, and how to save the next one. */
export interface PieceStore {
  /** The saved answer of each piece of the run (undefined: still to transcribe). */
  done: (RawTranscript | undefined)[];
  save(index: number, planned: Omit<AudioPiece, 'path'>, answer: RawTranscript): Promise<void>;
}

/**
 * Opens the pieces folder `dir` for the run `key` of `count` pieces. Files of another key (the audio, model or cut
 * plan changed) make the whole folder stale: it is removed, and the run starts from its first piece. Each piece is
 * written whole or not at all (the follow folder's atomic write), so a worker killed while saving leaves no half piece.
 * `lock`, given, is held while the folder is read and while each piece is written (the channel folder's library lock:
 * no piece lands in the middle of an import's copy and swap of that folder).
 */
export async function openPieces(
  dir: string,
  { key, count, lock = (fn) => fn() }: { key: string; count: number; lock?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined },
): Promise<PieceStore> {
  const done = await lock(() => readPieces(dir, key, count));
  return {
    done,
    async save(index, planned, answer) {
      const record: SavedPiece = { formatVersion: 1, key, index, of: count, offsetSeconds: planned.offsetSeconds, seconds: planned.seconds, answer };
      await lock(() => writeLibraryJson(pieceFile(dir, index), record));
      done[index] = answer;
    },
  };
}

/** The saved answers of the run `key` in `dir`; a folder holding anything else is removed (a fresh start). */
async function readPieces(dir: string, key: string, count: number): Promise<(RawTranscript | undefined)[]> {
  const done: (RawTranscript | undefined)[] = Array.from({ length: count }, () => undefined);
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  for (const name of names.filter((n) => /^piece-\d+\.json$/.test(n))) {
    const saved = await readJsonFile<SavedPiece>(join(dir, name)).catch(() => undefined);
    if (!saved || saved.key !== key || saved.of !== count || !(saved.index >= 0 && saved.index < count)) {
      await removePieces(dir);
      done.fill(undefined);
      break;
    }
    done[saved.index] = saved.answer;
  }
  return done;
}

/** Removes an episode's pieces folder (once its transcript is written). */
export async function removePieces(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
