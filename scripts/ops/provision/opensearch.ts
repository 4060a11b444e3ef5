// Local single-node OpenSearch 2.19.1 with k-NN and English analysis, assembled from Maven artifacts (no Docker).
// The install lives in opensearch-install.ts, its config in opensearch-config.ts; a cluster in opensearch-cluster.ts.
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../../core/ground/logger.js';
import { serviceAccount } from './opensearch-account.js';
import { singleNodeSettings, SINGLE_NODE_CLUSTER, writeNodeConfig, type NodeSpec } from './opensearch-config.js';
import { ensureInstall, findJava, INSTALL_DIR } from './opensearch-install.js';
import { answersAs, getJson, prepareFolder, spawnNode, verifyPlugins, waitForHealth } from './opensearch-node.js';
import { RUN_DIR } from './paths.js';
import type { Env } from './commands.js';
import { checkPinnedPort, choosePort } from './ports.js';
import { isOurProcess, stopProcess } from './processes.js';
import { clearState, readState, writeState } from './state.js';

// Exported here before the install moved to its own module; kept so existing imports still work.
export { findJava, OPENSEARCH_VERSION, type JavaHome } from './opensearch-install.js';

/** Config, data, logs and tmp of the running node; data survives `down`. */
const NODE_DIR = path.join(RUN_DIR, 'opensearch');
const STATE = 'opensearch';

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

const nodeSpec = ({ port, transportPort }: { port: number; transportPort: number }): NodeSpec => ({ name: 'local-1', port, transportPort, dir: NODE_DIR });

/** The node `up` started, if its process is alive and its port answers. */
export async function runningOpenSearch(): Promise<OpenSearchState | undefined> {
  const state = readState<OpenSearchState>(STATE);
  if (!state || !isOurProcess(state.pid, INSTALL_DIR)) return undefined;
  return (await answersAs(state.url, SINGLE_NODE_CLUSTER)) ? state : undefined;
}

/**
 * Starts the local node, or reuses the one a previous `up` started. Provisions the install on
 * first use. Returns what it started, also recorded in `.cache/run/opensearch.json`.
 */
export async function ensureOpenSearch({ env, log, healthTimeoutMs = 120_000 }: { env: Env; log: Logger; healthTimeoutMs?: number }): Promise<OpenSearchState> {
  const recorded = readState<OpenSearchState>(STATE);
  if (recorded && isOurProcess(recorded.pid, INSTALL_DIR)) {
    checkPinnedPort(env, 'OPENSEARCH_PORT', 'OpenSearch', recorded.port);
    if (!(await answersAs(recorded.url, SINGLE_NODE_CLUSTER))) {
      // An earlier `up` was interrupted while its node was still starting: wait for that node.
      log.info({ url: recorded.url, pid: recorded.pid }, 'OpenSearch from an earlier up is still starting, waiting for it');
      await startedOrStopped(recorded, () => false, healthTimeoutMs, log);
    }
    if (await hasSnapshotRoot(recorded.url)) {
      log.info({ url: recorded.url, pid: recorded.pid }, 'OpenSearch already running, reusing it');
      return recorded;
    }
    // Started before its config had path.repo (a static setting): `npm run backup` needs it, so restart it once.
    log.warn({ url: recorded.url, pid: recorded.pid }, 'OpenSearch from an earlier up has no path.repo for backups: restarting it with the current config');
    await stopOpenSearch({ log });
  }
  clearState(STATE); // whatever it recorded no longer runs

  // Cheap checks first, so a busy port or a missing Java fails before a minute of provisioning.
  const port = await choosePort({ env, envName: 'OPENSEARCH_PORT', preferred: 9200, what: 'OpenSearch HTTP' });
  const transportPort = await choosePort({ env, preferred: 9300, avoid: [port], what: 'OpenSearch transport' });
  const java = await findJava(env, log);
  await ensureInstall(java, log);
  const node = nodeSpec({ port, transportPort });
  const conf = writeNodeConfig(node, singleNodeSettings(node));

  const account = await serviceAccount(log);
  await prepareFolder(node, account);
  const child = spawnNode(node, conf, { env, java, account });

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
  log.info({ url: state.url, pid: state.pid, transportPort, log: path.join(NODE_DIR, 'logs', 'console.log') }, 'starting OpenSearch');

  await startedOrStopped(state, child.exited, healthTimeoutMs, log);
  return state;
}

/** True when the node was started with a `path.repo` (the snapshot repositories' root the config writes). */
async function hasSnapshotRoot(url: string): Promise<boolean> {
  const res = await getJson(`${url}/_nodes/_local/settings?filter_path=nodes.*.settings.path.repo`);
  if (res?.status !== 200) return true; // no clear answer: never restart a node on a doubt
  return JSON.stringify(res.body ?? {}).includes('"repo"');
}

/** Waits until the node is healthy with its plugins loaded; otherwise stops it, so nothing half-started stays behind. */
async function startedOrStopped(state: OpenSearchState, exited: () => boolean, timeoutMs: number, log: Logger): Promise<void> {
  try {
    await waitForHealth([{ node: nodeSpec(state), pid: state.pid, url: state.url, exited }], { status: 'yellow', nodes: 1, timeoutMs, log });
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
