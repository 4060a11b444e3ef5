// The local transcription service (services/transcriber, faster-whisper): its venv and model under `.cache/transcriber`, run on a loopback port like Redis.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { aptInstall } from './apt.js';
import { exec, findExecutable, isRoot, lastLine, tailFile, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { ensureTools } from './debian-tools.js';
import { MODEL_ID as EMBEDDING_MODEL_ID, modelDirFor } from './model.js';
import { CACHE_DIR } from './paths.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, sleep, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';
import { SERVICE_DIR, SERVER, REQUIREMENTS, TRANSCRIBER_DIR, VENV_DIR, VENV_STAMP, LOG_DIR, LOG_FILE, readStamp, venvPython } from './transcriber-paths.js';
import { WHISPER_BASE, NER_MODEL, ensureWhisperBase, ensureNerModel } from './transcriber-models.js';

const STATE = 'transcriber';

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
