// One OpenSearch node process: start it from the install, ask it how it is, judge its health and plugins.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { asUser, checkAccess, type Account } from './opensearch-account.js';
import type { NodeSpec } from './opensearch-config.js';
import { INSTALL_DIR, REQUIRED_MODULES, REQUIRED_PLUGINS, type JavaHome } from './opensearch-install.js';
import { exec, lastLine, tailFile, type Env } from './commands.js';
import { ProvisionError, createProvisionError } from './errors.js';
import { isAlive, sleep } from './processes.js';

export async function getJson(url: string, timeoutMs = 3_000): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.json() };
  } catch {
    return undefined;
  }
}

/** True when `url` answers as a node of `clusterName` (not some other engine that took the port). */
export async function answersAs(url: string, clusterName: string): Promise<boolean> {
  const res = await getJson(url);
  return res?.status === 200 && (res.body as { cluster_name?: string }).cluster_name === clusterName;
}

export const consoleLog = (node: NodeSpec) => path.join(node.dir, 'logs', 'console.log');

/** The error with the last lines of the node's console log attached. */
export function withLog(error: ProvisionError, node: NodeSpec): ProvisionError {
  const file = consoleLog(node);
  const tail = tailFile(file, 40);
  return new ProvisionError(error.code, error.message, tail ? `--- last lines of ${file}\n${tail}` : undefined);
}

/** Hands the node folder to the service user (when running as root) and checks that it can reach it. */
export async function prepareFolder(node: NodeSpec, account: Account | undefined): Promise<void> {
  if (!account) return;
  const chown = await exec('chown', ['-R', `${account.uid}:${account.gid}`, node.dir]);
  if (chown.code !== 0) throw createProvisionError('install_failed', `chown of ${node.dir}`, lastLine(chown.stderr));
  await checkAccess(account, node.dir);
}

export interface NodeProcess {
  pid: number;
  /** True once the process has exited (or could not start). */
  exited(): boolean;
}

/** Starts `bin/opensearch` with config folder `conf` in its own process group, output to the node's console log. */
export function spawnNode(node: NodeSpec, conf: string, { env, java, account }: { env: Env; java: JavaHome; account: Account | undefined }): NodeProcess {
  const [cmd, ...args] = [...asUser(account), path.join(INSTALL_DIR, 'bin', 'opensearch')];
  const out = fs.openSync(consoleLog(node), 'a');
  const child = spawn(cmd!, args, {
    cwd: node.dir,
    detached: true, // own process group: `down` signals the whole group, and Ctrl-C on `up` leaves it be
    stdio: ['ignore', out, out],
    env: {
      PATH: env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      HOME: node.dir,
      JAVA_HOME: java.home,
      OPENSEARCH_JAVA_HOME: java.home,
      OPENSEARCH_PATH_CONF: conf,
      OPENSEARCH_TMPDIR: path.join(node.dir, 'tmp'),
    },
  });
  fs.closeSync(out);
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', () => (exited = true));
  child.unref();
  if (child.pid === undefined) throw withLog(createProvisionError('opensearch_exited', consoleLog(node)), node);
  return { pid: child.pid, exited: () => exited };
}

/** A node being waited on: its process and where it answers. */
export interface Watched {
  node: NodeSpec;
  pid: number;
  url: string;
  exited?: () => boolean;
}

/**
 * Waits until `_cluster/health` on the first node reports `status` (or better) with `nodes`
 * nodes joined; fails as soon as any watched process exits, or after `timeoutMs`.
 */
export async function waitForHealth(
  watched: readonly Watched[],
  { status: wanted, nodes, timeoutMs, log }: { status: 'yellow' | 'green'; nodes: number; timeoutMs: number; log: Logger },
): Promise<void> {
  const started = Date.now();
  let nextReport = started + 10_000;
  const query = `wait_for_status=${wanted}${nodes > 1 ? `&wait_for_nodes=${nodes}` : ''}&timeout=2s`;
  while (Date.now() - started < timeoutMs) {
    const dead = watched.find((w) => w.exited?.() || !isAlive(w.pid));
    if (dead) throw withLog(createProvisionError('opensearch_exited', consoleLog(dead.node)), dead.node);
    let answered = false;
    let status: string | undefined;
    for (const w of watched) {
      const res = await getJson(`${w.url}/_cluster/health?${query}`, 5_000);
      const body = res?.body as { status?: string; number_of_nodes?: number; timed_out?: boolean } | undefined;
      status = body?.status;
      const ok = res?.status === 200 && !body?.timed_out && (status === 'green' || (wanted === 'yellow' && status === 'yellow'));
      if (ok) {
        log.info({ status, nodes: body?.number_of_nodes, seconds: (Date.now() - started) / 1000 }, 'OpenSearch is healthy');
        return;
      }
      answered = res !== undefined;
      if (answered) break; // one answer is enough to know; the others answer the same
    }
    if (Date.now() >= nextReport) {
      log.info({ seconds: Math.round((Date.now() - started) / 1000), status: status ?? 'not answering' }, 'waiting for OpenSearch');
      nextReport += 10_000;
    }
    await sleep(answered ? 500 : 1_000);
  }
  throw withLog(createProvisionError('opensearch_unhealthy', Math.round(timeoutMs / 1000), consoleLog(watched[0]!.node)), watched[0]!.node);
}

/** Fails unless every node has loaded the k-NN plugin and the modules the mappings need. */
export async function verifyPlugins(url: string): Promise<void> {
  const res = await getJson(`${url}/_nodes/plugins`, 10_000);
  type Info = { name?: string; plugins?: { name: string }[]; modules?: { name: string }[] };
  const nodes = Object.values((res?.body as { nodes?: Record<string, Info> } | undefined)?.nodes ?? {});
  const missing = new Set<string>();
  if (nodes.length === 0) for (const p of REQUIRED_PLUGINS) missing.add(`plugin ${p}`);
  for (const node of nodes) {
    const plugins = new Set((node.plugins ?? []).map((p) => p.name));
    const modules = new Set((node.modules ?? []).map((m) => m.name));
    for (const p of REQUIRED_PLUGINS) if (!plugins.has(p)) missing.add(`plugin ${p}`);
    for (const m of REQUIRED_MODULES) if (!modules.has(m)) missing.add(`module ${m}`);
  }
  if (missing.size) throw createProvisionError('plugins_missing', [...missing].join(', '));
}
