// A local OpenSearch cluster of several nodes on loopback (`npm run services -- up --nodes 3`): the same
// install as the single node, one folder and one pair of ports per node, discovery through the transport ports.
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { serviceAccount, type Account } from './opensearch-account.js';
import { clusterNodeSettings, clusterNodeSpecs, isFreshNode, LOCAL_CLUSTER, writeNodeConfig, type NodeSpec } from './opensearch-config.js';
import { ensureInstall, findJava, INSTALL_DIR, type JavaHome } from './opensearch-install.js';
import { answersAs, consoleLog, getJson, prepareFolder, spawnNode, verifyPlugins, waitForHealth, type Watched } from './opensearch-node.js';
import { RUN_DIR } from './paths.js';
import type { Env } from './commands.js';
import { createProvisionError } from './errors.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';

const CLUSTER_DIR = path.join(RUN_DIR, 'opensearch-cluster');
const STATE = 'opensearch-cluster';
/**
 * Heap per node. Three nodes share one developer machine (and its RAM) here; the local
 * libraries fit in far less. On real machines give each node half its RAM (at most 31 GB).
 */
const NODE_HEAP = '512m';

export interface ClusterNodeState extends NodeSpec {
  pid: number;
  url: string;
}

/** What `up --nodes N` records about the cluster it started. */
export interface ClusterState {
  nodes: ClusterNodeState[];
  user: string;
  javaHome: string;
  startedAt: string;
}

/** One node as `status` shows it. */
export interface ClusterNodeStatus {
  name: string;
  url: string;
  pid: number;
  /** Our process is alive and its port answers as our cluster. */
  running: boolean;
  /** The elected cluster-manager right now. */
  clusterManager: boolean;
}

export const clusterUrls = (state: ClusterState): string => state.nodes.map((n) => n.url).join(',');

export function readClusterState(): ClusterState | undefined {
  return readState<ClusterState>(STATE);
}

const alive = (node: ClusterNodeState) => isOurProcess(node.pid, INSTALL_DIR);

/** Ports for `count` nodes: HTTP from 9200 and transport from 9300 up (or the next free), node 1's HTTP pinned by OPENSEARCH_PORT. */
async function choosePorts(env: Env, count: number): Promise<{ port: number; transportPort: number }[]> {
  const taken: number[] = [];
  const ports: { port: number; transportPort: number }[] = [];
  for (let i = 0; i < count; i++) {
    const port = await choosePort({ env, envName: i === 0 ? 'OPENSEARCH_PORT' : undefined, preferred: 9200 + i, avoid: taken, what: `OpenSearch HTTP of node ${i + 1}` });
    taken.push(port);
    const transportPort = await choosePort({ env, preferred: 9300 + i, avoid: taken, what: `OpenSearch transport of node ${i + 1}` });
    taken.push(transportPort);
    ports.push({ port, transportPort });
  }
  return ports;
}

interface StartContext {
  env: Env;
  java: JavaHome;
  account: Account | undefined;
}

/** Writes the node's config (bootstrapping only on its very first start) and starts it. */
async function startNode(node: NodeSpec, all: readonly NodeSpec[], ctx: StartContext): Promise<Watched> {
  const conf = writeNodeConfig(node, clusterNodeSettings(node, all, { bootstrap: isFreshNode(node) }), { heap: NODE_HEAP });
  await prepareFolder(node, ctx.account);
  const child = spawnNode(node, conf, ctx);
  return { node, pid: child.pid, url: `http://127.0.0.1:${node.port}`, exited: child.exited };
}

const toState = (w: Watched): ClusterNodeState => ({ ...w.node, pid: w.pid, url: w.url });

/**
 * Starts a cluster of `nodes` nodes, or reuses (and completes: nodes that died are started
 * again on their ports and folders) the one an earlier `up --nodes` started. Waits until
 * the cluster is green with every node joined and every node carries the plugins.
 */
export async function ensureOpenSearchCluster({
  env,
  log,
  nodes: count,
  healthTimeoutMs = 300_000,
}: {
  env: Env;
  log: Logger;
  nodes: number;
  healthTimeoutMs?: number;
}): Promise<ClusterState> {
  const recorded = readClusterState();
  if (recorded && recorded.nodes.some(alive)) {
    if (recorded.nodes.length !== count) throw createProvisionError('topology_mismatch', `a cluster of ${recorded.nodes.length} nodes`, `${count} node(s)`);
    checkPinnedPort(env, 'OPENSEARCH_PORT', 'OpenSearch', recorded.nodes[0]!.port);
    const dead = recorded.nodes.filter((n) => !alive(n));
    if (dead.length) {
      log.info({ nodes: dead.map((n) => n.name) }, 'starting the cluster nodes that are not running');
      await restartNodes(
        recorded,
        dead.map((n) => n.name),
        { env, log },
      );
    }
    await healthyOrStopped(recorded, { timeoutMs: healthTimeoutMs, log });
    log.info({ urls: clusterUrls(recorded) }, 'OpenSearch cluster already running, reusing it');
    return readClusterState() ?? recorded;
  }
  clearState(STATE);

  const ports = await choosePorts(env, count);
  const java = await findJava(env, log);
  await ensureInstall(java, log);
  const account = await serviceAccount(log);
  const specs = clusterNodeSpecs(CLUSTER_DIR, ports);
  const watched: Watched[] = [];
  const state: ClusterState = { nodes: [], user: account?.user ?? os.userInfo().username, javaHome: java.home, startedAt: new Date().toISOString() };
  for (const node of specs) {
    const w = await startNode(node, specs, { env, java, account });
    watched.push(w);
    state.nodes.push(toState(w));
    writeState(STATE, state); // after each start, so `down` can stop what never turned healthy
    log.info({ node: node.name, url: w.url, pid: w.pid, transportPort: node.transportPort, log: consoleLog(node) }, 'starting OpenSearch node');
  }
  await healthyOrStopped(state, { timeoutMs: healthTimeoutMs, log, watched });
  return state;
}

/** Waits for green with every node, then checks the plugins of every node; stops the cluster on failure. */
async function healthyOrStopped(state: ClusterState, { timeoutMs, log, watched }: { timeoutMs: number; log: Logger; watched?: Watched[] }): Promise<void> {
  try {
    await waitForHealth(watched ?? state.nodes.map((n) => ({ node: n, pid: n.pid, url: n.url })), {
      status: 'green',
      nodes: state.nodes.length,
      timeoutMs,
      log,
    });
    await verifyPlugins(state.nodes[0]!.url);
  } catch (err) {
    await stopOpenSearchCluster({ log });
    throw err;
  }
}

/**
 * Starts the named nodes again on their recorded ports and folders (they keep their data) and
 * records their new pids; does not wait for them. For `up` and for the node-loss drill.
 */
export async function restartNodes(state: ClusterState, names: readonly string[], { env, log }: { env: Env; log: Logger }): Promise<ClusterState> {
  const java: JavaHome = { home: state.javaHome, major: 0 };
  const account = await serviceAccount(log);
  for (const name of names) {
    const i = state.nodes.findIndex((n) => n.name === name);
    if (i < 0) throw new Error(`no node ${name} in the local cluster`);
    const w = await startNode(state.nodes[i]!, state.nodes, { env, java, account });
    state.nodes[i] = toState(w);
    writeState(STATE, state);
    log.info({ node: name, pid: w.pid }, 'started OpenSearch node');
  }
  return state;
}

/** SIGKILLs one node of the local cluster (its whole process group): the crash, not a shutdown. */
export function killNode(state: ClusterState, name: string): void {
  const node = state.nodes.find((n) => n.name === name);
  if (!node || !alive(node)) throw new Error(`node ${name} of the local cluster is not running`);
  process.kill(-node.pid, 'SIGKILL');
}

/** Stops every node `up --nodes` started (SIGTERM to each process group, SIGKILL after 30 s) and clears the state. */
export async function stopOpenSearchCluster({ log }: { log: Logger }): Promise<ClusterState | undefined> {
  const state = readClusterState();
  if (!state) return undefined;
  await Promise.all(state.nodes.filter(alive).map((n) => stopProcess(n.pid, { group: true, timeoutMs: 30_000, name: `OpenSearch ${n.name}`, log })));
  clearState(STATE);
  return state;
}

/** Name of the elected cluster-manager, asked of any node that answers. */
export async function electedClusterManager(urls: readonly string[]): Promise<string | undefined> {
  for (const url of urls) {
    const res = await getJson(`${url}/_cat/cluster_manager?format=json`, 2_000);
    const name = (res?.body as { node?: string }[] | undefined)?.[0]?.node;
    if (res?.status === 200 && name) return name;
  }
  return undefined;
}

/** Every recorded node: whether it runs and answers, and which one is the elected cluster-manager. */
export async function clusterStatus(): Promise<{ state: ClusterState | undefined; nodes: ClusterNodeStatus[] }> {
  const state = readClusterState();
  if (!state) return { state, nodes: [] };
  const running = await Promise.all(state.nodes.map(async (n) => alive(n) && (await answersAs(n.url, LOCAL_CLUSTER))));
  const manager = await electedClusterManager(state.nodes.filter((_, i) => running[i]).map((n) => n.url));
  return {
    state,
    nodes: state.nodes.map((n, i) => ({ name: n.name, url: n.url, pid: n.pid, running: running[i]!, clusterManager: n.name === manager })),
  };
}
