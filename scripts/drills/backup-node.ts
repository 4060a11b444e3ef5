// A throw-away single OpenSearch node of the drill's own (its folder, its ports, path.repo set), so the backup drill can
// delete a data directory for real without touching the node of `npm run services -- up`.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/ground/logger.js';
import { serviceAccount } from '../ops/provision/opensearch-account.js';
import { clusterNodeSettings, clusterNodeSpecs, isFreshNode, singleNodeSettings, snapshotRoot, writeNodeConfig, type NodeSpec } from '../ops/provision/opensearch-config.js';
import { ensureInstall, findJava } from '../ops/provision/opensearch-install.js';
import { prepareFolder, spawnNode, verifyPlugins, waitForHealth, type Watched } from '../ops/provision/opensearch-node.js';
import { RUN_DIR } from '../ops/provision/paths.js';
import { choosePort } from '../ops/provision/ports.js';
import { stopProcess } from '../ops/provision/processes.js';

export interface DrillNode {
  /** Its URL; for a cluster every node's, comma-separated (as OPENSEARCH_URL takes them). */
  url: string;
  /** Where its data lives (each node's): what the drill deletes. */
  dataDirs: string[];
  /** Where its snapshots live (path.repo): what survives. */
  snapshotDir: string;
  /** Starts the node (again) on the same ports and folders; resolves once it is healthy. */
  start(): Promise<void>;
  /** SIGKILLs the node: the crash, not a shutdown. */
  kill(): Promise<void>;
  /** Stops the node and removes its whole folder, snapshots included. */
  remove(): Promise<void>;
}

/** A node in `<run>/<name>` (a fresh folder) on free ports near 9250; not started yet. */
export async function drillNode({ name = 'drill-backup', log, heap = '768m' }: { name?: string; log: Logger; heap?: string }): Promise<DrillNode> {
  const env = process.env;
  const port = await choosePort({ env, preferred: 9250, what: 'drill OpenSearch HTTP' });
  const transportPort = await choosePort({ env, preferred: 9350, avoid: [port], what: 'drill OpenSearch transport' });
  const node: NodeSpec = { name: 'local-1', port, transportPort, dir: path.join(RUN_DIR, name) };
  fs.rmSync(node.dir, { recursive: true, force: true });
  const java = await findJava(env, log);
  await ensureInstall(java, log);
  const account = await serviceAccount(log);
  const url = `http://127.0.0.1:${port}`;
  let pid: number | undefined;

  const stop = async (signal: 'kill' | 'term') => {
    if (pid === undefined) return;
    if (signal === 'kill') {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await stopProcess(pid, { group: true, timeoutMs: 10_000, name: 'drill OpenSearch', log });
    } else await stopProcess(pid, { group: true, timeoutMs: 30_000, name: 'drill OpenSearch', log });
    pid = undefined;
  };

  return {
    url,
    dataDirs: [path.join(node.dir, 'data')],
    snapshotDir: snapshotRoot([node]),
    async start() {
      const conf = writeNodeConfig(node, singleNodeSettings(node), { heap });
      await prepareFolder(node, account);
      const child = spawnNode(node, conf, { env, java, account });
      pid = child.pid;
      await waitForHealth([{ node, pid: child.pid, url, exited: child.exited }], { status: 'yellow', nodes: 1, timeoutMs: 180_000, log });
      await verifyPlugins(url);
    },
    kill: () => stop('kill'),
    async remove() {
      await stop('term');
      fs.rmSync(node.dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throw-away local cluster of `count` nodes in `<run>/<name>/node-<i>` (fresh folders), as `npm run services -- up
 * --nodes 3` builds one (512 MB heap each, one shared path.repo); not started yet. A node whose data folder was
 * deleted bootstraps again with the others when all start together.
 */
export async function drillCluster({ name = 'drill-backup-cluster', count = 3, log }: { name?: string; count?: number; log: Logger }): Promise<DrillNode> {
  const env = process.env;
  const taken: number[] = [];
  const ports: { port: number; transportPort: number }[] = [];
  for (let i = 0; i < count; i++) {
    const port = await choosePort({ env, preferred: 9260 + i, avoid: taken, what: `drill cluster HTTP of node ${i + 1}` });
    taken.push(port);
    const transportPort = await choosePort({ env, preferred: 9360 + i, avoid: taken, what: `drill cluster transport of node ${i + 1}` });
    taken.push(transportPort);
    ports.push({ port, transportPort });
  }
  const dir = path.join(RUN_DIR, name);
  fs.rmSync(dir, { recursive: true, force: true });
  const specs = clusterNodeSpecs(dir, ports);
  const java = await findJava(env, log);
  await ensureInstall(java, log);
  const account = await serviceAccount(log);
  let pids: number[] = [];
  const stopAll = async (kill: boolean) => {
    for (const pid of pids) {
      if (kill) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await stopProcess(pid, { group: true, timeoutMs: kill ? 10_000 : 30_000, name: 'drill OpenSearch node', log });
    }
    pids = [];
  };
  return {
    url: specs.map((n) => `http://127.0.0.1:${n.port}`).join(','),
    dataDirs: specs.map((n) => path.join(n.dir, 'data')),
    snapshotDir: snapshotRoot(specs),
    async start() {
      const watched: Watched[] = [];
      for (const node of specs) {
        const conf = writeNodeConfig(node, clusterNodeSettings(node, specs, { bootstrap: isFreshNode(node) }), { heap: '512m' });
        await prepareFolder(node, account);
        const child = spawnNode(node, conf, { env, java, account });
        pids.push(child.pid);
        watched.push({ node, pid: child.pid, url: `http://127.0.0.1:${node.port}`, exited: child.exited });
      }
      await waitForHealth(watched, { status: 'green', nodes: count, timeoutMs: 300_000, log });
      await verifyPlugins(watched[0]!.url);
    },
    kill: () => stopAll(true),
    async remove() {
      await stopAll(false);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
