// Local reads confined to a folder: what a feed or a download folder names may not leave it by any spelling
// (absolute path, `..`, `file:`), through any symbolic link, or into a FIFO or a device; sizes are checked first.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readLocalFile } from '../../core/ground/outbound/local-file.js';
import { FetchError, type FetchErrorCode } from '../../core/ground/outbound/errors.js';

/** The code a read fails with, or 'read' when it succeeds (a test must never hang on a FIFO, so none does). */
async function outcome(baseDir: string, ref: string, maxBytes = 1024): Promise<FetchErrorCode | 'read'> {
  try {
    await readLocalFile(baseDir, ref, { maxBytes });
    return 'read';
  } catch (err) {
    if (err instanceof FetchError) return err.code;
    throw err;
  }
}

describe('safe fetch: local files confined to their folder', function () {
  let root: string;
  let feedDir: string;
  let secret: string;

  before(async function () {
    root = await mkdtemp(join(tmpdir(), 'fetch-local-'));
    feedDir = join(root, 'feed');
    await mkdir(join(feedDir, 'sub'), { recursive: true });
    await mkdir(join(root, 'secret'));
    secret = join(root, 'secret', 'private.vtt');
    await writeFile(secret, 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nsomeone else’s words\n');
    await writeFile(join(feedDir, 'sub', 'ep1.vtt'), 'WEBVTT\n');
    await writeFile(join(feedDir, 'big.vtt'), Buffer.alloc(4096, 65));
    await symlink(secret, join(feedDir, 'out-link.vtt'));
    await symlink(join(feedDir, 'sub', 'ep1.vtt'), join(feedDir, 'in-link.vtt'));
    await symlink(join(root, 'secret'), join(feedDir, 'linked-dir'));
    await symlink('/dev/zero', join(feedDir, 'zero.vtt'));
    execFileSync('mkfifo', [join(feedDir, 'fifo.vtt')]);
  });
  after(async function () {
    await rm(root, { recursive: true, force: true });
  });

  it('reads a file inside the folder, by a relative path or an absolute one inside it', async function () {
    expect((await readLocalFile(feedDir, 'sub/ep1.vtt', { maxBytes: 100 })).toString()).to.equal('WEBVTT\n');
    expect((await readLocalFile(feedDir, join(feedDir, 'sub', 'ep1.vtt'), { maxBytes: 100 })).toString()).to.equal('WEBVTT\n');
    expect(await outcome(feedDir, './sub/../sub/ep1.vtt')).to.equal('read');
  });

  it('refuses an absolute path outside the folder, a `..` that leaves it, and every file: URL', async function () {
    expect(await outcome(feedDir, secret)).to.equal('outside_folder');
    expect(await outcome(feedDir, '/etc/passwd')).to.equal('outside_folder');
    expect(await outcome(feedDir, '../secret/private.vtt')).to.equal('outside_folder');
    expect(await outcome(feedDir, 'sub/../../secret/private.vtt')).to.equal('outside_folder');
    expect(await outcome(feedDir, `file://${secret}`)).to.equal('scheme');
    expect(await outcome(feedDir, `file://${join(feedDir, 'sub', 'ep1.vtt')}`)).to.equal('scheme');
    expect(await outcome(feedDir, '.')).to.equal('outside_folder');
  });

  it('refuses a symbolic link, whether it points out of the folder or into it, and a linked folder on the way', async function () {
    expect(await outcome(feedDir, 'out-link.vtt')).to.equal('symlink');
    expect(await outcome(feedDir, 'in-link.vtt')).to.equal('symlink');
    expect(await outcome(feedDir, 'linked-dir/private.vtt')).to.equal('symlink');
  });

  it('refuses a FIFO and a device (directly, or linked as /dev/zero) instead of hanging or reading forever', async function () {
    expect(await outcome(feedDir, 'fifo.vtt')).to.equal('not_a_file');
    expect(await outcome(feedDir, 'zero.vtt')).to.equal('symlink');
    expect(await outcome(feedDir, '/dev/zero')).to.equal('outside_folder');
    expect(await outcome('/dev', 'zero')).to.equal('not_a_file');
    expect(await outcome(feedDir, 'sub')).to.equal('not_a_file');
  });

  it('refuses a file larger than the limit before reading it, and names a missing one', async function () {
    const err = await readLocalFile(feedDir, 'big.vtt', { maxBytes: 1024 }).catch((e: FetchError) => e);
    expect(err).to.be.instanceOf(FetchError);
    expect((err as FetchError).code).to.equal('too_large');
    expect((err as FetchError).limit).to.equal(1024);
    expect(await outcome(feedDir, 'big.vtt', 4096)).to.equal('read');
    expect(await outcome(feedDir, 'missing.vtt')).to.equal('not_found');
  });
});
