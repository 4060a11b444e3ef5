// The OpenSearch 2.19.1 install with k-NN, neural-search and English analysis, assembled from Maven artifacts (no Docker), and the Java it runs on
// (Debian's JDK, installed when none is found and we are root on Debian or Ubuntu).
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { CACHE_DIR } from './paths.js';
import { aptInstall, planAptInstall, readOsRelease, type AptPackage } from './apt.js';
import { exec, findExecutable, isRoot, lastLine, type Env } from './commands.js';
import { createProvisionError } from './errors.js';
import { ensureMaven } from './maven.js';

/** Distribution, modules and k-NN plugin must carry exactly this OpenSearch version. */
export const OPENSEARCH_VERSION = '2.19.1';
const KNN_VERSION = `${OPENSEARCH_VERSION}.0`;
const NEURAL_SEARCH_VERSION = `${OPENSEARCH_VERSION}.0`;

/** The unpacked install every local node runs from; node processes are recognised by this path. */
export const INSTALL_DIR = path.join(CACHE_DIR, `opensearch-${OPENSEARCH_VERSION}`);
const DOWNLOAD_DIR = path.join(CACHE_DIR, 'downloads');
/** Written last: an install without it is half-finished and is rebuilt. */
const STAMP_FILE = '.provisioned.json';
/** 2.19 runs on 17 and 21; 24+ removed the security manager it relies on. */
const JAVA_MAJOR = { min: 17, max: 23 };
/** Debian's JDK when none is found: 17 where the release has it, 21 on those that dropped 17. */
export const JDK_PACKAGE: AptPackage = ['openjdk-17-jdk-headless', 'openjdk-21-jdk-headless'];

const DISTRIBUTION = `org.opensearch.distribution.integ-test-zip:opensearch:${OPENSEARCH_VERSION}:zip`;
const KNN_PLUGIN = `org.opensearch.plugin:opensearch-knn:${KNN_VERSION}:zip`;
/**
 * The `hybrid` query and the score-ranker (RRF) search processor: only `bench:search` uses it,
 * as the engine-side anchor our own fusion is measured against. It extends only opensearch-knn.
 */
const NEURAL_SEARCH_PLUGIN = `org.opensearch.plugin:neural-search:${NEURAL_SEARCH_VERSION}:zip`;

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
    policy: ['grant {', '  permission java.lang.RuntimePermission "createClassLoader";', '  permission java.lang.RuntimePermission "getClassLoader";', '};'].join('\n'),
  },
  {
    name: 'analysis-common',
    description: 'Adds "built in" analyzers to OpenSearch.',
    classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin',
    extendedPlugins: 'lang-painless',
    policy: undefined,
  },
] as const;

/** What every running node must have loaded. */
export const REQUIRED_PLUGINS = ['opensearch-knn', 'opensearch-neural-search'];
export const REQUIRED_MODULES = ['lang-painless', 'analysis-common', 'transport-netty4'];

/** Where Debian's (and most distributions') JDK packages install. */
const JVM_DIR = '/usr/lib/jvm';

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

/** The first JDK 17-23 of OPENSEARCH_JAVA_HOME, JAVA_HOME, `java` on PATH, then the distro's JVM folder, and the ones it passed over. */
async function locateJava(env: Env, log: Logger): Promise<{ java?: JavaHome; rejected: string[] }> {
  const candidates: string[] = [];
  for (const value of [env.OPENSEARCH_JAVA_HOME, env.JAVA_HOME]) if (value?.trim()) candidates.push(value.trim());
  const onPath = findExecutable('java', env);
  if (onPath) candidates.push(path.dirname(path.dirname(fs.realpathSync(onPath))));
  if (fs.existsSync(JVM_DIR)) for (const name of fs.readdirSync(JVM_DIR).sort()) candidates.push(path.join(JVM_DIR, name));

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
      return { java: { home, major }, rejected };
    }
    rejected.push(`${home} (${major ?? 'unknown'})`);
    log.debug({ javaHome: home, major }, 'skipping Java outside 17-23');
  }
  return { rejected };
}

/** A JDK 17-23 (see locateJava), or Debian's installed now when there is none and we are root on Debian or Ubuntu. */
export async function findJava(env: Env, log: Logger): Promise<JavaHome> {
  const first = await locateJava(env, log);
  if (first.java) return first.java;
  const seen = first.rejected.length ? ` (only ${first.rejected.join(', ')})` : '';
  const plan = planAptInstall([JDK_PACKAGE], { root: isRoot(), osRelease: readOsRelease() });
  if (plan.action === 'refuse') throw createProvisionError('java_not_found', seen, plan.fix);
  await aptInstall(plan.packages, log);
  const { java } = await locateJava(env, log);
  if (!java) throw createProvisionError('java_not_found', seen, `apt-get installed a JDK but none of 17-23 turned up in ${JVM_DIR}`);
  return java;
}

// ---------------------------------------------------------------------------------------------
// Install (cached in .cache/opensearch-<version>/)

interface Stamp {
  opensearch: string;
  knn: string;
  /** Absent in installs made before the plugin was added: `ensureInstall` adds it to them. */
  neuralSearch?: string;
  modules: string[];
  builtAt: string;
}

function readStamp(dir = INSTALL_DIR): Stamp | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, STAMP_FILE), 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

function writeStamp(dir: string, stamp: Stamp): void {
  fs.writeFileSync(path.join(dir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}

/** What an install needs: nothing, the plugins added since it was made, or a build from scratch. */
export function installNeeds(stamp: Stamp | undefined): 'nothing' | 'plugins' | 'build' {
  if (!stamp || stamp.opensearch !== OPENSEARCH_VERSION || stamp.knn !== KNN_VERSION) return 'build';
  return stamp.neuralSearch === NEURAL_SEARCH_VERSION ? 'nothing' : 'plugins';
}

export function isInstalled(): boolean {
  return installNeeds(readStamp()) === 'nothing';
}

/**
 * Makes the install complete before a node starts from it: builds it on first use, and adds to an
 * install from an earlier version of this script the plugins it lacks (no rebuild, data untouched).
 * Only called when no node of this checkout runs, so no running node sees its plugins change.
 */
export async function ensureInstall(java: JavaHome, log: Logger): Promise<void> {
  const needs = installNeeds(readStamp());
  if (needs === 'build') await buildInstall(java, log);
  else if (needs === 'plugins') await addNeuralSearch(java, log);
}

async function mvn(args: string[], what: string, java: JavaHome, log: Logger, cwd = CACHE_DIR): Promise<void> {
  const mvnBin = await ensureMaven({ env: process.env, log });
  const started = Date.now();
  log.info({ artifact: what }, 'fetching with mvn');
  const result = await exec(mvnBin, ['-B', '-ntp', '-Dstyle.color=never', ...args], {
    cwd,
    env: { ...process.env, JAVA_HOME: java.home },
  });
  if (result.code !== 0) {
    const errorLine = result.stdout.split('\n').find((l) => l.startsWith('[ERROR]')) ?? lastLine(result.stdout + result.stderr);
    throw createProvisionError('download_failed', what, errorLine.replace(/^\[ERROR\]\s*/, '').slice(0, 300));
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
  else throw createProvisionError('tool_missing', 'unzip', 'install it (e.g. apt-get install unzip), then run up again');
  if (result.code !== 0) throw createProvisionError('install_failed', `unpacking ${path.basename(zip)}`, lastLine(result.stderr));
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

export async function buildInstall(java: JavaHome, log: Logger): Promise<void> {
  const started = Date.now();
  log.info({ version: OPENSEARCH_VERSION, dir: INSTALL_DIR }, 'provisioning OpenSearch (first run only)');
  const partial = `${INSTALL_DIR}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.rmSync(INSTALL_DIR, { recursive: true, force: true });
  fs.mkdirSync(DOWNLOAD_DIR, { recursive: true });

  // Distribution, plugin zips and analysis-common jar (no dependencies of its own): just the artifacts.
  const artifactsPom = writePom(
    path.join(DOWNLOAD_DIR, 'opensearch-artifacts'),
    [
      dependency('org.opensearch.distribution.integ-test-zip', 'opensearch', OPENSEARCH_VERSION, 'zip'),
      dependency('org.opensearch.plugin', 'opensearch-knn', KNN_VERSION, 'zip'),
      dependency('org.opensearch.plugin', 'neural-search', NEURAL_SEARCH_VERSION, 'zip'),
      dependency('org.opensearch.plugin', 'analysis-common', OPENSEARCH_VERSION),
    ].join('\n'),
  );
  const artifactsDir = path.join(DOWNLOAD_DIR, `opensearch-${OPENSEARCH_VERSION}-artifacts`);
  await mvn(
    ['-f', artifactsPom, 'dependency:copy-dependencies', '-DexcludeTransitive=true', `-DoutputDirectory=${artifactsDir}`],
    `${DISTRIBUTION}, ${KNN_PLUGIN} and ${NEURAL_SEARCH_PLUGIN}`,
    java,
    log,
  );

  await extract(path.join(artifactsDir, `opensearch-${OPENSEARCH_VERSION}.zip`), partial, java, log);
  const home = path.join(partial, `opensearch-${OPENSEARCH_VERSION}`);
  await extract(path.join(artifactsDir, `opensearch-knn-${KNN_VERSION}.zip`), path.join(home, 'plugins', 'opensearch-knn'), java, log);
  await extract(path.join(artifactsDir, `neural-search-${NEURAL_SEARCH_VERSION}.zip`), path.join(home, NEURAL_SEARCH_DIR), java, log);

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
  fs.copyFileSync(path.join(artifactsDir, `analysis-common-${OPENSEARCH_VERSION}.jar`), path.join(analysisDir, `analysis-common-${OPENSEARCH_VERSION}.jar`));
  for (const module of MODULES) {
    const dir = path.join(home, 'modules', module.name);
    fs.writeFileSync(path.join(dir, 'plugin-descriptor.properties'), descriptor(module));
    if (module.policy) fs.writeFileSync(path.join(dir, 'plugin-security.policy'), `${module.policy}\n`);
  }
  for (const script of fs.readdirSync(path.join(home, 'bin'))) fs.chmodSync(path.join(home, 'bin', script), 0o755);

  const stamp: Stamp = {
    opensearch: OPENSEARCH_VERSION,
    knn: KNN_VERSION,
    neuralSearch: NEURAL_SEARCH_VERSION,
    modules: fs.readdirSync(path.join(home, 'modules')).sort(),
    builtAt: new Date().toISOString(),
  };
  writeStamp(home, stamp);
  fs.renameSync(home, INSTALL_DIR);
  fs.rmSync(partial, { recursive: true, force: true });
  log.info({ seconds: (Date.now() - started) / 1000, modules: stamp.modules }, 'OpenSearch install ready');
}

/** Folder of the neural-search plugin inside the install. */
const NEURAL_SEARCH_DIR = path.join('plugins', 'opensearch-neural-search');

/**
 * Adds the neural-search plugin to an install made before it was part of it. Unpacked beside the
 * install first and moved in whole, then the stamp is rewritten: an interrupted upgrade leaves no
 * half plugin behind, and the next `up` tries again.
 */
async function addNeuralSearch(java: JavaHome, log: Logger): Promise<void> {
  const started = Date.now();
  log.info({ plugin: NEURAL_SEARCH_PLUGIN, dir: INSTALL_DIR }, 'adding the neural-search plugin to the existing OpenSearch install');
  const pom = writePom(path.join(DOWNLOAD_DIR, 'neural-search'), dependency('org.opensearch.plugin', 'neural-search', NEURAL_SEARCH_VERSION, 'zip'));
  const artifactsDir = path.join(DOWNLOAD_DIR, `opensearch-${OPENSEARCH_VERSION}-artifacts`);
  await mvn(['-f', pom, 'dependency:copy-dependencies', '-DexcludeTransitive=true', `-DoutputDirectory=${artifactsDir}`], NEURAL_SEARCH_PLUGIN, java, log);
  const partial = path.join(CACHE_DIR, 'neural-search.partial');
  fs.rmSync(partial, { recursive: true, force: true });
  await extract(path.join(artifactsDir, `neural-search-${NEURAL_SEARCH_VERSION}.zip`), partial, java, log);
  const target = path.join(INSTALL_DIR, NEURAL_SEARCH_DIR);
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(partial, target);
  writeStamp(INSTALL_DIR, { ...readStamp()!, neuralSearch: NEURAL_SEARCH_VERSION });
  log.info({ seconds: (Date.now() - started) / 1000 }, 'neural-search plugin added');
}
