// Audio made to mislead ffmpeg, for the transcription suites (security review 2026-11-27, items 2 and 3).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { x } from 'tinyexec';

async function ffmpeg(...args: string[]): Promise<void> {
  const r = await x('ffmpeg', ['-v', 'error', '-y', ...args], { throwOnError: false });
  if (r.exitCode !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${r.stderr}`);
}

/**
 * An MP3 whose Xing/Info header says it lasts `claims` seconds, followed by `holds` seconds more audio: the header's
 * byte count is zeroed so ffmpeg's check for concatenated files does not see it (as the review made it).
 */
export async function spoofedMp3(dir: string, { claims, holds }: { claims: number; holds: number }): Promise<string> {
  const head = path.join(dir, 'head.mp3');
  const tail = path.join(dir, 'tail.mp3');
  const mp3 = ['-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '32k'];
  await ffmpeg('-f', 'lavfi', '-i', `sine=frequency=440:duration=${claims}`, ...mp3, head);
  await ffmpeg('-f', 'lavfi', '-i', `sine=frequency=330:duration=${holds}`, ...mp3, '-write_xing', '0', '-id3v2_version', '0', tail);
  const bytes = await readFile(head);
  const at = [bytes.indexOf('Xing'), bytes.indexOf('Info')].find((i) => i >= 0)!;
  const flags = bytes.readUInt32BE(at + 4);
  // Flag 1: a frame count follows; flag 2: then a byte count.
  if (flags & 2) bytes.writeUInt32BE(0, at + 8 + (flags & 1 ? 4 : 0));
  const out = path.join(dir, 'spoofed.mp3');
  await writeFile(out, Buffer.concat([bytes, await readFile(tail)]));
  return out;
}

/** An HLS playlist (no extension, as a download is named) whose one segment is `target`, an absolute local path. */
export const hlsPlaylist = (target: string): string => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${target}\n#EXT-X-ENDLIST\n`;
