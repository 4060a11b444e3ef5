// Reading a file a feed or a download folder names, confined to that folder: the local half of the safe fetcher.
import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FetchError, formatBytes } from './errors.js';

/** `rel` (from `relative`) stays inside the folder it was computed from. */
function inside(rel: string): boolean {
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The path of `ref` relative to `baseDir` (or to its real path, for absolute refs spelled through it); undefined when outside. */
function relativeInside(baseDir: string, realBase: string, ref: string): string | undefined {
  for (const base of [resolve(baseDir), realBase]) {
    const rel = relative(base, resolve(base, ref));
    if (inside(rel)) return rel;
  }
  return undefined;
}

/**
 * Reads `ref` (a path relative to `baseDir`, or an absolute path inside it) confined to `baseDir`: no `file:` or other
 * URLs, no absolute path or `..` that leaves the folder, no symbolic link anywhere below `baseDir` (every component
 * is checked with `lstat`, and the file is opened with `O_NOFOLLOW`), regular files only (no FIFO, device or
 * folder), and the size checked before reading and again while reading. `baseDir` itself may sit behind a link.
 * Throws FetchError: `scheme`, `bad_url`, `outside_folder`, `symlink`, `not_a_file`, `not_found`, `too_large`.
 */
export async function readLocalFile(baseDir: string, ref: string, { maxBytes }: { maxBytes: number }): Promise<Buffer> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) && !/^[a-z]:[\\/]/i.test(ref)) throw new FetchError('scheme', ref, `${ref}: a URL where a path inside the folder was expected`);
  if (ref === '' || ref.includes('\0')) throw new FetchError('bad_url', ref, 'an empty path, or one with a NUL byte');
  const realBase = await realpath(baseDir).catch((err: NodeJS.ErrnoException) => {
    throw new FetchError('not_found', baseDir, `${baseDir}: folder not found (${err.code})`, { cause: err });
  });
  const rel = relativeInside(baseDir, realBase, ref);
  if (rel === undefined || rel === '') throw new FetchError('outside_folder', ref, `${ref} is outside ${baseDir}`);

  // Walk down from the real folder so that no link below it is followed, the last component included.
  let path = realBase;
  let info;
  for (const part of rel.split(sep)) {
    path = join(path, part);
    info = await lstat(path).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' || err.code === 'ENOTDIR'
        ? new FetchError('not_found', ref, `${ref}: file not found`, { cause: err })
        : new FetchError('not_a_file', ref, `${ref}: ${err.message}`, { cause: err });
    });
    if (info.isSymbolicLink()) throw new FetchError('symlink', ref, `${ref}: ${relative(realBase, path)} is a symbolic link`);
  }
  if (!info!.isFile()) throw new FetchError('not_a_file', ref, `${ref} is not a regular file`);
  if (info!.size > maxBytes) throw new FetchError('too_large', ref, `${ref}: ${info!.size} bytes, more than ${formatBytes(maxBytes)}`, { limit: maxBytes });

  // O_NOFOLLOW and O_NONBLOCK: a link or FIFO swapped in after the check neither redirects nor hangs the read.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP'
      ? new FetchError('symlink', ref, `${ref} is a symbolic link`, { cause: err })
      : new FetchError('not_found', ref, `${ref}: ${err.message}`, { cause: err });
  });
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== info!.ino || opened.dev !== info!.dev) throw new FetchError('not_a_file', ref, `${ref} changed while it was being read`);
    // Read one byte more than the size checked: a file that grew since the check is refused, never truncated.
    const buffer = Buffer.allocUnsafe(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new FetchError('too_large', ref, `${ref}: more than ${formatBytes(maxBytes)}`, { limit: maxBytes });
    if (length === buffer.length) throw new FetchError('not_a_file', ref, `${ref} grew while it was being read`);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
