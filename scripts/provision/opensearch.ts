// Local single-node OpenSearch 2.19.1 with k-NN and English analysis, assembled from Maven artifacts (no Docker).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../src/logger.js';
import { CACHE_DIR, RUN_DIR } from './paths.js';
import {
  checkPinnedPort,
  choosePort,
  clearState,
  exec,
  findExecutable,
  isAlive,
  isOurProcess,
  isRoot,
  lastLine,
  ProvisionError,
  provisionError,
  readState,
  sleep,
  stopProcess,
  tailFile,
  writeState,
  type Env,
} from './service-runtime.js';

/** Distribution, modules and k-NN plugin must carry exactly this OpenSearch version. */
export const OPENSEARCH_VERSION = '2.19.1';
const KNN_VERSION = `${OPENSEARCH_VERSION}.0`;

const INSTALL_DIR = path.join(CACHE_DIR, `opensearch-${OPENSEARCH_VERSION}`);
const DOWNLOAD_DIR = path.join(CACHE_DIR, 'downloads');
/** Written last: an install without it is half-finished and is rebuilt. */
const STAMP_FILE = '.provisioned.json';
/** Config, data, logs and tmp of the running node; data survives `down`. */
const NODE_DIR = path.join(RUN_DIR, 'opensearch');
const CONSOLE_LOG = path.join(NODE_DIR, 'logs', 'console.log');
const STATE = 'opensearch';
/** `GET /` answers with this name on our node; anything else on the port is not ours. */
const CLUSTER_NAME = 'creator-content-local';
/** OpenSearch refuses to run as root, so root starts it as this system user. */
const SERVICE_USER = 'opensearch';
/** 2.19 runs on 17 and 21; 24+ removed the security manager it relies on. */
const JAVA_MAJOR = { min: 17, max: 23 };

const DISTRIBUTION = `org.opensearch.distribution.integ-test-zip:opensearch:${OPENSEARCH_VERSION}:zip`;
const KNN_PLUGIN = `org.opensearch.plugin:opensearch-knn:${KNN_VERSION}:zip`;

/**
 * The integ-test zip ships only transport-netty4. The `english` analyzer lives in analysis-common,
 * which extends lang-painless (as does k-NN); both are published as plain jars, so we lay out the
 * module folders the way the full distribution does.
 */
const MODULES = [
  {
    name: 'lang-painless',
    description: 'An easy, safe and fast scripting language for OpenSearch',
    classname: 'org.opensearch.painless.PainlessPlugin',
    extendedPlugins: '',
    // Painless compiles scripts into classes at runtime.
    policy: [
      'grant {',
      '  permission java.lang.RuntimePermission "createClassLoader";',
      '  permission java.lang.RuntimePermission "getClassLoader";',
      '};',
    ].join('\n'),
  },
  {
    name: 'analysis-common',
    description: 'Adds "built in" analyzers to OpenSearch.',
    classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin',
    extendedPlugins: 'lang-painless',
    policy: undefined,
  },
] as const;

const REQUIRED_PLUGINS = ['opensearch-knn'];
const REQUIRED_MODULES = ['lang-painless', 'analysis-common', 'transport-netty4'];

/** What `up` records about the node it started. */
export interface OpenSearchState {
  pid: number;
  url: string;
  port: number;
  transportPort: number;
  user: string;
  javaHome: string;
  startedAt: string;
}

export interface JavaHome {
  home: string;
  major: number;
}

// ---------------------------------------------------------------------------------------------
// Java

async function javaMajor(home: string): Promise<number | undefined> {
  const { code, stderr, stdout } = await exec(path.join(home, 'bin', 'java'), ['-version']);
  if (code !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(stderr + stdout);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 ? Number(match[2]) : first; // "1.8.0" is Java 8
}

/** A JDK 17-23: OPENSEARCH_JAVA_HOME, JAVA_HOME, `java` on PATH, then the distro's JVM folder. */
export async function findJava(env: Env, log: Logger): Promise<JavaHome> {
  const candidates: string[] = [];
  for (const value of [env.OPENSEARCH_JAVA_HOME, env.JAVA_HOME]) if (value?.trim()) candidates.push(value.trim());
  const onPath = findExecutable('java', env);
  if (onPath) candidates.push(path.dirname(path.dirname(fs.realpathSync(onPath))));
  const jvmDir = '/usr/lib/jvm';
  if (fs.existsSync(jvmDir)) for (const name of fs.readdirSync(jvmDir).sort()) candidates.push(path.join(jvmDir, name));

  const seen = new Set<string>();
  const rejected: string[] = [];
  for (const candidate of candidates) {
    let home: string;
    try {
      home = fs.realpathSync(candidate);
    } catch {
      continue;
    }
    if (seen.has(home) || !fs.existsSync(path.join(home, 'bin', 'java'))) continue;
    seen.add(home);
    const major = await javaMajor(home);
    if (major !== undefined && major >= JAVA_MAJOR.min && major <= JAVA_MAJOR.max) {
      log.info({ javaHome: home, major }, 'using Java for OpenSearch');
      return { home, major };
    }
    rejected.push(`${home} (${major ?? 'unknown'})`);
    log.debug({ javaHome: home, major }, 'skipping Java outside 17-23');
  }
  throw provisionError('JAVA_NOT_FOUND', rejected.length ? ` (only ${rejected.join(', ')})` : '');
}

// ---------------------------------------------------------------------------------------------
// Install (cached in .cache/opensearch-<version>/)

interface Stamp {
  opensearch: string;
  knn: string;
  modules: string[];
  builtAt: string;
}

function isInstalled(): boolean {
  try {
    const stamp = JSON.parse(fs.readFileSync(path.join(INSTALL_DIR, STAMP_FILE), 'utf8')) as Stamp;
    return stamp.opensearch === OPENSEARCH_VERSION && stamp.knn === KNN_VERSION;
  } catch {
    return false;
  }
}

async function mvn(args: string[], what: string, java: JavaHome, log: Logger, cwd = CACHE_DIR): Promise<void> {
  const mvnBin = findExecutable('mvn');
  if (!mvnBin) throw provisionError('TOOL_MISSING', 'mvn', 'install Maven (e.g. apt-get install maven), then run up again');
  const started = Date.now();
  log.info({ artifact: what }, 'fetching with mvn');
  const result = await exec(mvnBin, ['-B', '-ntp', '-Dstyle.color=never', ...args], {
    cwd,
    env: { ...process.env, JAVA_HOME: java.home },
  });
  if (result.code !== 0) {
    const errorLine = result.stdout.split('\n').find((l) => l.startsWith('[ERROR]')) ?? lastLine(result.stdout + result.stderr);
    throw provisionError('DOWNLOAD_FAILED', what, errorLine.replace(/^\[ERROR\]\s*/, '').slice(0, 300));
  }
  log.info({ artifact: what, seconds: (Date.now() - started) / 1000 }, 'fetched');
}

/** A throwaway pom whose only job is to let Maven resolve dependencies for us. */
function writePom(dir: string, dependencies: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const pom = path.join(dir, 'pom.xml');
  fs.writeFileSync(
    pom,
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.provision</groupId>
  <artifactId>${path.basename(dir)}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${dependencies}
  </dependencies>
</project>
`,
  );
  return pom;
}

const dependency = (groupId: string, artifactId: string, version: string, type = 'jar', exclusions = '') =>
  `    <dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version><type>${type}</type>${exclusions}</dependency>`;

async function extract(zip: string, dest: string, java: JavaHome, log: Logger): Promise<void> {
  fs.mkdirSync(dest, { recursive: true });
  log.info({ archive: path.basename(zip) }, 'unpacking');
  const unzip = findExecutable('unzip');
  const jar = path.join(java.home, 'bin', 'jar');
  let result;
  if (unzip) result = await exec(unzip, ['-q', '-o', zip, '-d', dest]);
  else if (fs.existsSync(jar)) result = await exec(jar, ['xf', zip], { cwd: dest });
  else throw provisionError('TOOL_MISSING', 'unzip', 'install it (e.g. apt-get install unzip), then run up again');
  if (result.code !== 0) throw provisionError('INSTALL_FAILED', `unpacking ${path.basename(zip)}`, lastLine(result.stderr));
}

function descriptor(module: (typeof MODULES)[number]): string {
  return [
    `description=${module.description}`,
    `version=${OPENSEARCH_VERSION}`,
    `name=${module.name}`,
    `classname=${module.classname}`,
    'java.version=11',
    `opensearch.version=${OPENSEARCH_VERSION}`,
    'custom.foldername=',
    `extended.plugins=${module.extendedPlugins}`,
    'has.native.controller=false',
    '',
  ].join('\n');
}

async function buildInstall(java: JavaHome, log: Logger): Promise<void> {
  const started = Date.now();
  log.info({ version: OPENSEARCH_VERSION, dir: INSTALL_DIR }, 'provisioning OpenSearch (first run only)');
  const partial = `${INSTALL_DIR}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.rmSync(INSTALL_DIR, { recursive: true, force: true });
  fs.mkdirSync(DOWNLOAD_DIR, { recursive: true });

  // Distribution, k-NN zip and analysis-common jar (no dependencies of its own): just the artifacts.
  const artifactsPom = writePom(
    path.join(DOWNLOAD_DIR, 'opensearch-artifacts'),
    [
      dependency('org.opensearch.distribution.integ-test-zip', 'opensearch', OPENSEARCH_VERSION, 'zip'),
      dependency('org.opensearch.plugin', 'opensearch-knn', KNN_VERSION, 'zip'),
      dependency('org.opensearch.plugin', 'analysis-common', OPENSEARCH_VERSION),
    ].join('\n'),
  );
  const artifactsDir = path.join(DOWNLOAD_DIR, `opensearch-${OPENSEARCH_VERSION}-artifacts`);
  await mvn(
    ['-f', artifactsPom, 'dependency:copy-dependencies', '-DexcludeTransitive=true', `-DoutputDirectory=${artifactsDir}`],
    `${DISTRIBUTION} and ${KNN_PLUGIN}`,
    java,
    log,
  );

  await extract(path.join(artifactsDir, `opensearch-${OPENSEARCH_VERSION}.zip`), partial, java, log);
  const home = path.join(partial, `opensearch-${OPENSEARCH_VERSION}`);
  await extract(path.join(artifactsDir, `opensearch-knn-${KNN_VERSION}.zip`), path.join(home, 'plugins', 'opensearch-knn'), java, log);

  // lang-painless with its own dependencies (antlr, asm, painless-spi); the server jars are in lib/ already.
  const painlessDir = path.join(home, 'modules', 'lang-painless');
  const painlessPom = writePom(
    path.join(DOWNLOAD_DIR, 'lang-painless'),
    dependency(
      'org.opensearch.plugin',
      'lang-painless',
      OPENSEARCH_VERSION,
      'jar',
      '<exclusions><exclusion><groupId>org.opensearch</groupId><artifactId>*</artifactId></exclusion></exclusions>',
    ),
  );
  await mvn(
    ['-f', painlessPom, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${painlessDir}`],
    `org.opensearch.plugin:lang-painless:${OPENSEARCH_VERSION} and its dependencies`,
    java,
    log,
  );
  const analysisDir = path.join(home, 'modules', 'analysis-common');
  fs.mkdirSync(analysisDir, { recursive: true });
  fs.copyFileSync(
    path.join(artifactsDir, `analysis-common-${OPENSEARCH_VERSION}.jar`),
    path.join(analysisDir, `analysis-common-${OPENSEARCH_VERSION}.jar`),
  );
  for (const module of MODULES) {
    const dir = path.join(home, 'modules', module.name);
    fs.writeFileSync(path.join(dir, 'plugin-descriptor.properties'), descriptor(module));
    if (module.policy) fs.writeFileSync(path.join(dir, 'plugin-security.policy'), `${module.policy}\n`);
  }
  for (const script of fs.readdirSync(path.join(home, 'bin'))) fs.chmodSync(path.join(home, 'bin', script), 0o755);

  const stamp: Stamp = {
    opensearch: OPENSEARCH_VERSION,
    knn: KNN_VERSION,
    modules: fs.readdirSync(path.join(home, 'modules')).sort(),
    builtAt: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(home, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  fs.renameSync(home, INSTALL_DIR);
  fs.rmSync(partial, { recursive: true, force: true });
  log.info({ seconds: (Date.now() - started) / 1000, modules: stamp.modules }, 'OpenSearch install ready');
}

// ---------------------------------------------------------------------------------------------
// Node config (regenerated on every start, so ports can change while the install stays untouched)

function writeNodeConfig({ port, transportPort }: { port: number; transportPort: number }): string {
  const conf = path.join(NODE_DIR, 'config');
  fs.rmSync(conf, { recursive: true, force: true });
  fs.mkdirSync(path.join(conf, 'jvm.options.d'), { recursive: true });
  for (const dir of ['data', 'logs', 'tmp']) fs.mkdirSync(path.join(NODE_DIR, dir), { recursive: true });

  fs.copyFileSync(path.join(INSTALL_DIR, 'config', 'log4j2.properties'), path.join(conf, 'log4j2.properties'));
  // The stock options write GC logs and heap dumps relative to the install; keep them with the node.
  const jvmOptions = fs
    .readFileSync(path.join(INSTALL_DIR, 'config', 'jvm.options'), 'utf8')
    .replace(/HeapDumpPath=data$/m, `HeapDumpPath=${path.join(NODE_DIR, 'data')}`)
    .replace(/(=|file=)logs\//g, `$1${path.join(NODE_DIR, 'logs')}/`);
  fs.writeFileSync(path.join(conf, 'jvm.options'), jvmOptions);
  fs.writeFileSync(path.join(conf, 'jvm.options.d', 'heap.options'), '-Xms1g\n-Xmx1g\n');

  const settings: Record<string, string | number | boolean> = {
    'cluster.name': CLUSTER_NAME,
    'node.name': 'local-1',
    'discovery.type': 'single-node',
    'network.host': '127.0.0.1',
    'http.port': port,
    'transport.port': transportPort,
    'path.data': path.join(NODE_DIR, 'data'),
    'path.logs': path.join(NODE_DIR, 'logs'),
    // A nearly full developer disk must not turn indices read-only.
    'cluster.routing.allocation.disk.threshold_enabled': false,
  };
  const yaml = Object.entries(settings)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join('\n');
  fs.writeFileSync(path.join(conf, 'opensearch.yml'), `# Generated by scripts/provision/opensearch.ts on every start.\n${yaml}\n`);
  return conf;
}

// ---------------------------------------------------------------------------------------------
// Service user (root only)

interface Account {
  user: string;
  uid: number;
  gid: number;
}

async function serviceAccount(log: Logger): Promise<Account | undefined> {
  if (!isRoot()) return undefined;
  let uid = await exec('id', ['-u', SERVICE_USER]);
  if (uid.code !== 0) {
    log.info({ user: SERVICE_USER }, 'creating system user for OpenSearch (it refuses to run as root)');
    const created = await exec('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', SERVICE_USER]);
    if (created.code !== 0) throw provisionError('INSTALL_FAILED', `useradd ${SERVICE_USER}`, lastLine(created.stderr));
    uid = await exec('id', ['-u', SERVICE_USER]);
  }
  const gid = await exec('id', ['-g', SERVICE_USER]);
  return { user: SERVICE_USER, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The command prefix that drops from root to the service user without a parent process in between. */
function asUser(account: Account | undefined): string[] {
  if (!account) return [];
  if (findExecutable('setpriv')) {
    return ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', '--'];
  }
  return ['runuser', '-u', account.user, '--'];
}

function runAs(account: Account, args: string[]) {
  const [cmd, ...prefix] = asUser(account);
  return exec(cmd!, [...prefix, ...args]);
}

/** The service user must read the install and write the node folder; a closed parent folder breaks both. */
async function checkAccess(account: Account): Promise<void> {
  const jar = path.join(INSTALL_DIR, 'lib', `opensearch-${OPENSEARCH_VERSION}.jar`);
  if ((await runAs(account, ['test', '-r', jar, '-a', '-w', path.join(NODE_DIR, 'data')])).code === 0) return;
  const chain: string[] = [];
  for (let dir = INSTALL_DIR; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    if ((await runAs(account, ['test', '-x', dir])).code !== 0) throw provisionError('NOT_READABLE', account.user, dir);
  }
  throw provisionError('NOT_READABLE', account.user, NODE_DIR);
}

// ---------------------------------------------------------------------------------------------
// Running node

async function getJson(url: string, timeoutMs = 3_000): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.json() };
  } catch {
    return undefined;
  }
}

/** True when `url` answers as our local node (not some other engine that took the port). */
async function answersAsOurs(url: string): Promise<boolean> {
  const res = await getJson(url);
  return res?.status === 200 && (res.body as { cluster_name?: string }).cluster_name === CLUSTER_NAME;
}

/** The node `up` started, if its process is alive and its port answers. */
export async function runningOpenSearch(): Promise<OpenSearchState | undefined> {
  const state = readState<OpenSearchState>(STATE);
  if (!state || !isOurProcess(state.pid, INSTALL_DIR)) return undefined;
  return (await answersAsOurs(state.url)) ? state : undefined;
}

function failure(error: ProvisionError): ProvisionError {
  const tail = tailFile(CONSOLE_LOG, 40);
  return new ProvisionError(error.code, error.message, tail ? `--- last lines of ${CONSOLE_LOG}\n${tail}` : undefined);
}

async function waitForHealth(state: OpenSearchState, exited: () => boolean, timeoutMs: number, log: Logger): Promise<void> {
  const started = Date.now();
  let nextReport = started + 10_000;
  while (Date.now() - started < timeoutMs) {
    if (exited() || !isAlive(state.pid)) throw failure(provisionError('OPENSEARCH_EXITED', CONSOLE_LOG));
    const res = await getJson(`${state.url}/_cluster/health?wait_for_status=yellow&timeout=2s`, 5_000);
    const status = (res?.body as { status?: string } | undefined)?.status;
    if (res?.status === 200 && (status === 'yellow' || status === 'green')) {
      log.info({ status, seconds: (Date.now() - started) / 1000 }, 'OpenSearch is healthy');
      return;
    }
    if (Date.now() >= nextReport) {
      log.info({ seconds: Math.round((Date.now() - started) / 1000), status: status ?? 'not answering' }, 'waiting for OpenSearch');
      nextReport += 10_000;
    }
    await sleep(res ? 500 : 1_000);
  }
  throw failure(provisionError('OPENSEARCH_UNHEALTHY', Math.round(timeoutMs / 1000), CONSOLE_LOG));
}

async function verifyPlugins(url: string): Promise<void> {
  const res = await getJson(`${url}/_nodes/plugins`, 10_000);
  type Info = { plugins?: { name: string }[]; modules?: { name: string }[] };
  const nodes = Object.values((res?.body as { nodes?: Record<string, Info> } | undefined)?.nodes ?? {});
  const plugins = new Set(nodes.flatMap((n) => n.plugins ?? []).map((p) => p.name));
  const modules = new Set(nodes.flatMap((n) => n.modules ?? []).map((m) => m.name));
  const missing = [
    ...REQUIRED_PLUGINS.filter((p) => !plugins.has(p)).map((p) => `plugin ${p}`),
    ...REQUIRED_MODULES.filter((m) => !modules.has(m)).map((m) => `module ${m}`),
  ];
  if (missing.length) throw provisionError('PLUGINS_MISSING', missing.join(', '));
}

/**
 * Starts the local node, or reuses the one a previous `up` started. Provisions the install on
 * first use. Returns what it started, also recorded in `.cache/run/opensearch.json`.
 */
export async function ensureOpenSearch({
  env,
  log,
  healthTimeoutMs = 120_000,
}: {
  env: Env;
  log: Logger;
  healthTimeoutMs?: number;
}): Promise<OpenSearchState> {
  const recorded = readState<OpenSearchState>(STATE);
  if (recorded && isOurProcess(recorded.pid, INSTALL_DIR)) {
    checkPinnedPort(env, 'OPENSEARCH_PORT', 'OpenSearch', recorded.port);
    if (!(await answersAsOurs(recorded.url))) {
      // An earlier `up` was interrupted while its node was still starting: wait for that node.
      log.info({ url: recorded.url, pid: recorded.pid }, 'OpenSearch from an earlier up is still starting, waiting for it');
      await startedOrStopped(recorded, () => false, healthTimeoutMs, log);
    }
    log.info({ url: recorded.url, pid: recorded.pid }, 'OpenSearch already running, reusing it');
    return recorded;
  }
  clearState(STATE); // whatever it recorded no longer runs

  // Cheap checks first, so a busy port or a missing Java fails before a minute of provisioning.
  const port = await choosePort({ env, envName: 'OPENSEARCH_PORT', preferred: 9200, what: 'OpenSearch HTTP' });
  const transportPort = await choosePort({ env, preferred: 9300, avoid: [port], what: 'OpenSearch transport' });
  const java = await findJava(env, log);
  if (!isInstalled()) await buildInstall(java, log);
  const conf = writeNodeConfig({ port, transportPort });

  const account = await serviceAccount(log);
  if (account) {
    const chown = await exec('chown', ['-R', `${account.uid}:${account.gid}`, NODE_DIR]);
    if (chown.code !== 0) throw provisionError('INSTALL_FAILED', `chown of ${NODE_DIR}`, lastLine(chown.stderr));
    await checkAccess(account);
  }

  const [cmd, ...args] = [...asUser(account), path.join(INSTALL_DIR, 'bin', 'opensearch')];
  const out = fs.openSync(CONSOLE_LOG, 'a');
  const child = spawn(cmd!, args, {
    cwd: NODE_DIR,
    detached: true, // own process group: `down` signals the whole group, and Ctrl-C on `up` leaves it be
    stdio: ['ignore', out, out],
    env: {
      PATH: env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: NODE_DIR,
      JAVA_HOME: java.home,
      OPENSEARCH_JAVA_HOME: java.home,
      OPENSEARCH_PATH_CONF: conf,
      OPENSEARCH_TMPDIR: path.join(NODE_DIR, 'tmp'),
    },
  });
  fs.closeSync(out);
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', () => (exited = true));
  child.unref();
  if (child.pid === undefined) throw failure(provisionError('OPENSEARCH_EXITED', CONSOLE_LOG));

  const state: OpenSearchState = {
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    port,
    transportPort,
    user: account?.user ?? os.userInfo().username,
    javaHome: java.home,
    startedAt: new Date().toISOString(),
  };
  writeState(STATE, state); // before waiting, so `down` can stop a node that never turned healthy
  log.info({ url: state.url, pid: state.pid, transportPort, log: CONSOLE_LOG }, 'starting OpenSearch');

  await startedOrStopped(state, () => exited, healthTimeoutMs, log);
  return state;
}

/** Waits until the node is healthy with its plugins loaded; otherwise stops it, so nothing half-started stays behind. */
async function startedOrStopped(state: OpenSearchState, exited: () => boolean, timeoutMs: number, log: Logger): Promise<void> {
  try {
    await waitForHealth(state, exited, timeoutMs, log);
    await verifyPlugins(state.url);
  } catch (err) {
    await stopOpenSearch({ log });
    throw err;
  }
}

/** Stops the node `up` started (SIGTERM to its process group, SIGKILL after 30 s) and clears its state. */
export async function stopOpenSearch({ log }: { log: Logger }): Promise<OpenSearchState | undefined> {
  const state = readState<OpenSearchState>(STATE);
  if (!state) return undefined;
  // A pid from an old state file may by now belong to something else: only signal our node.
  if (isOurProcess(state.pid, INSTALL_DIR)) await stopProcess(state.pid, { group: true, timeoutMs: 30_000, name: 'OpenSearch', log });
  clearState(STATE);
  return state;
}

/** The recorded node, and whether it runs and answers. */
export async function openSearchState(): Promise<{ state: OpenSearchState | undefined; running: boolean }> {
  const state = readState<OpenSearchState>(STATE);
  return { state, running: (await runningOpenSearch()) !== undefined };
}
